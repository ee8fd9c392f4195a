"""Preprocessor: macros, conditionals, includes."""

import pytest

from p4emu.lang.errors import P4CompileError
from p4emu.lang.preprocess import preprocess


def run(tmp_path, text, defines=None, files=None):
    for name, body in (files or {}).items():
        (tmp_path / name).write_text(body)
    src = tmp_path / "main.p4"
    src.write_text(text)
    return [sl.text.strip() for sl in preprocess(str(src), (), defines) if sl.text.strip()]


def test_function_like_macro_and_stringify(tmp_path):
    out = run(tmp_path, "#define ADD(a, b) ((a) + (b))\n#define S(x) #x\nx = ADD(1, ADD(2, 3)); S(hi)\n")
    assert out == ['x = ((1) + (((2) + (3)))); "hi"']


def test_conditionals_with_defined_and_elif(tmp_path):
    text = "#if defined(A) && B > 2\nyes\n#elif !defined(A)\nnoA\n#else\nother\n#endif\n"
    assert run(tmp_path, text, {"A": "1", "B": "3"}) == ["yes"]
    assert run(tmp_path, text, {}) == ["noA"]
    assert run(tmp_path, text, {"A": "1", "B": "1"}) == ["other"]


def test_nested_ifdef_ifndef_undef(tmp_path):
    text = "#define X\n#ifdef X\n#ifndef Y\nin\n#endif\n#endif\n#undef X\n#ifdef X\nout\n#endif\n"
    assert run(tmp_path, text) == ["in"]


def test_include_quoted_and_line_mapping(tmp_path):
    lines = preprocess_with_include(tmp_path)
    assert ("inc.p4", 2, "const bit<8> C = 1;") in lines


def preprocess_with_include(tmp_path):
    (tmp_path / "inc.p4").write_text("// comment\nconst bit<8> C = 1;\n")
    src = tmp_path / "main.p4"
    src.write_text('#include "inc.p4"\n')
    return [(sl.file.rsplit("/", 1)[-1], sl.line, sl.text) for sl in preprocess(str(src))]


def test_comments_keep_line_numbers(tmp_path):
    src = tmp_path / "main.p4"
    src.write_text("/* a\n b */ x\ny // z\n")
    lines = preprocess(str(src))
    assert [(sl.line, sl.text.strip()) for sl in lines if sl.text.strip()] == [(2, "x"), (3, "y")]


def test_missing_include_is_located_error(tmp_path):
    with pytest.raises(P4CompileError) as ei:
        run(tmp_path, "\n#include <nope.p4>\n")
    assert ":2:1: error: #include file not found: nope.p4" in str(ei.value)
