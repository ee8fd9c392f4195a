"""Rewrite the installed p4runtime package's protobuf modules for protobuf's compiled core.

    python scripts/p4runtime_protos.py [--check]

p4runtime 1.4.1 (the release p4runtime-shell 0.0.6 pins) ships `_pb2` modules written by a
protoc older than 3.19. Only protobuf's pure-Python runtime loads those, and with it,
encoding and decoding messages was the largest single cost of the lab's P4Runtime streams
(docs/lab-capacity.md). Each module carries its file descriptor (a serialized
FileDescriptorProto): this reads it from the module's source without running it, and
writes the module again the way a current protoc does: the descriptor added to the
default pool, the message classes built from it. Run by scripts/setup.sh after pip; running
it again changes nothing. `--check` only reports whether every module is rewritten.
"""

from __future__ import annotations

import ast
import importlib.metadata
import subprocess
import sys
from pathlib import Path

DISTRIBUTION = "p4runtime"
MARKER = "# rewritten by mrclab scripts/p4runtime_protos.py"
SMOKE_TEST = "from p4.v1 import p4runtime_pb2 as m; m.WriteRequest(device_id=1).SerializeToString()"


def pb2_modules() -> list[Path]:
    """The `_pb2.py` files of the installed p4runtime distribution."""
    try:
        files = importlib.metadata.files(DISTRIBUTION) or []
    except importlib.metadata.PackageNotFoundError:
        raise SystemExit(f"p4runtime_protos: the {DISTRIBUTION} package is not installed") from None
    return sorted(Path(f.locate()) for f in files if str(f).endswith("_pb2.py"))


def module_name(path: Path) -> str:
    """`.../site-packages/p4/v1/p4runtime_pb2.py` -> `p4.v1.p4runtime_pb2`."""
    parts = path.with_suffix("").parts
    return ".".join(parts[parts.index("p4"):])


def serialized_descriptor(tree: ast.Module, path: Path) -> bytes:
    """The `serialized_pb` bytes of the module's `FileDescriptor(...)` call."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "FileDescriptor":
            for kw in node.keywords:
                if kw.arg == "serialized_pb" and isinstance(kw.value, ast.Constant):
                    return kw.value.value
    raise SystemExit(f"p4runtime_protos: {path}: no serialized file descriptor found")


def rewritten(source: str, path: Path) -> str:
    """The module as a current protoc would write it, keeping its imports of the protos it
    depends on (their descriptors must be in the pool first)."""
    tree = ast.parse(source, str(path))
    imports = [ast.unparse(node) for node in tree.body
               if isinstance(node, ast.ImportFrom)
               and all(alias.name.endswith("_pb2") for alias in node.names)]
    return "\n".join([
        MARKER,
        f'"""Generated protocol buffer code for {module_name(path)}."""',
        "from google.protobuf import descriptor_pool as _descriptor_pool",
        "from google.protobuf.internal import builder as _builder",
        *imports,
        "",
        f"DESCRIPTOR = _descriptor_pool.Default().AddSerializedFile({serialized_descriptor(tree, path)!r})",
        "_globals = globals()",
        "_builder.BuildMessageAndEnumDescriptors(DESCRIPTOR, _globals)",
        f"_builder.BuildTopDescriptorsAndMessages(DESCRIPTOR, {module_name(path)!r}, _globals)",
        "",
    ])


def main(argv: list[str]) -> int:
    check = argv == ["--check"]
    if argv and not check:
        print(f"p4runtime_protos: unknown argument {argv[0]!r} (only --check)", file=sys.stderr)
        return 2
    stale = []
    for path in pb2_modules():
        source = path.read_text()
        if source.startswith(MARKER):
            continue
        stale.append(path)
        if not check:
            path.write_text(rewritten(source, path))
            for cached in path.parent.glob(f"__pycache__/{path.stem}.*.pyc"):
                cached.unlink()
    if check:
        for path in stale:
            print(f"p4runtime_protos: {path} not rewritten", file=sys.stderr)
        return 1 if stale else 0
    smoke = subprocess.run([sys.executable, "-c", SMOKE_TEST], capture_output=True, text=True)
    if smoke.returncode != 0:
        last = (smoke.stderr.strip().splitlines() or ["no output"])[-1]
        print(f"p4runtime_protos: the rewritten modules do not load: {last}", file=sys.stderr)
        return 1
    print(f"p4runtime_protos: {len(stale)} module(s) rewritten" if stale
          else "p4runtime_protos: already rewritten")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
