"""Which endpoint a process runs (`mrclab.endpoint.compiled`): the compiled build only when
it was built from the sources as they are, never a stale one silently, and the pure-Python
reference on `MRCLAB_ENDPOINT_COMPILED=0`. (The records of the two are compared in
tests/unit/sim/test_compiled_endpoint.py.)"""

from __future__ import annotations

import json
import logging
import sys

import pytest

from mrclab.endpoint import compiled


def _fake_build(root, digests: dict[str, str]) -> str:
    """A cache entry as `build` leaves one (empty files: nothing here loads them)."""
    key = compiled.build_key(digests)
    files = {name: f"{name}.so" for name in (*compiled.MODULES, compiled.SHARED_LIB)}
    d = root / key
    d.mkdir(parents=True)
    for f in files.values():
        (d / f).write_bytes(b"")
    manifest = {"key": key, "files": files, "sources": digests}
    (d / compiled.MANIFEST).write_text(json.dumps(manifest))
    (root / compiled.LATEST).write_text(json.dumps(manifest))
    return key


def test_a_build_counts_only_for_the_sources_it_was_built_from(tmp_path):
    now = compiled.source_digests()
    key = _fake_build(tmp_path, now)
    assert key == compiled.build_key(compiled.source_digests())  # the key is stable
    assert compiled.built(key, tmp_path) == tmp_path / key
    changed = {**now, "mrclab.endpoint.wire": "0" * 64}
    assert compiled.build_key(changed) != key
    assert compiled.built(compiled.build_key(changed), tmp_path) is None
    (tmp_path / key / "mrclab.endpoint.wire.so").unlink()  # incomplete: not a build
    assert compiled.built(key, tmp_path) is None
    # the last build was of these sources: gone, not stale
    assert compiled._stale_reason(now, tmp_path) is None
    assert "sender.py" in compiled._stale_reason({**now, "mrclab.endpoint.core.sender": ""},
                                                 tmp_path)


def test_a_stale_build_is_passed_over_with_a_warning_naming_what_changed(tmp_path,
                                                                        monkeypatch, caplog):
    old = {**compiled.source_digests(), "mrclab.endpoint.core.sender": "0" * 64}
    _fake_build(tmp_path, old)
    monkeypatch.setenv(compiled.CACHE_ENV, str(tmp_path))
    finder = compiled._CompiledFinder("auto")
    with caplog.at_level(logging.WARNING, logger=compiled.__name__):
        assert finder.find_spec("mrclab.endpoint.wire") is None  # the pure-Python module
    assert "stale" in caplog.text and "sender.py" in caplog.text
    assert compiled.REBUILD in caplog.text
    # `1` asks for the compiled endpoint: an error, not the reference in its place
    with pytest.raises(ImportError, match="stale"):
        compiled._CompiledFinder("1").find_spec("mrclab.endpoint.wire")


def test_no_build_runs_the_python_endpoint_quietly_unless_one_is_required(tmp_path,
                                                                         monkeypatch, caplog):
    monkeypatch.setenv(compiled.CACHE_ENV, str(tmp_path / "empty"))
    with caplog.at_level(logging.WARNING, logger=compiled.__name__):
        assert compiled._CompiledFinder("auto").find_spec("mrclab.endpoint.host") is None
    assert not caplog.records
    with pytest.raises(ImportError, match="no compiled endpoint"):
        compiled._CompiledFinder("1").find_spec("mrclab.endpoint.host")
    # other modules are never its business
    assert compiled._CompiledFinder("1").find_spec("mrclab.endpoint.runner") is None


def test_the_switch_reads_zero_one_or_auto(monkeypatch):
    others = [f for f in sys.meta_path if not isinstance(f, compiled._CompiledFinder)]
    monkeypatch.setattr(sys, "meta_path", list(others))
    monkeypatch.setenv(compiled.ENV, "0")
    compiled.install()
    assert sys.meta_path == others  # the reference: nothing in the way
    monkeypatch.setenv(compiled.ENV, "auto")
    compiled.install()
    assert isinstance(sys.meta_path[0], compiled._CompiledFinder)
    monkeypatch.setenv(compiled.ENV, "yes")
    with pytest.raises(ValueError, match=compiled.ENV):
        compiled.install()
    monkeypatch.delenv(compiled.ENV)
    assert compiled.choice() == "auto"
