"""P4Info ids (p4c's scheme) and aliases; P4InfoBuilder writes the P4Info and ProgramInfo.

id = prefix << 24 | (jenkins_one_at_a_time(name) & 0xFFFFFF); @id values are reserved
first; the others are assigned in strcmp order of their names, a collision moving to the
next free value.
"""

from __future__ import annotations

from p4.config.v1 import p4info_pb2

from p4emu.lang import ast as A
from p4emu.lang.errors import P4CompileError
from p4emu.p4info_builders import P4InfoBuilder
from p4emu.runtime import model as m

PREFIX = {
    "action": 0x01, "table": 0x02, "value_set": 0x03, "controller_header": 0x04,
    "action_profile": 0x11, "counter": 0x12, "direct_counter": 0x13, "meter": 0x14,
    "direct_meter": 0x15, "register": 0x16, "digest": 0x17,
}


def jenkins_one_at_a_time(data: str) -> int:
    h = 0
    for b in data.encode():
        h = (h + b) & 0xFFFFFFFF
        h = (h + (h << 10)) & 0xFFFFFFFF
        h ^= h >> 6
    h = (h + (h << 3)) & 0xFFFFFFFF
    h ^= h >> 11
    h = (h + (h << 15)) & 0xFFFFFFFF
    return h


def assign_ids(objs: list[tuple[str, str, int | None]]) -> dict[tuple[str, str], int]:
    """objs: (kind, name, @id or None) -> {(kind, name): id}."""
    used: set[int] = set()
    ids: dict[tuple[str, str], int] = {}
    for kind, name, explicit in objs:
        if explicit is None:
            continue
        prefix = PREFIX[kind]
        v = explicit if explicit >> 24 else (prefix << 24) | explicit
        if v >> 24 != prefix:
            raise P4CompileError(None, f"@id {explicit:#x} of {name} has the wrong prefix for a {kind}")
        if v in used:
            raise P4CompileError(None, f"@id {explicit:#x} of {name} is already used")
        used.add(v)
        ids[(kind, name)] = v
    rest = sorted({(k, n) for k, n, e in objs if e is None and (k, n) not in ids},
                  key=lambda kn: kn[1].encode())
    for kind, name in rest:
        prefix = PREFIX[kind]
        v = (prefix << 24) | (jenkins_one_at_a_time(name) & 0xFFFFFF)
        while v in used:
            v = (prefix << 24) | ((v + 1) & 0xFFFFFF)
        used.add(v)
        ids[(kind, name)] = v
    return ids


def _explicit_id(annos) -> int | None:
    a = A.find_annotation(annos or [], "id")
    return a.integer() if a is not None else None


def alias_map(names: list[str]) -> dict[str, str]:
    """Shortest unique dotted suffix of each name."""
    out = {}
    split = {n: n.split(".") for n in names}
    for n, parts in split.items():
        for k in range(1, len(parts) + 1):
            suffix = ".".join(parts[-k:])
            if sum(1 for o in split.values() if ".".join(o[-k:]) == suffix) == 1:
                out[n] = suffix
                break
        else:
            out[n] = n
    return out


def build(gen) -> tuple[m.ProgramInfo, p4info_pb2.P4Info, dict[str, int], dict[str, int]]:
    """From a finished ProgramGen: (ProgramInfo, P4Info, action ids by name, digest ids)."""
    objs = gen.objects
    used_actions = {r["action"] for t in objs["tables"] for r in t["actions"]}
    # p4c's P4Info lists every action the controls use: referenced by a table or called
    # directly (P4Info is generated before actions are inlined)
    actions = {n: a for n, a in objs["actions"].items()
               if n in used_actions or (n in gen.actions_by_name and gen.actions_by_name[n].py)}
    req: list[tuple[str, str, int | None]] = []
    for n, a in actions.items():
        req.append(("action", n, _explicit_id(a["annotations"])))
    for t in objs["tables"]:
        req.append(("table", t["name"], _explicit_id(t["annotations"])))
    for c in objs["counters"]:
        req.append(("direct_counter" if c["direct"] else "counter", c["name"],
                    _explicit_id(c["annotations"])))
    for c in objs["meters"]:
        req.append(("direct_meter" if c["direct"] else "meter", c["name"],
                    _explicit_id(c["annotations"])))
    for r in objs["registers"]:
        req.append(("register", r["name"], _explicit_id(r["annotations"])))
    for p in objs["action_profiles"]:
        req.append(("action_profile", p["name"], _explicit_id(p["annotations"])))
    for v in objs["value_sets"]:
        req.append(("value_set", v["name"], _explicit_id(v["annotations"])))
    for tname, _, _, annos in gen.controller_headers():
        req.append(("controller_header", tname, _explicit_id(annos)))
    for name, _, _ in gen.digests():
        req.append(("digest", name, None))
    ids = assign_ids(req)
    # one suffix set over the names of all kinds, as p4c's P4RuntimeSymbolTable
    aliases = alias_map(sorted({n for _, n, _ in req}))
    builder = P4InfoBuilder(gen, ids, aliases, actions)
    info, p4 = builder.build()
    return info, p4, builder.aid, builder.digest_ids
