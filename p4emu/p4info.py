"""P4Info ids (p4c's scheme) and the P4Info message / ProgramInfo of a compiled program.

id = prefix << 24 | (jenkins_one_at_a_time(name) & 0xFFFFFF); @id values are reserved
first; the others are assigned in strcmp order of their names, a collision moving to the
next free value.
"""

from __future__ import annotations

from p4.config.v1 import p4info_pb2

from p4emu.lang import ast as A
from p4emu.lang.errors import P4CompileError
from p4emu.p4info_fields import (
    ANNOTATION_SKIP,
    MATCH_TYPES,
    field_ids,
    fill_pkg_info,
    is_hidden,
    match_type,
    set_bits_type,
    set_doc,
)
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
    table_names = {t["name"] for t in objs["tables"]}
    used_actions = set()
    for t in objs["tables"]:
        for r in t["actions"]:
            used_actions.add(r["action"])
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
        req.append(("direct_counter" if c["direct"] else "counter", c["name"], _explicit_id(c["annotations"])))
    for c in objs["meters"]:
        req.append(("direct_meter" if c["direct"] else "meter", c["name"], _explicit_id(c["annotations"])))
    for r in objs["registers"]:
        req.append(("register", r["name"], _explicit_id(r["annotations"])))
    for p in objs["action_profiles"]:
        req.append(("action_profile", p["name"], _explicit_id(p["annotations"])))
    for v in objs["value_sets"]:
        req.append(("value_set", v["name"], _explicit_id(v["annotations"])))
    ctl_headers = gen.controller_headers()
    for tname, _, _, annos in ctl_headers:
        req.append(("controller_header", tname, _explicit_id(annos)))
    digests = gen.digests()
    for name, _, _ in digests:
        req.append(("digest", name, None))
    ids = assign_ids(req)
    # one suffix set over the names of all kinds, as p4c's P4RuntimeSymbolTable
    aliases = alias_map(sorted({n for _, n, _ in req}))
    info = m.ProgramInfo()
    p4 = p4info_pb2.P4Info()
    fill_pkg_info(p4.pkg_info, gen.main_annotations, _anno_strs)

    def pre(msg, kind, name, display=None, annos=None):
        msg.preamble.id = ids[(kind, name)]
        msg.preamble.name = display or name
        msg.preamble.alias = aliases.get(name, name) if display is None else display
        msg.preamble.annotations.extend(_anno_strs(annos, ANNOTATION_SKIP))
        set_doc(msg.preamble, annos)  # p4c: documentation, not annotations

    aid = {n: ids[("action", n)] for n in actions}
    for n in sorted(actions, key=lambda x: aid[x]):
        a = actions[n]
        pids = field_ids([pannos for _, _, pannos, _ in a["params"]])
        params = tuple(m.ParamInfo(pid, pn, w) for pid, (pn, w, *_) in zip(pids, a["params"], strict=True))
        info.actions[aid[n]] = m.ActionInfo(aid[n], n, params, _anno_strs(a["annotations"]))
        if is_hidden(a["annotations"]):
            continue  # p4c keeps @hidden objects in its symbol table but not in the P4Info
        pa = p4.actions.add()
        pre(pa, "action", n, annos=a["annotations"])
        for p, (_, _, pannos, type_name) in zip(params, a["params"], strict=True):
            pp = pa.params.add()
            pp.id, pp.name, pp.bitwidth = p.id, p.name, p.bitwidth
            pp.annotations.extend(_anno_strs(pannos, ANNOTATION_SKIP))
            set_doc(pp, pannos)
            if type_name is not None:
                pp.type_name.name = type_name
                nt = p4.type_info.new_types[type_name]
                nt.original_type.bitstring.bit.bitwidth = p.bitwidth
    direct_of: dict[str, str] = {}
    for t in objs["tables"]:
        if t["direct_counter"]:
            direct_of[t["direct_counter"]] = t["name"]
        if t["direct_meter"]:
            direct_of[t["direct_meter"]] = t["name"]
    for t in objs["tables"]:
        tid = ids[("table", t["name"])]
        # ids over all key elements in declaration order (selector ones take an id too)
        kids = field_ids([k["annotations"] for k in t["keys"]])
        keys = [m.KeyField(kid, k["name"], m.MatchKind(k["match_kind"]), k["bitwidth"])
                for kid, k in zip(kids, t["keys"], strict=True)]
        refs = []
        for r in t["actions"]:
            annos = [a.name for a in r["annotations"]]
            scope = ("DEFAULT_ONLY" if "defaultonly" in annos else
                     "TABLE_ONLY" if "tableonly" in annos else "TABLE_AND_DEFAULT")
            refs.append(m.ActionRef(aid[r["action"]], scope, _anno_strs(r["annotations"])))
        entries = tuple(m.ConstEntry(e["match"], aid[e["action"]], e["args"], e["priority"])
                        for e in t["entries"])
        impl = t["implementation"]
        ti = m.TableInfo(
            tid, t["name"], tuple(keys), tuple(refs), t["size"],
            aid.get(t["default"]) if t["default"] else None, tuple(t["default_args"]),
            t["const_default"], entries, t["is_const"], impl, t["direct_counter"],
            t["direct_meter"], t["idle_timeout"], _anno_strs(t["annotations"]))
        info.tables[tid] = ti
        if is_hidden(t["annotations"]):
            continue
        pt = p4.tables.add()
        pre(pt, "table", t["name"], annos=t["annotations"])
        for k, kd in zip(keys, t["keys"], strict=True):  # declaration order, as p4c
            if k.match_kind == m.MatchKind.SELECTOR:
                continue
            mf = pt.match_fields.add()
            mf.id, mf.name, mf.bitwidth = k.id, k.name, k.bitwidth
            mf.annotations.extend(_anno_strs(kd["annotations"], ANNOTATION_SKIP))
            set_doc(mf, kd["annotations"])
            mf.match_type = MATCH_TYPES[k.match_kind.value]
        for r in refs:
            ar = pt.action_refs.add()
            ar.id = r.id
            ar.scope = {"TABLE_AND_DEFAULT": 0, "TABLE_ONLY": 1, "DEFAULT_ONLY": 2}[r.scope]
            ar.annotations.extend(r.annotations)
        if t["const_default"] and ti.default_action_id is not None:
            pt.const_default_action_id = ti.default_action_id
        if ti.default_action_id is not None:
            pt.initial_default_action.action_id = ti.default_action_id
            params = info.actions[ti.default_action_id].params
            for prm, value in zip(params, ti.default_action_args, strict=False):
                arg = pt.initial_default_action.arguments.add()
                arg.param_id = prm.id
                arg.value = _canonical_bytes(value)
        if impl:
            pt.implementation_id = ids[("action_profile", impl)]
        if t["direct_counter"]:
            pt.direct_resource_ids.append(ids[("direct_counter", t["direct_counter"])])
        if t["direct_meter"]:
            pt.direct_resource_ids.append(ids[("direct_meter", t["direct_meter"])])
        pt.size = t["size"]
        if t["idle_timeout"]:
            pt.idle_timeout_behavior = p4info_pb2.Table.NOTIFY_CONTROL
        if t["is_const"]:
            pt.is_const_table = True
        if t["entries"]:
            pt.has_initial_entries = True
    for p in objs["action_profiles"]:
        pid = ids[("action_profile", p["name"])]
        tables = tuple(ids[("table", tn)] for tn in gen.links.get(p["name"], []) if tn in table_names)
        mg = A.find_annotation(p["annotations"], "max_group_size")
        # p4c honours @max_group_size on selectors only
        mgs = mg.integer() if mg is not None and p["selector"] is not None else 0
        info.action_profiles[pid] = m.ActionProfileInfo(
            pid, p["name"], tables, p["size"], p["selector"] is not None, p["selector"], mgs or 0)
        pp = p4.action_profiles.add()
        pre(pp, "action_profile", p["name"])
        pp.table_ids.extend(tables)
        pp.with_selector = p["selector"] is not None
        pp.size = p["size"]
        if mgs:
            pp.max_group_size = mgs
            pp.sum_of_weights.SetInParent()  # p4c's selector-size semantics with max_group_size
    for c in objs["counters"]:
        kind = "direct_counter" if c["direct"] else "counter"
        cid = ids[(kind, c["name"])]
        unit = m.CounterUnit(c["unit"])
        dtid = ids[("table", direct_of[c["name"]])] if c["direct"] and c["name"] in direct_of else None
        info.counters[cid] = m.CounterInfo(cid, c["name"], c["size"], unit, dtid)
        pc = p4.direct_counters.add() if c["direct"] else p4.counters.add()
        pre(pc, kind, c["name"])
        pc.spec.unit = {"bytes": 1, "packets": 2, "packets_and_bytes": 3}[c["unit"]]
        if c["direct"]:
            if dtid is not None:
                pc.direct_table_id = dtid
        else:
            pc.size = c["size"]
    for c in objs["meters"]:
        kind = "direct_meter" if c["direct"] else "meter"
        mid = ids[(kind, c["name"])]
        dtid = ids[("table", direct_of[c["name"]])] if c["direct"] and c["name"] in direct_of else None
        info.meters[mid] = m.MeterInfo(mid, c["name"], c["size"], m.MeterUnit(c["unit"]), dtid)
        pm = p4.direct_meters.add() if c["direct"] else p4.meters.add()
        pre(pm, kind, c["name"])
        pm.spec.unit = {"bytes": 1, "packets": 2}[c["unit"]]
        if c["direct"]:
            if dtid is not None:
                pm.direct_table_id = dtid
        else:
            pm.size = c["size"]
    for r in objs["registers"]:
        rid = ids[("register", r["name"])]
        info.registers[rid] = m.RegisterInfo(rid, r["name"], r["size"], r["bitwidth"])
        pr = p4.registers.add()
        pre(pr, "register", r["name"])
        set_bits_type(pr.type_spec, r["bitwidth"], r.get("signed", False), r.get("is_bool", False))
        pr.size = r["size"]
    for v in objs["value_sets"]:
        vid = ids[("value_set", v["name"])]
        pv = p4.value_sets.add()
        pre(pv, "value_set", v["name"], annos=v["annotations"])
        if v["struct"]:  # struct members: ids allocated as for keys, @match gives the kind
            vids = field_ids([fannos for _, _, fannos in v["fields"]])
        else:  # bit<W>: one exact field with no name (P4Runtime spec)
            vids = list(range(1, len(v["fields"]) + 1))
        fields = []
        for fid, (fn, w, fannos) in zip(vids, v["fields"], strict=True):
            mt, other = match_type(fannos) if v["struct"] else (MATCH_TYPES["exact"], "")
            mf = pv.match.add()
            mf.id, mf.bitwidth = fid, w
            if fn:
                mf.name = fn
            if other:
                mf.other_match_type = other
            else:
                mf.match_type = mt
            if v["struct"]:
                mf.annotations.extend(_anno_strs(fannos, ANNOTATION_SKIP | {"match"}))
                set_doc(mf, fannos)
            kind = next((k for k, n in MATCH_TYPES.items() if n == mt and not other), "exact")
            fields.append(m.KeyField(fid, fn or v["name"], m.MatchKind(kind), w))
        info.value_sets[vid] = m.ValueSetInfo(vid, v["name"], v["size"], tuple(fields))
        pv.size = v["size"]
    for tname, cname, fields, hannos in ctl_headers:
        hid = ids[("controller_header", tname)]
        fids = field_ids([fannos for _, _, fannos in fields])
        hf = tuple(m.HeaderFieldInfo(fid, fn, w) for fid, (fn, w, _) in zip(fids, fields, strict=True))
        info.controller_headers[hid] = m.ControllerHeaderInfo(hid, cname, hf)
        if is_hidden(hannos):
            continue
        ph = p4.controller_packet_metadata.add()
        ph.preamble.id = hid
        ph.preamble.name = cname
        ph.preamble.alias = cname
        ph.preamble.annotations.append(f'@controller_header("{cname}")')
        for f, (_, _, fannos) in zip(hf, fields, strict=True):
            if is_hidden(fannos):
                continue  # keeps its id (the allocator counted it) but is not listed
            md = ph.metadata.add()
            md.id, md.name, md.bitwidth = f.id, f.name, f.bitwidth
            md.annotations.extend(_anno_strs(fannos, ANNOTATION_SKIP))
    for ename, et in sorted(gen.p4rt_enums.items()):
        se = p4.type_info.serializable_enums[ename]
        se.underlying_type.bitwidth = et.underlying.width
        for member in et.members:
            mm = se.members.add()
            mm.name = member
            mm.value = _canonical_bytes(et.values[member] & et.underlying.mask)
    digest_ids = {}
    for name, fields, dkind in digests:
        did = ids[("digest", name)]
        digest_ids[name] = did
        hf = tuple(m.HeaderFieldInfo(i + 1, fn, w) for i, (fn, w, _) in enumerate(fields))
        info.digests[did] = m.DigestInfo(did, name, hf)
        pd = p4.digests.add()
        pre(pd, "digest", name)
        _digest_type_spec(p4, pd.type_spec, name, fields, dkind, gen.errors)
    return info, p4, aid, digest_ids


