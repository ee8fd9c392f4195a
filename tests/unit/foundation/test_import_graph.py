"""No import cycles between the project's parts, and every import follows the layering
(read with ast, not imported).

The parts are p4emu (a package that stands alone) and the parts of the `mrclab` namespace:
each subpackage (`mrclab.fabric`, `mrclab.controller`, ...) and each top-level module
(`mrclab.places`, ...); `mrclab` itself is the command on top. Every import counts,
including ones inside functions and under TYPE_CHECKING: a lazy import still ties the two
parts together, it only hides the cycle from the interpreter.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
PACKAGES = ("mrclab", "p4emu")
# What each part may import, following the data flow: files and records at the bottom; the
# fabric model on them; the controller's client API (control socket, status) on the model;
# the controller and the Mininet parts on those; the lab runner on the Mininet parts and the
# endpoint; the simulator runs p4emu, the controller's logic and the endpoint on one clock
# and never touches Mininet or the lab; experiments run on either engine; the exercises check
# students' code on both and read experiments' results (the open exercise); the `mrclab`
# command on top. p4emu and the endpoint stand alone (p4emu.cmdline is the one-line
# argument parser every command line uses).
FILES = {"mrclab.jsonrecords", "mrclab.places", "mrclab.processes"}
BASE = FILES | {"p4emu"}
ALLOWED = {
    "p4emu": set(),
    "mrclab.jsonrecords": set(),
    "mrclab.places": set(),
    "mrclab.processes": {"mrclab.places"},
    "mrclab.fabric": BASE,
    "mrclab.endpoint": BASE,
    "mrclab.control": {"mrclab.fabric"} | BASE,
    "mrclab.controller": {"mrclab.fabric", "mrclab.control"} | BASE,
    "mrclab.mininet": {"mrclab.fabric", "mrclab.control"} | BASE,
    "mrclab.lab": {"mrclab.fabric", "mrclab.control", "mrclab.mininet", "mrclab.endpoint"}
    | BASE,
    "mrclab.sim": {"mrclab.fabric", "mrclab.endpoint", "mrclab.controller"} | BASE,
    "mrclab.experiments": {"mrclab.fabric", "mrclab.control", "mrclab.mininet", "mrclab.lab",
                           "mrclab.endpoint", "mrclab.controller", "mrclab.sim"} | BASE,
    "mrclab.exercises": {"mrclab.fabric", "mrclab.control", "mrclab.mininet", "mrclab.lab",
                         "mrclab.endpoint", "mrclab.controller", "mrclab.sim",
                         "mrclab.experiments"} | BASE,
    "mrclab": {"mrclab.lab", "mrclab.experiments", "mrclab.exercises", "mrclab.sim"} | BASE,
}


def part_of_module(module: str, parts: set[str]) -> str | None:
    """The part a dotted module name belongs to (None: outside the project)."""
    pieces = module.split(".")
    for n in range(len(pieces), 0, -1):
        name = ".".join(pieces[:n])
        if name in parts:
            return name
    return None


def parts_of(root: Path = ROOT) -> dict[str, list[Path]]:
    """Each part -> its files: a package's subpackage or top-level module is a part; a
    package's own __init__, __main__ and cli modules are the package itself."""
    parts: dict[str, list[Path]] = defaultdict(list)
    for pkg in PACKAGES:
        base = root / pkg
        if not (base / "__init__.py").is_file():
            continue
        for path in sorted(base.rglob("*.py")):
            rel = path.relative_to(base).parts
            if len(rel) > 1 and (base / rel[0] / "__init__.py").is_file() and pkg == "mrclab":
                parts[f"{pkg}.{rel[0]}"].append(path)
            elif pkg == "mrclab" and len(rel) == 1 and path.stem not in ("__init__", "__main__",
                                                                          "cli"):
                parts[f"{pkg}.{path.stem}"].append(path)
            else:
                parts[pkg].append(path)
    return dict(parts)


def import_edges(root: Path = ROOT) -> dict[tuple[str, str], list[str]]:
    """(importer, imported) part pairs -> where (file:line), for imports across parts."""
    parts = parts_of(root)
    names = set(parts)
    edges: dict[tuple[str, str], list[str]] = defaultdict(list)
    for part, files in sorted(parts.items()):
        for path in files:
            tree = ast.parse(path.read_text(), filename=str(path))
            for node in ast.walk(tree):
                if isinstance(node, ast.Import):
                    modules = [alias.name for alias in node.names]
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    modules = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
                else:
                    continue  # relative imports stay inside their part
                targets = {part_of_module(m, names) for m in modules}
                # `from mrclab import x` names the part x, not the command on top
                if isinstance(node, ast.ImportFrom) and len(targets - {None}) > 1:
                    targets.discard(part_of_module(node.module, names))
                for target in targets - {None, part}:
                    edges[(part, target)].append(f"{path.relative_to(root)}:{node.lineno}")
    return dict(edges)


def cycles(edges: dict[tuple[str, str], list[str]]) -> list[frozenset[str]]:
    """Strongly connected components of more than one part (Tarjan)."""
    graph: dict[str, set[str]] = defaultdict(set)
    for a, b in edges:
        graph[a].add(b)
        graph.setdefault(b, set())
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[frozenset[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in sorted(graph[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = set()
            while True:
                member = stack.pop()
                component.add(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(frozenset(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def describe(cycle: frozenset[str], edges: dict[tuple[str, str], list[str]]) -> str:
    parts = [f"{a} -> {b} ({', '.join(where[:3])}{', ...' if len(where) > 3 else ''})"
             for (a, b), where in sorted(edges.items()) if a in cycle and b in cycle]
    return " | ".join(parts)


def test_the_scan_sees_the_parts_and_finds_a_planted_cycle(tmp_path):
    assert {"mrclab.controller", "mrclab.endpoint", "mrclab.places", "mrclab", "p4emu"} <= set(
        parts_of())
    files = {"mrclab/__init__.py": "", "mrclab/cli.py": "from mrclab import a\n",
             "mrclab/a/__init__.py": "import mrclab.b.x\n",
             "mrclab/b/__init__.py": "def f():\n    from mrclab.c import y\n",
             "mrclab/c/__init__.py": "from mrclab.a.z import w\n",
             "mrclab/d.py": "import mrclab.a\nfrom . import q\n",
             "p4emu/__init__.py": "from mrclab.d import x\n"}
    for name, code in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(code)
    edges = import_edges(tmp_path)
    assert cycles(edges) == [frozenset({"mrclab.a", "mrclab.b", "mrclab.c"})]
    assert edges[("mrclab.b", "mrclab.c")] == ["mrclab/b/__init__.py:2"]
    assert edges[("mrclab", "mrclab.a")] == ["mrclab/cli.py:1"]
    assert ("mrclab.d", "mrclab.a") in edges and ("p4emu", "mrclab.d") in edges


def test_no_import_cycles_between_parts():
    edges = import_edges()
    found = cycles(edges)
    assert not found, "\n".join(describe(c, edges) for c in found)


def test_parts_import_only_the_layers_below_them():
    edges = import_edges()
    assert set(parts_of()) == set(ALLOWED), "a part without a place in ALLOWED"
    wrong = [f"{a} -> {b} ({', '.join(where[:3])})" for (a, b), where in sorted(edges.items())
             if b not in ALLOWED[a]]
    assert not wrong, "imports against the layering:\n" + "\n".join(wrong)
