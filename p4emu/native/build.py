"""Build a generated C module and import it, through a cache of shared objects.

A shared object is keyed by the SHA-256 of everything that decides its contents: the C
source, the compiler (`$CC`, else `gcc`, resolved on PATH, and the first line of its
`--version`) and the flags. A second load of the same program (any switch, any process)
imports the cached object; another source, another compiler or other flags build anew,
beside it. The compiler is looked up (and asked its version) once per process and value
of `$CC` and PATH: even a cached build needs one, as the key names it.

`$P4EMU_NATIVE_SANITIZE` (e.g. `address,undefined`) builds with those sanitizers, every
report fatal (`sanitizer_flags`): other flags, so another key and another shared object
beside the normal one. An AddressSanitizer build loads only into a process that started
with the runtime preloaded; `sanitizer_env` gives a child process's environment for it
(p4emu.native.fuzz runs its sanitized children so).
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
SANITIZE_ENV = "P4EMU_NATIVE_SANITIZE"
SANITIZERS = ("address", "undefined")
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


def sanitizers() -> tuple[str, ...]:
    """The sanitizers `$P4EMU_NATIVE_SANITIZE` asks for (comma-separated: address,
    undefined), () when unset; ValueError naming any other."""
    kinds = tuple(k.strip() for k in os.environ.get(SANITIZE_ENV, "").split(",") if k.strip())
    bad = [k for k in kinds if k not in SANITIZERS]
    if bad:
        raise ValueError(f"{SANITIZE_ENV}={os.environ[SANITIZE_ENV]!r}: unknown sanitizer "
                         f"{bad[0]!r} (expected {', '.join(SANITIZERS)})")
    return tuple(dict.fromkeys(kinds))


def sanitizer_flags(kinds: tuple[str, ...]) -> tuple[str, ...]:
    """Flags of a build with `kinds`: every report fatal (no recovery), debug info and
    frame pointers for the reports' stacks."""
    if not kinds:
        return ()
    return (f"-fsanitize={','.join(kinds)}", "-fno-sanitize-recover=all",
            "-fno-omit-frame-pointer", "-g")


def compiler() -> Compiler:
    """The compiler `$CC` names (gcc when unset) with FLAGS (and the sanitizers of
    `$P4EMU_NATIVE_SANITIZE`); CompilerMissing when it is not on PATH."""
    flags = FLAGS + sanitizer_flags(sanitizers())
    return _compiler(os.environ.get("CC") or "gcc", os.environ.get("PATH", ""), flags)


def runtime_library(cc: Compiler, kind: str = "address") -> str | None:
    """The path of the compiler's shared sanitizer runtime (libasan.so for address), or
    None when it does not name one."""
    lib = {"address": "libasan.so", "undefined": "libubsan.so"}[kind]
    try:
        r = subprocess.run([*cc.command, f"-print-file-name={lib}"], capture_output=True,
                           text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    path = r.stdout.strip()
    return os.path.realpath(path) if r.returncode == 0 and os.path.isabs(path) else None


def sanitizer_env(kinds: tuple[str, ...] = SANITIZERS, base: dict | None = None) -> dict:
    """The environment of a Python process that builds and loads sanitized modules:
    `$P4EMU_NATIVE_SANITIZE`, the ASan runtime preloaded (a CPython extension cannot bring
    it: the runtime must come first), CPython's allocator off (PYTHONMALLOC=malloc: frames
    are malloc blocks ASan guards, not pymalloc arena slots) and CPython's own leaks at exit
    not reported; every report fatal, its stack printed."""
    env = dict(os.environ if base is None else base)
    env[SANITIZE_ENV] = ",".join(kinds)
    if "address" in kinds:
        cc = _compiler(env.get("CC") or "gcc", env.get("PATH", ""), FLAGS)
        lib = runtime_library(cc)
        if lib is None:
            raise RuntimeError("the C compiler has no shared AddressSanitizer runtime "
                               "(libasan.so)")
        env["LD_PRELOAD"] = " ".join(x for x in (lib, env.get("LD_PRELOAD", "")) if x)
        env["PYTHONMALLOC"] = "malloc"
        env["ASAN_OPTIONS"] = ("detect_leaks=0:halt_on_error=1:abort_on_error=0:"
                               "allocator_may_return_null=0:print_summary=1")
    env["UBSAN_OPTIONS"] = "halt_on_error=1:print_stacktrace=1:print_summary=1"
    return env


def _asan_loaded() -> bool:
    """Whether this process runs with the AddressSanitizer runtime (preloaded)."""
    try:
        with open("/proc/self/maps") as maps:
            return any("libasan" in line for line in maps)
    except OSError:
        return False


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
    if any(f.startswith("-fsanitize=") and "address" in f for f in cc.flags) \
            and not _asan_loaded():
        # loading it would end the process (the runtime must come first)
        raise RuntimeError(f"{SANITIZE_ENV} asks for AddressSanitizer, whose runtime this "
                           "process did not start with: run it with LD_PRELOAD="
                           "$(gcc -print-file-name=libasan.so) (build.sanitizer_env())")
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
