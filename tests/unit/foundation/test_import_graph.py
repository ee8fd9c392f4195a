"""No import cycles between the project's top-level packages (read with ast, not imported).

Every import counts, including ones inside functions and under TYPE_CHECKING: a lazy import
still ties the two packages together, it only hides the cycle from the interpreter.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
# What each package may import, following the data flow: the fabric model at the bottom,
# the controller and the Mininet topologies on it, the lab runner on those, experiments and
# coursework driving labs (and reading the controller's pure route computation), and the
# `mrclab` command on top. p4emu and endpoint stand alone; the simulator runs p4emu, the
# controller's logic and the endpoint on one clock, and never touches Mininet or the lab;
# experiments run on either engine (`--engine lab|sim`); coursework checks students' code on
# the simulator and reads experiments' results (the open exercise).
# every command line's one-line argument parser and the records' JSON, below everything
BASE = {"cmdline", "jsonrecords"}
ALLOWED = {
    "cmdline": set(),
    "jsonrecords": set(),
    "fabric_model": BASE,
    "p4emu": BASE,
    "endpoint": BASE,
    "controller": {"fabric_model"} | BASE,
    "topologies": {"fabric_model"} | BASE,
    "lab": {"fabric_model", "topologies", "endpoint"} | BASE,
    "experiments": {"fabric_model", "topologies", "lab", "endpoint", "p4emu", "controller",
                    "simulator"} | BASE,
    "coursework": {"fabric_model", "topologies", "lab", "endpoint", "p4emu", "controller",
                   "simulator", "experiments"} | BASE,
    "simulator": {"fabric_model", "p4emu", "endpoint", "controller"} | BASE,
    "mrclab": {"lab", "experiments", "coursework", "simulator"} | BASE,
}


def top_level_packages(root: Path = ROOT) -> list[str]:
    return sorted(d.name for d in root.iterdir()
                  if (d / "__init__.py").is_file() and not d.name.startswith("."))


def import_edges(root: Path = ROOT) -> dict[tuple[str, str], list[str]]:
    """(importer, imported) package pairs -> where (file:line), for imports across packages."""
    packages = set(top_level_packages(root))
    edges: dict[tuple[str, str], list[str]] = defaultdict(list)
    for pkg in sorted(packages):
        for path in sorted((root / pkg).rglob("*.py")):
            tree = ast.parse(path.read_text(), filename=str(path))
            for node in ast.walk(tree):
                if isinstance(node, ast.Import):
                    names = [alias.name for alias in node.names]
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    names = [node.module]
                else:
                    continue  # relative imports stay inside their package
                for name in names:
                    target = name.split(".")[0]
                    if target in packages and target != pkg:
                        where = f"{path.relative_to(root)}:{node.lineno}"
                        edges[(pkg, target)].append(where)
    return dict(edges)


def cycles(edges: dict[tuple[str, str], list[str]]) -> list[frozenset[str]]:
    """Strongly connected components of more than one package (Tarjan)."""
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


def test_the_scan_sees_the_packages_and_finds_a_planted_cycle(tmp_path):
    assert {"controller", "endpoint", "p4emu", "topologies"} <= set(top_level_packages())
    for name, code in (("a", "import b.x\n"), ("b", "def f():\n    from c import y\n"),
                       ("c", "from a.z import w\n"), ("d", "import a\nfrom . import q\n")):
        (tmp_path / name).mkdir()
        (tmp_path / name / "__init__.py").write_text(code)
    edges = import_edges(tmp_path)
    assert cycles(edges) == [frozenset({"a", "b", "c"})]
    assert edges[("b", "c")] == ["b/__init__.py:2"]


def test_no_import_cycles_between_top_level_packages():
    edges = import_edges()
    found = cycles(edges)
    assert not found, "\n".join(describe(c, edges) for c in found)


def test_packages_import_only_the_layers_below_them():
    edges = import_edges()
    packages = set(top_level_packages()) - {"tests"}
    assert packages == set(ALLOWED), "a package without a place in ALLOWED"
    wrong = [f"{a} -> {b} ({', '.join(where[:3])})" for (a, b), where in sorted(edges.items())
             if a != "tests" and b not in ALLOWED[a]]
    assert not wrong, "imports against the layering:\n" + "\n".join(wrong)
