"""Action and instance names in tables, part of the name-resolution pass
(`resolve_names.py`): each action a table lists, its default action and its entries'
actions (keyed by the `ActionRefSyntax`), and the instance its implementation, counters
or meters property names (keyed by the property's `Path`), bound to the declaration the
name denotes there.

A table is declared in a control's locals, and p4c resolves its names by position: they
see the control's constructor parameters, its parameters and the locals declared before
the table (not the table itself), then the top-level declarations before the control
(the namespace `resolve_type_names.py` keeps, with its rules). The checker's scope at the
table holds the same locals (`check_blocks.py` declares them in order), so the two
agree; a top-level action declared only after the control is no longer found there.

A name declared in the control is bound to its declaration (`LocalRef`): the checker
reads the binding the instance being checked gave it (`BlockFrame.bindings`), since each
instance of a control has actions and instances of its own.
"""

from __future__ import annotations

from dataclasses import dataclass

from p4emu.lang import ast as A

_INSTANCE_PROPERTIES = ("implementation", "counters", "meters")


@dataclass(frozen=True)
class LocalRef:
    """A name declared in the control: a constructor parameter, a parameter or a local."""

    decl: A.Decl


TableNameRef = LocalRef | A.Decl | None  # None: no declaration


def resolve_table_names(control: A.ControlDecl, top_level: dict[str, object]) -> dict[int, TableNameRef]:
    """id(ActionRefSyntax or property Path) -> what its name denotes, for the tables of
    `control`, whose top-level namespace is `top_level` (name -> declaration)."""
    refs: dict[int, TableNameRef] = {}
    local: dict[str, A.Decl] = {}
    for p in [*control.ctor_params, *control.params]:
        local.setdefault(p.name, p)
    for d in control.locals:
        if isinstance(d, A.TableDecl):
            for node, name, is_global in _table_names(d):
                refs[id(node)] = _bind(name, is_global, local, top_level)
            local[d.name] = d  # after its properties (it cannot name itself), over any other
        else:
            local.setdefault(d.name, d)  # a second one is the checker's duplicate error
    return refs


def _table_names(t: A.TableDecl):
    for prop in t.properties:
        v = prop.value
        if prop.name == "actions" and isinstance(v, list):
            yield from ((ar, ar.name, ar.is_global) for ar in v)
        elif prop.name == "default_action" and isinstance(v, A.ActionRefSyntax):
            yield v, v.name, v.is_global
        elif prop.name == "entries" and isinstance(v, list):
            yield from ((e.action, e.action.name, e.action.is_global) for e in v)
        elif prop.name in _INSTANCE_PROPERTIES and isinstance(v, A.Path):
            yield v, v.name, False  # the checker looks `.name` up in the control too


def _bind(name: str, is_global: bool, local: dict, top_level: dict) -> TableNameRef:
    if not is_global and name in local:
        return LocalRef(local[name])
    return top_level.get(name)
