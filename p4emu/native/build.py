"""Build a generated C module and import it, through a cache of shared objects.

A shared object is keyed by the SHA-256 of everything that decides its contents: the C
source, the compiler (`$CC`, else `gcc`, resolved on PATH, and the first line of its
`--version`) and the flags. A second load of the same program (any switch, any process)
imports the cached object; another source, another compiler or other flags build anew,
beside it. The compiler is looked up (and asked its version) once per process and value
of `$CC` and PATH: even a cached build needs one, as the key names it.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.machinery
import importlib.util
import os
import shlex
import shutil
import subprocess
import sysconfig
import tempfile
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

PLACEHOLDER = "p4emu_native_module"
# what every build is compiled with; the include directory of this Python is added
FLAGS = ("-O2", "-shared", "-fPIC", "-std=gnu11", "-fno-strict-aliasing", "-Wall",
         "-Wno-unused-label", "-Wno-unused-variable", "-Wno-unused-function",
         "-Wno-unused-but-set-variable")
_LOADED: dict[str, ModuleType] = {}


class CompilerMissing(RuntimeError):
    """No C compiler to build with: `$CC` (or gcc) is not on PATH."""


@dataclass(frozen=True)
class Compiler:
    """The C compiler a build runs: its command (`$CC` split, the program found on PATH),
    the file that program is (symbolic links followed), its version line and the flags."""

    command: tuple[str, ...]
    program_file: str
    version: str
    flags: tuple[str, ...]

    def key(self, source: str) -> str:
        """The cache key of `source` built by this compiler with these flags."""
        h = hashlib.sha256()
        for part in (source, *self.command, self.program_file, self.version, *self.flags):
            h.update(part.encode())
            h.update(b"\0")  # ("ab", "c") and ("a", "bc") must differ
        return h.hexdigest()[:20]


def cache_dir() -> Path:
    base = os.environ.get("P4EMU_NATIVE_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "p4emu-native")
    return Path(base)


def compiler() -> Compiler:
    """The compiler `$CC` names (gcc when unset) with FLAGS; CompilerMissing when it is not
    on PATH."""
    return _compiler(os.environ.get("CC") or "gcc", os.environ.get("PATH", ""), FLAGS)


@functools.lru_cache(maxsize=8)
def _compiler(cc: str, path: str, flags: tuple[str, ...]) -> Compiler:
    argv = shlex.split(cc) or ["gcc"]
    program = shutil.which(argv[0], path=path)
    if program is None:
        raise CompilerMissing(f"no C compiler: {argv[0]!r} is not on PATH (set $CC to one)")
    # run as found (a ccache link must keep its name), known by the file it leads to
    command = (program, *argv[1:])
    try:
        r = subprocess.run([*command, "--version"], capture_output=True, text=True, timeout=30)
        version = (r.stdout or r.stderr).strip().splitlines()[0] if r.returncode == 0 else ""
    except (OSError, subprocess.TimeoutExpired, IndexError):
        version = ""  # the build itself will say what is wrong with it
    include = sysconfig.get_paths()["include"]
    return Compiler(command, os.path.realpath(program), version, (*flags, f"-I{include}"))


def build(source: str) -> ModuleType:
    """The extension module of `source` (generated with module name PLACEHOLDER)."""
    cc = compiler()
    name = f"p4n_{cc.key(source)}"
    if name in _LOADED:
        return _LOADED[name]
    code = source.replace(PLACEHOLDER, name)
    suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
    out = cache_dir() / (name + suffix)
    if not out.exists():
        out.parent.mkdir(parents=True, exist_ok=True)
        _compile(cc, code, out, name)
    spec = importlib.util.spec_from_file_location(name, out)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    _LOADED[name] = module
    return module


def _compile(cc: Compiler, code: str, out: Path, name: str) -> None:
    with tempfile.TemporaryDirectory(dir=out.parent) as tmp:
        c_file = Path(tmp) / f"{name}.c"
        c_file.write_text(code)
        so_tmp = Path(tmp) / out.name
        cmd = [*cc.command, *cc.flags, str(c_file), "-o", str(so_tmp)]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            keep = out.with_suffix(".failed.c")
            keep.write_text(code)
            raise RuntimeError(f"native build failed ({keep}):\n{r.stderr[-4000:]}")
        os.replace(so_tmp, out)  # atomic: concurrent builders of one source agree
