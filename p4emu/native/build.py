"""Build a generated pipeline with gcc -O2 into a cache keyed by the hash of its C source,
and import it. A second load of the same program (any switch, any process) reuses the
shared object; nothing is rebuilt unless the source changes."""

from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
import os
import subprocess
import sysconfig
import tempfile
from pathlib import Path
from types import ModuleType

PLACEHOLDER = "p4emu_native_module"
_LOADED: dict[str, ModuleType] = {}


def cache_dir() -> Path:
    base = os.environ.get("P4EMU_NATIVE_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "p4emu-native")
    return Path(base)


def build(source: str) -> ModuleType:
    """The extension module of `source` (generated with module name PLACEHOLDER)."""
    digest = hashlib.sha256(source.encode()).hexdigest()[:20]
    name = f"p4n_{digest}"
    if name in _LOADED:
        return _LOADED[name]
    code = source.replace(PLACEHOLDER, name)
    suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
    out = cache_dir() / (name + suffix)
    if not out.exists():
        out.parent.mkdir(parents=True, exist_ok=True)
        _compile(code, out, name)
    spec = importlib.util.spec_from_file_location(name, out)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    _LOADED[name] = module
    return module


def _compile(code: str, out: Path, name: str) -> None:
    include = sysconfig.get_paths()["include"]
    with tempfile.TemporaryDirectory(dir=out.parent) as tmp:
        c_file = Path(tmp) / f"{name}.c"
        c_file.write_text(code)
        so_tmp = Path(tmp) / out.name
        cmd = [os.environ.get("CC", "gcc"), "-O2", "-shared", "-fPIC", "-std=gnu11",
               "-fno-strict-aliasing", "-Wall", "-Wno-unused-label", "-Wno-unused-variable",
               "-Wno-unused-function", "-Wno-unused-but-set-variable",
               f"-I{include}", str(c_file), "-o", str(so_tmp)]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            keep = out.with_suffix(".failed.c")
            keep.write_text(code)
            raise RuntimeError(f"native build failed ({keep}):\n{r.stderr[-4000:]}")
        os.replace(so_tmp, out)  # atomic: concurrent builders of one source agree

