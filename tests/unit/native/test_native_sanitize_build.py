"""The sanitizer build option: `$P4EMU_NATIVE_SANITIZE` adds the sanitizers' flags (so
another cache key: a sanitized build is never taken for a normal one), an ASan build
refuses to load into a process without the runtime (a RuntimeError, not the runtime's
abort), and `sanitizer_env` is the environment a child needs to load one."""

from __future__ import annotations

import os

import pytest

from p4emu.native import build

SOURCE = "int answer(void) { return 42; }\n"


def test_unset_or_empty_is_the_normal_build(monkeypatch):
    monkeypatch.delenv(build.SANITIZE_ENV, raising=False)
    normal = build.compiler()
    monkeypatch.setenv(build.SANITIZE_ENV, " ")
    assert build.sanitizers() == ()
    assert build.compiler().flags == normal.flags
    assert not any(f.startswith("-fsanitize") for f in normal.flags)


def test_sanitizers_change_the_flags_and_the_key(monkeypatch):
    monkeypatch.delenv(build.SANITIZE_ENV, raising=False)
    normal = build.compiler()
    monkeypatch.setenv(build.SANITIZE_ENV, "address,undefined")
    assert build.sanitizers() == ("address", "undefined")
    sanitized = build.compiler()
    assert "-fsanitize=address,undefined" in sanitized.flags
    assert "-fno-sanitize-recover=all" in sanitized.flags  # a report fails the run
    assert sanitized.key(SOURCE) != normal.key(SOURCE)
    monkeypatch.setenv(build.SANITIZE_ENV, "undefined")
    assert build.compiler().key(SOURCE) not in (sanitized.key(SOURCE), normal.key(SOURCE))


def test_an_unknown_sanitizer_is_named(monkeypatch):
    monkeypatch.setenv(build.SANITIZE_ENV, "address,thread")
    with pytest.raises(ValueError, match="unknown sanitizer 'thread'"):
        build.compiler()


def test_an_asan_build_is_not_loaded_without_the_runtime(monkeypatch, tmp_path):
    """Loading it would end this process ("ASan runtime does not come first"): refused
    before anything is compiled, with the way to run it."""
    assert not build._asan_loaded()  # the test process itself runs without ASan
    monkeypatch.setenv(build.SANITIZE_ENV, "address")
    monkeypatch.setenv("P4EMU_NATIVE_CACHE", str(tmp_path))
    with pytest.raises(RuntimeError, match="LD_PRELOAD"):
        build.build(SOURCE)
    assert list(tmp_path.iterdir()) == []


def test_the_environment_of_a_sanitized_child():
    env = build.sanitizer_env(base={"PATH": os.environ["PATH"], "LD_PRELOAD": "libx.so"})
    assert env[build.SANITIZE_ENV] == "address,undefined"
    first, rest = env["LD_PRELOAD"].split(" ", 1)
    assert "libasan" in first and os.path.exists(first) and rest == "libx.so"
    assert env["PYTHONMALLOC"] == "malloc"  # frames are malloc blocks ASan guards
    assert "detect_leaks=0" in env["ASAN_OPTIONS"]  # CPython's own, at exit
    assert "halt_on_error=1" in env["UBSAN_OPTIONS"]
    only_ub = build.sanitizer_env(("undefined",), base={"PATH": os.environ["PATH"]})
    assert "LD_PRELOAD" not in only_ub and only_ub[build.SANITIZE_ENV] == "undefined"
