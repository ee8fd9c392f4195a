"""No import cycles among p4emu's parts: its subpackages (native, switch, runtime, compiler,
v1model, stf, ...) and its top-level modules (p4info, bench, ...), each taken whole.

`test_p4emu_imports` keeps modules free of cycles; this keeps the parts layered, which a
graph without module cycles still allows to break (switch.instance -> native.tm ->
switch.traffic_manager was no module cycle, but native and switch imported each other).
Imports are read from the source with `ast` as there: function-level imports and those
under `if TYPE_CHECKING:` count too.
"""

from __future__ import annotations

from pathlib import Path

from .test_p4emu_imports import PACKAGE, cycles, import_graph


def part_of(module: str) -> str | None:
    """The part of p4emu `module` belongs to (`p4emu.native.tm_build` -> `p4emu.native`);
    None for the package's own `__init__`."""
    parts = module.split(".")
    return ".".join(parts[:2]) if len(parts) > 1 else None


def part_graph(package: Path = PACKAGE) -> tuple[dict[str, set[str]], dict[tuple[str, str], set[str]]]:
    """(part -> the parts it imports, (part, imported part) -> the modules importing it)."""
    graph: dict[str, set[str]] = {}
    importers: dict[tuple[str, str], set[str]] = {}
    for module, deps in import_graph(package).items():
        source = part_of(module)
        if source is None:
            continue
        graph.setdefault(source, set())
        for dep in deps:
            target = part_of(dep)
            if target is None or target == source:
                continue
            graph[source].add(target)
            graph.setdefault(target, set())
            importers.setdefault((source, target), set()).add(module)
    return graph, importers


def test_parts_are_the_subpackages_and_top_level_modules():
    graph, importers = part_graph()
    assert {"p4emu.native", "p4emu.switch", "p4emu.compiler", "p4emu.runtime",
            "p4emu.v1model", "p4emu.stf", "p4emu.p4info"} <= set(graph)
    assert "p4emu.native" in graph["p4emu.switch"]  # the switch chooses the compiled parts
    assert "p4emu.switch.native_traffic_manager" in importers[("p4emu.switch", "p4emu.native")]


def test_a_cycle_between_parts_is_found_even_without_a_module_cycle(tmp_path):
    """The shape p4emu had: a.x -> b.y -> a.z, no module imported back."""
    pkg = tmp_path / "pkg"
    for sub in ("a", "b"):
        (pkg / sub).mkdir(parents=True)
        (pkg / sub / "__init__.py").write_text("")
    (pkg / "__init__.py").write_text("")
    (pkg / "a" / "x.py").write_text("from pkg.b.y import f\n")
    (pkg / "b" / "y.py").write_text("def f():\n    from pkg.a.z import g\n")
    (pkg / "a" / "z.py").write_text("def g():\n    pass\n")
    assert cycles(import_graph(pkg)) == []
    graph, importers = part_graph(pkg)
    assert cycles(graph) == [["pkg.a", "pkg.b"]]
    assert importers[("pkg.b", "pkg.a")] == {"pkg.b.y"}


def test_no_import_cycles_between_p4emu_parts():
    graph, importers = part_graph()
    found = cycles(graph)
    detail = []
    for component in found:
        for source in component:
            for target in sorted(graph[source] & set(component)):
                modules = ", ".join(sorted(importers[(source, target)]))
                detail.append(f"{source} -> {target} ({modules})")
    assert found == [], "parts of p4emu import each other: " + "; ".join(detail)
