"""No import cycles among p4emu's modules.

The graph is read from the source with `ast`: every `import`/`from ... import` counts,
also those inside functions (a late import hides a cycle from Python, not from the
design; so do those under `if TYPE_CHECKING:`). Importing `a.b.c` also runs the
`__init__` of `a.b` (and of `a`), so those packages count as dependencies unless the
importing module is inside them. There are no cycles left, so the known set is empty: a
cycle a change brings in fails the test, and so does one it removes from KNOWN_CYCLES.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[3] / "p4emu"
# cycles accepted for now (sorted module lists); none remain
KNOWN_CYCLES: list[list[str]] = []


def module_files(package: Path = PACKAGE) -> dict[str, Path]:
    files = {}
    for path in package.rglob("*.py"):
        parts = list(path.relative_to(package.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        files[".".join(parts)] = path
    return files


def imported_names(module: str, path: Path) -> set[str]:
    """Dotted names a module imports (`from X import y` gives X and X.y)."""
    is_package = path.name == "__init__.py"
    names = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".") if is_package else module.split(".")[:-1]
                base = base[: len(base) - node.level + 1]
                prefix = ".".join(base + ([node.module] if node.module else []))
            else:
                prefix = node.module or ""
            names.add(prefix)
            names.update(f"{prefix}.{alias.name}" for alias in node.names)
    return names


def import_graph(package: Path = PACKAGE) -> dict[str, set[str]]:
    files = module_files(package)
    graph: dict[str, set[str]] = {}
    for module, path in files.items():
        deps = set()
        for name in imported_names(module, path):
            while name and name not in files:  # `from pkg.mod import function`
                name = name.rpartition(".")[0]
            # the module and every enclosing package that `module` is not itself inside
            while name:
                if not (module == name or module.startswith(name + ".")):
                    deps.add(name)
                name = name.rpartition(".")[0]
        graph[module] = deps
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_graph_sees_the_package_structure():
    graph = import_graph()
    assert "p4emu.compiler.passes.check_blocks" in graph and "p4emu.lang.ast" in graph
    # `from p4emu.lang import ast as A` depends on the module and on its package
    assert {"p4emu.lang.ast", "p4emu.lang"} <= graph["p4emu.compiler.passes.check_blocks"]
    assert "p4emu.compiler" in graph["p4emu.frontend"]


def test_cycle_detection_finds_a_planted_cycle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == [["a", "b", "c"]]


def test_the_scan_finds_a_cycle_through_function_level_and_relative_imports(tmp_path):
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from pkg.sub.b import f\n")
    (pkg / "sub" / "b.py").write_text("def f():\n    from ..c import g\n")
    (pkg / "c.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import pkg.a\n")
    (pkg / "d.py").write_text("import pkg.a\n")
    graph = import_graph(pkg)
    assert graph["pkg.a"] == {"pkg.sub.b", "pkg.sub"}
    assert cycles(graph) == [["pkg.a", "pkg.c", "pkg.sub.b"]]


def test_no_import_cycles_in_p4emu():
    found = cycles(import_graph())
    assert found == KNOWN_CYCLES, "import cycles: " + "; ".join(" <-> ".join(c) for c in found)
