"""The build cache's key: the C source, the compiler ($CC resolved on PATH, the file it
is, its version line) and the flags; another of any of them builds anew."""

from __future__ import annotations

import os
import stat

import pytest

from p4emu.native import build

SOURCE = "int answer(void) { return 42; }\n"


def _fake_cc(directory, name: str, version: str) -> str:
    """An executable `name` in `directory` that prints `version` for --version."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / name
    path.write_text(f"#!/bin/sh\necho '{version}'\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


def _key(monkeypatch, cc: str | None, path: str | None = None) -> str:
    if cc is None:
        monkeypatch.delenv("CC", raising=False)
    else:
        monkeypatch.setenv("CC", cc)
    if path is not None:
        monkeypatch.setenv("PATH", path)
    return build.compiler().key(SOURCE)


def test_the_key_changes_with_the_compiler_named_by_cc(monkeypatch, tmp_path):
    a = _fake_cc(tmp_path / "a", "cc-a", "cc-a 1.0")
    b = _fake_cc(tmp_path / "b", "cc-b", "cc-b 1.0")
    assert _key(monkeypatch, a) != _key(monkeypatch, b)
    assert _key(monkeypatch, a) == _key(monkeypatch, a)  # and only with it


def test_the_key_changes_with_the_compilers_version(monkeypatch, tmp_path):
    old = _key(monkeypatch, _fake_cc(tmp_path / "old", "cc", "cc 11.4"),
               str(tmp_path / "old"))
    new = _key(monkeypatch, _fake_cc(tmp_path / "new", "cc", "cc 12.2"),
               str(tmp_path / "new"))
    assert old != new  # `cc` both times, another program on PATH


def test_cc_is_resolved_on_path_and_may_carry_arguments(monkeypatch, tmp_path):
    program = _fake_cc(tmp_path / "bin", "mycc", "mycc 3")
    monkeypatch.setenv("PATH", str(tmp_path / "bin") + os.pathsep + os.environ["PATH"])
    monkeypatch.setenv("CC", "mycc -m64")
    cc = build.compiler()
    assert cc.command == (program, "-m64") and cc.version == "mycc 3"
    assert _key(monkeypatch, "mycc") != _key(monkeypatch, "mycc -m64")


def test_the_key_changes_with_the_flags(monkeypatch, tmp_path):
    cc = _fake_cc(tmp_path, "cc", "cc 1")
    before = _key(monkeypatch, cc)
    monkeypatch.setattr(build, "FLAGS", (*build.FLAGS[1:], "-O3"))
    assert _key(monkeypatch, cc) != before
    assert "-O3" in build.compiler().flags


def test_the_key_changes_with_the_source(monkeypatch, tmp_path):
    cc = build.Compiler(("cc",), "/usr/bin/cc", "cc 1", ("-O2",))
    assert cc.key(SOURCE) != cc.key(SOURCE + "\n")
    # parts are delimited: text moved from the source into the command is another key
    assert cc.key("ab") != build.Compiler(("bcc",), "/usr/bin/cc", "cc 1", ("-O2",)).key("a")


def test_a_missing_compiler_is_named(monkeypatch):
    monkeypatch.setenv("CC", "p4emu-test-no-such-cc")
    with pytest.raises(build.CompilerMissing, match="'p4emu-test-no-such-cc' is not on PATH"):
        build.compiler()
