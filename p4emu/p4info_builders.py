"""P4Info and ProgramInfo of a compiled program, one builder method per object kind.

`P4InfoBuilder` reads what the compiler collected (its `objects`, controller headers,
digests and enums) with the ids p4emu.p4info assigned, and writes each kind the way p4c's
control-plane serializer does: actions, tables, action profiles, counters, meters,
registers, value sets, controller packet metadata, serializable enums and digests.
"""

from __future__ import annotations

from p4.config.v1 import p4info_pb2

from p4emu.lang import ast as A
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


class P4InfoBuilder:
    """Builds (ProgramInfo, P4Info) from a finished ProgramGen; `build()` runs every kind."""

    def __init__(self, gen, ids: dict[tuple[str, str], int], aliases: dict[str, str],
                 actions: dict[str, dict]) -> None:
        self.gen = gen
        self.objs = gen.objects
        self.ids = ids
        self.aliases = aliases
        self.actions = actions
        self.aid = {n: ids[("action", n)] for n in actions}
        self.table_names = {t["name"] for t in self.objs["tables"]}
        self.ctl_headers = gen.controller_headers()
        self.digests = gen.digests()
        self.digest_ids: dict[str, int] = {}
        self.direct_of: dict[str, str] = {}  # direct counter/meter -> its table
        self.info = m.ProgramInfo()
        self.p4 = p4info_pb2.P4Info()

    def build(self) -> tuple[m.ProgramInfo, p4info_pb2.P4Info]:
        fill_pkg_info(self.p4.pkg_info, self.gen.main_annotations, _anno_strs)
        for kind in (self._actions, self._tables, self._action_profiles, self._counters,
                     self._meters, self._registers, self._value_sets,
                     self._controller_headers, self._enums, self._digests):
            kind()
        return self.info, self.p4

    def _preamble(self, msg, kind, name, display=None, annos=None) -> None:
        msg.preamble.id = self.ids[(kind, name)]
        msg.preamble.name = display or name
        msg.preamble.alias = self.aliases.get(name, name) if display is None else display
        msg.preamble.annotations.extend(_anno_strs(annos, ANNOTATION_SKIP))
        set_doc(msg.preamble, annos)  # p4c: documentation, not annotations

    def _actions(self) -> None:
        """Actions the controls use, in id order; @hidden ones in ProgramInfo only."""
        for n in sorted(self.actions, key=lambda x: self.aid[x]):
            a = self.actions[n]
            pids = field_ids([pannos for _, _, pannos, _ in a["params"]])
            params = tuple(m.ParamInfo(pid, pn, w) for pid, (pn, w, *_) in zip(pids, a["params"], strict=True))
            self.info.actions[self.aid[n]] = m.ActionInfo(self.aid[n], n, params, _anno_strs(a["annotations"]))
            if is_hidden(a["annotations"]):
                continue  # p4c keeps @hidden objects in its symbol table but not in the P4Info
            pa = self.p4.actions.add()
            self._preamble(pa, "action", n, annos=a["annotations"])
            for p, (_, _, pannos, type_name) in zip(params, a["params"], strict=True):
                pp = pa.params.add()
                pp.id, pp.name, pp.bitwidth = p.id, p.name, p.bitwidth
                pp.annotations.extend(_anno_strs(pannos, ANNOTATION_SKIP))
                set_doc(pp, pannos)
                if type_name is not None:
                    pp.type_name.name = type_name
                    nt = self.p4.type_info.new_types[type_name]
                    nt.original_type.bitstring.bit.bitwidth = p.bitwidth

    def _tables(self) -> None:
        """Tables: keys in declaration order, action refs, defaults, resources."""
        for t in self.objs["tables"]:
            if t["direct_counter"]:
                self.direct_of[t["direct_counter"]] = t["name"]
            if t["direct_meter"]:
                self.direct_of[t["direct_meter"]] = t["name"]
        for t in self.objs["tables"]:
            tid = self.ids[("table", t["name"])]
            # ids over all key elements in declaration order (selector ones take an id too)
            kids = field_ids([k["annotations"] for k in t["keys"]])
            keys = [m.KeyField(kid, k["name"], m.MatchKind(k["match_kind"]), k["bitwidth"])
                    for kid, k in zip(kids, t["keys"], strict=True)]
            refs = []
            for r in t["actions"]:
                annos = [a.name for a in r["annotations"]]
                scope = ("DEFAULT_ONLY" if "defaultonly" in annos else
                         "TABLE_ONLY" if "tableonly" in annos else "TABLE_AND_DEFAULT")
                refs.append(m.ActionRef(self.aid[r["action"]], scope, _anno_strs(r["annotations"])))
            entries = tuple(m.ConstEntry(e["match"], self.aid[e["action"]], e["args"], e["priority"])
                            for e in t["entries"])
            impl = t["implementation"]
            ti = m.TableInfo(
                tid, t["name"], tuple(keys), tuple(refs), t["size"],
                self.aid.get(t["default"]) if t["default"] else None, tuple(t["default_args"]),
                t["const_default"], entries, t["is_const"], impl, t["direct_counter"],
                t["direct_meter"], t["idle_timeout"], _anno_strs(t["annotations"]))
            self.info.tables[tid] = ti
            if is_hidden(t["annotations"]):
                continue
            pt = self.p4.tables.add()
            self._preamble(pt, "table", t["name"], annos=t["annotations"])
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
                params = self.info.actions[ti.default_action_id].params
                for prm, value in zip(params, ti.default_action_args, strict=False):
                    arg = pt.initial_default_action.arguments.add()
                    arg.param_id = prm.id
                    arg.value = _canonical_bytes(value)
            if impl:
                pt.implementation_id = self.ids[("action_profile", impl)]
            if t["direct_counter"]:
                pt.direct_resource_ids.append(self.ids[("direct_counter", t["direct_counter"])])
            if t["direct_meter"]:
                pt.direct_resource_ids.append(self.ids[("direct_meter", t["direct_meter"])])
            pt.size = t["size"]
            if t["idle_timeout"]:
                pt.idle_timeout_behavior = p4info_pb2.Table.NOTIFY_CONTROL
            if t["is_const"]:
                pt.is_const_table = True
            if t["entries"]:
                pt.has_initial_entries = True

    def _action_profiles(self) -> None:
        """Action profiles and selectors with the tables that use them."""
        for p in self.objs["action_profiles"]:
            pid = self.ids[("action_profile", p["name"])]
            tables = tuple(self.ids[("table", tn)] for tn in self.gen.links.get(p["name"], []) if tn in self.table_names)
            mg = A.find_annotation(p["annotations"], "max_group_size")
            # p4c honours @max_group_size on selectors only
            mgs = mg.integer() if mg is not None and p["selector"] is not None else 0
            self.info.action_profiles[pid] = m.ActionProfileInfo(
                pid, p["name"], tables, p["size"], p["selector"] is not None, p["selector"], mgs or 0)
            pp = self.p4.action_profiles.add()
            self._preamble(pp, "action_profile", p["name"])
            pp.table_ids.extend(tables)
            pp.with_selector = p["selector"] is not None
            pp.size = p["size"]
            if mgs:
                pp.max_group_size = mgs
                pp.sum_of_weights.SetInParent()  # p4c's selector-size semantics with max_group_size

    def _counters(self) -> None:
        """Indirect and direct counters."""
        for c in self.objs["counters"]:
            kind = "direct_counter" if c["direct"] else "counter"
            cid = self.ids[(kind, c["name"])]
            unit = m.CounterUnit(c["unit"])
            dtid = self.ids[("table", self.direct_of[c["name"]])] if c["direct"] and c["name"] in self.direct_of else None
            self.info.counters[cid] = m.CounterInfo(cid, c["name"], c["size"], unit, dtid)
            pc = self.p4.direct_counters.add() if c["direct"] else self.p4.counters.add()
            self._preamble(pc, kind, c["name"])
            pc.spec.unit = {"bytes": 1, "packets": 2, "packets_and_bytes": 3}[c["unit"]]
            if c["direct"]:
                if dtid is not None:
                    pc.direct_table_id = dtid
            else:
                pc.size = c["size"]

    def _meters(self) -> None:
        """Indirect and direct meters."""
        for c in self.objs["meters"]:
            kind = "direct_meter" if c["direct"] else "meter"
            mid = self.ids[(kind, c["name"])]
            dtid = self.ids[("table", self.direct_of[c["name"]])] if c["direct"] and c["name"] in self.direct_of else None
            self.info.meters[mid] = m.MeterInfo(mid, c["name"], c["size"], m.MeterUnit(c["unit"]), dtid)
            pm = self.p4.direct_meters.add() if c["direct"] else self.p4.meters.add()
            self._preamble(pm, kind, c["name"])
            pm.spec.unit = {"bytes": 1, "packets": 2}[c["unit"]]
            if c["direct"]:
                if dtid is not None:
                    pm.direct_table_id = dtid
            else:
                pm.size = c["size"]

    def _registers(self) -> None:
        """Registers with their value type."""
        for r in self.objs["registers"]:
            rid = self.ids[("register", r["name"])]
            self.info.registers[rid] = m.RegisterInfo(rid, r["name"], r["size"], r["bitwidth"])
            pr = self.p4.registers.add()
            self._preamble(pr, "register", r["name"])
            set_bits_type(pr.type_spec, r["bitwidth"], r.get("signed", False), r.get("is_bool", False))
            pr.size = r["size"]

    def _value_sets(self) -> None:
        """Parser value sets: bit<W> (one unnamed exact field) or struct members."""
        for v in self.objs["value_sets"]:
            vid = self.ids[("value_set", v["name"])]
            pv = self.p4.value_sets.add()
            self._preamble(pv, "value_set", v["name"], annos=v["annotations"])
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
            self.info.value_sets[vid] = m.ValueSetInfo(vid, v["name"], v["size"], tuple(fields))
            pv.size = v["size"]

    def _controller_headers(self) -> None:
        """packet_in / packet_out metadata (@controller_header)."""
        for tname, cname, fields, hannos in self.ctl_headers:
            hid = self.ids[("controller_header", tname)]
            fids = field_ids([fannos for _, _, fannos in fields])
            hf = tuple(m.HeaderFieldInfo(fid, fn, w) for fid, (fn, w, _) in zip(fids, fields, strict=True))
            self.info.controller_headers[hid] = m.ControllerHeaderInfo(hid, cname, hf)
            if is_hidden(hannos):
                continue
            ph = self.p4.controller_packet_metadata.add()
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

    def _enums(self) -> None:
        """Serializable enums used at the P4Runtime boundary."""
        for ename, et in sorted(self.gen.p4rt_enums.items()):
            se = self.p4.type_info.serializable_enums[ename]
            se.underlying_type.bitwidth = et.underlying.width
            for member in et.members:
                mm = se.members.add()
                mm.name = member
                mm.value = _canonical_bytes(et.values[member] & et.underlying.mask)

    def _digests(self) -> None:
        """Digests with their type specs."""
        for name, fields, dkind in self.digests:
            did = self.ids[("digest", name)]
            self.digest_ids[name] = did
            hf = tuple(m.HeaderFieldInfo(i + 1, fn, w) for i, (fn, w, _) in enumerate(fields))
            self.info.digests[did] = m.DigestInfo(did, name, hf)
            pd = self.p4.digests.add()
            self._preamble(pd, "digest", name)
            _digest_type_spec(self.p4, pd.type_spec, name, fields, dkind, self.gen.errors)


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