def _member_type_spec(p4, spec, w: int, kind: str, errors) -> None:
    """One digested field: bits, or error / a plain enum described in type_info."""
    if kind == "error":
        spec.error.SetInParent()
        if not p4.type_info.error.members:
            p4.type_info.error.members.extend(sorted(errors, key=errors.get))
    elif kind.startswith("enum:"):
        spec.enum.name = kind[5:]
    else:
        set_bits_type(spec, w, kind == "int", kind == "bool")


def _digest_type_spec(p4, spec, name: str, fields, dkind: str, errors) -> None:
    """The P4DataTypeSpec of a digest: a named struct or header (described in type_info)
    or an anonymous tuple (described inline), as p4c's TypeSpecConverter writes them."""
    if dkind == "tuple":
        for _, w, kind in fields:
            _member_type_spec(p4, spec.tuple.members.add(), w, kind, errors)
        return
    if dkind == "header":
        spec.header.name = name
        hdr = p4.type_info.headers[name]
        for fn, w, kind in fields:
            mem = hdr.members.add()
            mem.name = fn
            if kind == "int":
                mem.type_spec.int.bitwidth = w
            else:
                mem.type_spec.bit.bitwidth = w
        return
    spec.struct.name = name
    st = p4.type_info.structs[name]
    for fn, w, kind in fields:
        mem = st.members.add()
        mem.name = fn
        _member_type_spec(p4, mem.type_spec, w, kind, errors)


def _canonical_bytes(value: int) -> bytes:
    """P4Runtime canonical byte string (no leading zero bytes; 0 is one zero byte)."""
    return value.to_bytes(max(1, (value.bit_length() + 7) // 8), "big")


def _anno_strs(annos, skip=frozenset()) -> tuple[str, ...]:
    out = []
    for a in annos or []:
        if a.name in skip:
            continue
        body = "".join(t.text if i == 0 or t.loc.col == a.body[i - 1].end_col else " " + t.text
                       for i, t in enumerate(a.body))
        out.append(f"@{a.name}({body})" if a.body else f"@{a.name}")
    return tuple(out)
