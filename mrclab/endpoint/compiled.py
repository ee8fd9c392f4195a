"""The endpoint's per-packet Python compiled by mypyc, from the same source files.

`MODULES` (the wire codec, framing, the host of many transfers, the sans-I/O core and the
experiments' timeline recorder) are compiled as they are, one C extension each around one
shared library, into a cache outside the source tree; nothing compiled is committed and no
second copy of any rule exists. The pure-Python modules stay the reference: a compiled
module is the same source's semantics, and tests/unit/sim/test_compiled_endpoint.py holds
the simulator's records byte-identical between the two. The event loop
(`mrclab.endpoint.clock`) stays Python: the simulator's C loop replaces it, and the host
takes either. Classes that code outside the build derives from (`MrcSender`,
`DctcpWindow`, `TimelineSender`) allow it; such a subclass (an exercise's) runs the
compiled methods through the Python API, slower but the same.

    python -m mrclab.endpoint.accelerate build     # once per change of the sources
    python -m mrclab.endpoint.accelerate status    # which endpoint a process runs, and why

A build is keyed by the SHA-256 of the sources, the recipe (`_COMPILE`) and the Python ABI,
and lives in `$MRCLAB_ENDPOINT_CACHE` (default `$XDG_CACHE_HOME/mrclab-endpoint`, else
`~/.cache/mrclab-endpoint`), one directory per key. On import of `mrclab.endpoint` a meta
path finder serves the compiled modules when the build of the sources as they are now
exists; `$MRCLAB_ENDPOINT_COMPILED` chooses:

- `auto` (or unset): the compiled endpoint when built, else the pure-Python one; a build
  of other sources (stale: a source changed since) is never used, and a WARNING names the
  files that changed and the command that rebuilds;
- `0`: the pure-Python reference, whatever is built;
- `1`: the compiled endpoint or an ImportError saying why not.

`mypy` (which brings mypyc) is a dev dependency (pyproject.toml); only the build needs it
and a C compiler, and the compiled modules need nothing beyond them.
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
import json
import logging
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

log = logging.getLogger(__name__)

ENV = "MRCLAB_ENDPOINT_COMPILED"
CACHE_ENV = "MRCLAB_ENDPOINT_CACHE"
CHOICES = ("auto", "0", "1")
GROUP = "mrclab_endpoint"
SHARED_LIB = f"{GROUP}__mypyc"  # mypyc's name for the group's shared library
MODULES = (
    "mrclab.endpoint.wire",
    "mrclab.endpoint.netio",
    "mrclab.endpoint.host",
    "mrclab.endpoint.core.packets",
    "mrclab.endpoint.core.sender_config",
    "mrclab.endpoint.core.rtt",
    "mrclab.endpoint.core.congestion",
    "mrclab.endpoint.core.ev_pool",
    "mrclab.endpoint.core.connection",
    "mrclab.endpoint.core.sack",
    "mrclab.endpoint.core.recovery",
    "mrclab.endpoint.core.loss_detection",
    "mrclab.endpoint.core.sender",
    "mrclab.endpoint.core.receiver",
    "mrclab.endpoint.core.timeline",
)
MANIFEST = "manifest.json"
LATEST = "latest.json"  # the manifest of the last build, to name what changed since
REBUILD = "python -m mrclab.endpoint.accelerate build"
KEEP_BUILDS = 4  # builds kept in the cache (the newest)
_ROOT = Path(__file__).resolve().parents[2]  # the directory that holds `mrclab`

_state: dict[str, str | None] = {"choice": "0", "reason": "not installed", "dir": None}


def source_path(module: str) -> Path:
    return _ROOT.joinpath(*module.split(".")).with_suffix(".py")


def source_digests() -> dict[str, str]:
    """module -> SHA-256 of its source file as it is now."""
    return {m: hashlib.sha256(source_path(m).read_bytes()).hexdigest() for m in MODULES}


def build_key(digests: dict[str, str]) -> str:
    """The cache key of a build of these sources: they, the recipe and the Python ABI."""
    h = hashlib.sha256()
    for part in (*(f"{m}={d}" for m, d in sorted(digests.items())), _COMPILE,
                 sys.implementation.cache_tag, str(sysconfig.get_config_var("EXT_SUFFIX"))):
        h.update(part.encode())
        h.update(b"\0")
    return h.hexdigest()[:20]


def cache_root() -> Path:
    base = os.environ.get(CACHE_ENV) or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "mrclab-endpoint")
    return Path(base)


def choice() -> str:
    value = os.environ.get(ENV, "").strip().lower() or "auto"
    if value not in CHOICES:
        raise ValueError(f"{ENV}={os.environ[ENV]!r}: expected one of {', '.join(CHOICES)}")
    return value


def _read_manifest(path: Path) -> dict | None:
    try:
        manifest = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    return manifest if isinstance(manifest, dict) else None


def built(key: str, root: Path | None = None) -> Path | None:
    """The directory of the complete build of `key`, or None."""
    d = (root or cache_root()) / key
    manifest = _read_manifest(d / MANIFEST)
    if manifest is None or manifest.get("key") != key:
        return None
    files = manifest.get("files", {})
    if set(files) != {*MODULES, SHARED_LIB} or not all((d / f).is_file()
                                                       for f in files.values()):
        return None
    return d


def _stale_reason(digests: dict[str, str], root: Path) -> str | None:
    """Why the last build does not fit these sources, or None when there is none."""
    last = _read_manifest(root / LATEST)
    if last is None or last.get("key") == build_key(digests):
        return None  # none, or this very build, since removed: absent, not stale
    old = last.get("sources", {})
    changed = [source_path(m).name for m in MODULES if old.get(m) != digests[m]]
    if changed:
        return f"its sources changed since it was built: {', '.join(changed)}"
    return "it was built by another recipe or Python"


class _CompiledFinder:
    """Serves the compiled modules (and their shared library) of the build of the sources
    as they are, chosen at the first import of one of them."""

    def __init__(self, want: str) -> None:
        self.want = want
        self.files: dict[str, str] | None = None
        self.directory: Path | None = None
        self.decided = False

    def find_spec(self, name, path=None, target=None):
        if name not in _SERVED:
            return None
        if not self.decided:
            self.decided = True
            self._decide()
        if self.files is None or self.directory is None:
            return None  # the path finder's: the pure-Python module
        location = str(self.directory / self.files[name])
        return importlib.util.spec_from_file_location(
            name, location, loader=importlib.machinery.ExtensionFileLoader(name, location))

    def _decide(self) -> None:
        root = cache_root()
        digests = source_digests()
        directory = built(build_key(digests), root)
        loaded = [m for m in MODULES if m in sys.modules]
        if directory is not None and not loaded:
            manifest = _read_manifest(directory / MANIFEST) or {}
            self.directory, self.files = directory, manifest["files"]
            _state.update(reason=f"built from these sources ({directory})",
                          dir=str(directory))
            return
        stale = _stale_reason(digests, root) if directory is None else None
        if stale is not None:
            reason = f"the compiled endpoint in {root} is stale ({stale})"
        elif directory is None:
            reason = f"no compiled endpoint in {root}"
        else:
            reason = f"pure-Python modules were imported first ({', '.join(loaded)})"
        _state.update(reason=reason, dir=None)
        if self.want == "1":
            raise ImportError(f"{ENV}=1: {reason}; build it: {REBUILD}")
        if stale is not None:  # never silently: the sources changed since the build
            log.warning("%s: running the pure-Python endpoint; rebuild: %s", reason, REBUILD)
        else:
            log.debug("%s: running the pure-Python endpoint", reason)


_SERVED = frozenset((*MODULES, SHARED_LIB))


def install() -> None:
    """Put the compiled endpoint in place of the pure-Python one where
    `$MRCLAB_ENDPOINT_COMPILED` and the cache allow: `mrclab.endpoint` calls this before
    any of `MODULES` is imported. Which one runs is decided at the first import of one
    of them (a WARNING when a stale build is passed over; ImportError when `1` asks for
    a build that is not there)."""
    want = choice()
    if any(isinstance(f, _CompiledFinder) for f in sys.meta_path):
        return
    _state.update(choice=want, reason=f"{ENV}=0", dir=None)
    if want != "0":
        sys.meta_path.insert(0, _CompiledFinder(want))


def build(force: bool = False, root: Path | None = None, quiet: bool = False) -> Path:
    """Compile `MODULES` as they are now (unless built already: `force` rebuilds); returns
    the build's directory. RuntimeError when mypyc or the compiler fails."""
    root = cache_root() if root is None else root
    digests = source_digests()
    key = build_key(digests)
    existing = built(key, root)
    if existing is not None and not force:
        if not quiet:
            print(f"compiled endpoint up to date: {existing}")
        _write_latest(root, existing)
        return existing
    try:
        import mypyc  # noqa: F401
    except ImportError:
        raise RuntimeError("mypyc is not installed: pip install -e '.[dev]' (it comes "
                           "with mypy)") from None
    root.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    with tempfile.TemporaryDirectory(dir=root, prefix=f".{key}-") as tmp:
        work = Path(tmp)
        lib = work / "lib"
        env = {**os.environ, "MYPY_CACHE_DIR": str(work / "mypy_cache"), ENV: "0"}
        cmd = [sys.executable, "-c", _COMPILE, str(lib), str(work / "temp"),
               *(str(source_path(m)) for m in MODULES)]
        r = subprocess.run(cmd, cwd=work, env=env, capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError(f"mypyc build failed:\n{(r.stdout + r.stderr)[-4000:]}")
        files = _locate(lib)
        manifest = {"key": key, "files": files, "sources": digests,
                    "python": sys.version.split()[0], "mypy": _mypy_version(),
                    "built": time.strftime("%Y-%m-%dT%H:%M:%S"),
                    "build_s": round(time.monotonic() - started, 1)}
        (lib / MANIFEST).write_text(json.dumps(manifest, indent=1))
        target = root / key
        if force and target.exists():
            shutil.rmtree(target)
        try:
            os.rename(lib, target)  # atomic: a concurrent build of the same key wins alike
        except OSError:
            if built(key, root) is None:
                raise
    _write_latest(root, target)
    _prune(root, keep=target)
    if not quiet:
        print(f"compiled endpoint built in {time.monotonic() - started:.0f} s: {target}")
    return target


def _prune(root: Path, keep: Path, builds: int = KEEP_BUILDS) -> None:
    """Remove all but the `builds` newest builds (`keep` among them): other checkouts may
    use the cache too, so not only the newest."""
    others = sorted((d for d in root.iterdir()
                     if d.is_dir() and not d.name.startswith(".") and d != keep),
                    key=lambda d: d.stat().st_mtime, reverse=True)
    for d in others[builds - 1:]:
        shutil.rmtree(d, ignore_errors=True)


def _write_latest(root: Path, directory: Path) -> None:
    tmp = root / f".{LATEST}.{os.getpid()}"
    shutil.copyfile(directory / MANIFEST, tmp)
    os.replace(tmp, root / LATEST)


def _locate(lib: Path) -> dict[str, str]:
    """module -> its extension file, relative to `lib` (and the shared library's)."""
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    files = {}
    for name in (*MODULES, SHARED_LIB):
        rel = Path(*name.split(".")).with_name(name.split(".")[-1] + suffix)
        if not (lib / rel).is_file():
            raise RuntimeError(f"mypyc build made no {rel}")
        files[name] = str(rel)
    return files


def _mypy_version() -> str:
    try:
        from importlib.metadata import version

        return version("mypy")
    except Exception:  # noqa: BLE001 (informative only)
        return "unknown"


# Run in a child process (setuptools' build state is global): mypycify then build_ext.
_COMPILE = f"""
import sys
from mypyc.build import mypycify
from setuptools import setup
lib, temp, *paths = sys.argv[1:]
ext = mypycify(paths, opt_level="3", target_dir="c", group_name={GROUP!r})
setup(name={GROUP!r}, ext_modules=ext, script_args=["-q", "build_ext", "--build-lib", lib,
      "--build-temp", temp])
"""


def state() -> dict[str, str | None]:
    """What `install` chose: the choice, the reason, the build directory (None: Python)."""
    return dict(_state)


def active() -> bool:
    """Whether this process runs the compiled endpoint (imported already)."""
    wire = sys.modules.get("mrclab.endpoint.wire")
    return wire is not None and not str(getattr(wire, "__file__", "")).endswith(".py")
