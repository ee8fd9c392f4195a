"""P4Info ids (p4c's scheme) and aliases; P4InfoBuilder writes the P4Info and ProgramInfo.

id = prefix << 24 | (jenkins_one_at_a_time(name) & 0xFFFFFF); @id values are reserved
first; the others are assigned in strcmp order of their names, a collision moving to the
next free value.
"""

from __future__ import annotations

from p4.config.v1 import p4info_pb2

from p4emu.ir import ControlPlane
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


def build(cp: ControlPlane) -> tuple[m.ProgramInfo, p4info_pb2.P4Info, dict[str, int], dict[str, int]]:
    """From a program's control-plane IR: (ProgramInfo, P4Info, action ids by name, digest ids)."""
    req: list[tuple[str, str, int | None]] = []
    req += [("action", a.name, a.explicit_id) for a in cp.actions]
    req += [("table", t.name, t.explicit_id) for t in cp.tables]
    req += [("direct_counter" if c.direct else "counter", c.name, c.explicit_id) for c in cp.counters]
    req += [("direct_meter" if c.direct else "meter", c.name, c.explicit_id) for c in cp.meters]
    req += [("register", r.name, r.explicit_id) for r in cp.registers]
    req += [("action_profile", p.name, p.explicit_id) for p in cp.action_profiles]
    req += [("value_set", v.name, v.explicit_id) for v in cp.value_sets]
    req += [("controller_header", h.type_name, h.explicit_id) for h in cp.controller_headers]
    req += [("digest", d.name, None) for d in cp.digests]
    ids = assign_ids(req)
    # one suffix set over the names of all kinds, as p4c's P4RuntimeSymbolTable
    aliases = alias_map(sorted({n for _, n, _ in req}))
    builder = P4InfoBuilder(cp, ids, aliases)
    info, p4 = builder.build()
    return info, p4, builder.aid, builder.digest_ids
