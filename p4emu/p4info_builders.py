"""P4Info and ProgramInfo of a compiled program, one builder method per object kind.

`P4InfoBuilder` reads the program's control-plane IR (`p4emu.ir.ControlPlane`) with the
ids p4emu.p4info assigned, and writes each kind the way p4c's control-plane serializer
does: actions, tables, action profiles, counters, meters, registers, value sets,
controller packet metadata, serializable enums and digests.
"""

from __future__ import annotations

from p4.config.v1 import p4info_pb2

from p4emu.ir import ControlPlane, Digest, DigestField
from p4emu.ir.annotations import annotation_texts as _anno_strs
from p4emu.ir.annotations import has_annotation
from p4emu.p4info_fields import (
    ANNOTATION_SKIP,
    MATCH_TYPES,
    field_ids,
    fill_pkg_info,
    match_type,
    set_bits_type,
    set_doc,
)
from p4emu.runtime import model as m

_SCOPES = {"TABLE_AND_DEFAULT": 0, "TABLE_ONLY": 1, "DEFAULT_ONLY": 2}


class P4InfoBuilder:
    """Builds (ProgramInfo, P4Info) from a ControlPlane; `build()` runs every kind."""

    def __init__(self, cp: ControlPlane, ids: dict[tuple[str, str], int],
                 aliases: dict[str, str]) -> None:
        self.cp = cp
        self.ids = ids
        self.aliases = aliases
        self.aid = {a.name: ids[("action", a.name)] for a in cp.actions}
        self.digest_ids: dict[str, int] = {}
        self.info = m.ProgramInfo()
        self.p4 = p4info_pb2.P4Info()

    def build(self) -> tuple[m.ProgramInfo, p4info_pb2.P4Info]:
        fill_pkg_info(self.p4.pkg_info, self.cp.package_annotations)
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
        for a in sorted(self.cp.actions, key=lambda x: self.aid[x.name]):
            aid = self.aid[a.name]
            pids = field_ids([p.annotations for p in a.params])
            params = tuple(m.ParamInfo(pid, p.name, p.bitwidth) for pid, p in zip(pids, a.params, strict=True))
            self.info.actions[aid] = m.ActionInfo(aid, a.name, params, _anno_strs(a.annotations))
            if a.hidden:
                continue  # p4c keeps @hidden objects in its symbol table but not in the P4Info
            pa = self.p4.actions.add()
            self._preamble(pa, "action", a.name, annos=a.annotations)
            for p, ap in zip(params, a.params, strict=True):
                pp = pa.params.add()
                pp.id, pp.name, pp.bitwidth = p.id, p.name, p.bitwidth
                pp.annotations.extend(_anno_strs(ap.annotations, ANNOTATION_SKIP))
                set_doc(pp, ap.annotations)
                if ap.type_name is not None:
                    pp.type_name.name = ap.type_name
                    nt = self.p4.type_info.new_types[ap.type_name]
                    nt.original_type.bitstring.bit.bitwidth = p.bitwidth

    def _tables(self) -> None:
        """Tables: keys in declaration order, action refs, defaults, resources."""
        for t in self.cp.tables:
            tid = self.ids[("table", t.name)]
            # ids over all key elements in declaration order (selector ones take an id too)
            kids = field_ids([k.annotations for k in t.keys])
            keys = [m.KeyField(kid, k.name, m.MatchKind(k.match_kind), k.bitwidth)
                    for kid, k in zip(kids, t.keys, strict=True)]
            refs = [m.ActionRef(self.aid[r.action], r.scope, _anno_strs(r.annotations))
                    for r in t.actions]
            entries = tuple(m.ConstEntry(e.match, self.aid[e.action], e.args, e.priority)
                            for e in t.entries)
            ti = m.TableInfo(
                tid, t.name, tuple(keys), tuple(refs), t.size,
                self.aid.get(t.default_action) if t.default_action else None, t.default_args,
                t.const_default, entries, t.is_const, t.implementation, t.direct_counter,
                t.direct_meter, t.idle_timeout, _anno_strs(t.annotations))
            self.info.tables[tid] = ti
            if t.hidden:
                continue
            pt = self.p4.tables.add()
            self._preamble(pt, "table", t.name, annos=t.annotations)
            for k, kd in zip(keys, t.keys, strict=True):  # declaration order, as p4c
                if k.match_kind == m.MatchKind.SELECTOR:
                    continue
                mf = pt.match_fields.add()
                mf.id, mf.name, mf.bitwidth = k.id, k.name, k.bitwidth
                mf.annotations.extend(_anno_strs(kd.annotations, ANNOTATION_SKIP))
                set_doc(mf, kd.annotations)
                mf.match_type = MATCH_TYPES[k.match_kind.value]
            for r in refs:
                ar = pt.action_refs.add()
                ar.id = r.id
                ar.scope = _SCOPES[r.scope]
                ar.annotations.extend(r.annotations)
            if t.const_default and ti.default_action_id is not None:
                pt.const_default_action_id = ti.default_action_id
            if ti.default_action_id is not None:
                pt.initial_default_action.action_id = ti.default_action_id
                params = self.info.actions[ti.default_action_id].params
                for prm, value in zip(params, ti.default_action_args, strict=False):
                    arg = pt.initial_default_action.arguments.add()
                    arg.param_id = prm.id
                    arg.value = _canonical_bytes(value)
            if t.implementation:
                pt.implementation_id = self.ids[("action_profile", t.implementation)]
            if t.direct_counter:
                pt.direct_resource_ids.append(self.ids[("direct_counter", t.direct_counter)])
            if t.direct_meter:
                pt.direct_resource_ids.append(self.ids[("direct_meter", t.direct_meter)])
            pt.size = t.size
            if t.idle_timeout:
                pt.idle_timeout_behavior = p4info_pb2.Table.NOTIFY_CONTROL
            if t.is_const:
                pt.is_const_table = True
            if t.entries:
                pt.has_initial_entries = True

    def _action_profiles(self) -> None:
        """Action profiles and selectors with the tables that use them."""
        for p in self.cp.action_profiles:
            pid = self.ids[("action_profile", p.name)]
            tables = tuple(self.ids[("table", tn)] for tn in p.tables)
            with_selector = p.selector is not None
            self.info.action_profiles[pid] = m.ActionProfileInfo(
                pid, p.name, tables, p.size, with_selector, p.selector, p.max_group_size)
            pp = self.p4.action_profiles.add()
            self._preamble(pp, "action_profile", p.name)
            pp.table_ids.extend(tables)
            pp.with_selector = with_selector
            pp.size = p.size
            if p.max_group_size:
                pp.max_group_size = p.max_group_size
                pp.sum_of_weights.SetInParent()  # p4c's selector-size semantics with max_group_size

    def _counters(self) -> None:
        """Indirect and direct counters."""
        for c in self.cp.counters:
            kind = "direct_counter" if c.direct else "counter"
            cid = self.ids[(kind, c.name)]
            dtid = self.ids[("table", c.direct_table)] if c.direct_table is not None else None
            self.info.counters[cid] = m.CounterInfo(cid, c.name, c.size, m.CounterUnit(c.unit), dtid)
            pc = self.p4.direct_counters.add() if c.direct else self.p4.counters.add()
            self._preamble(pc, kind, c.name)
            pc.spec.unit = {"bytes": 1, "packets": 2, "packets_and_bytes": 3}[c.unit]
            if c.direct:
                if dtid is not None:
                    pc.direct_table_id = dtid
            else:
                pc.size = c.size

    def _meters(self) -> None:
        """Indirect and direct meters."""
        for c in self.cp.meters:
            kind = "direct_meter" if c.direct else "meter"
            mid = self.ids[(kind, c.name)]
            dtid = self.ids[("table", c.direct_table)] if c.direct_table is not None else None
            self.info.meters[mid] = m.MeterInfo(mid, c.name, c.size, m.MeterUnit(c.unit), dtid)
            pm = self.p4.direct_meters.add() if c.direct else self.p4.meters.add()
            self._preamble(pm, kind, c.name)
            pm.spec.unit = {"bytes": 1, "packets": 2}[c.unit]
            if c.direct:
                if dtid is not None:
                    pm.direct_table_id = dtid
            else:
                pm.size = c.size

    def _registers(self) -> None:
        """Registers with their value type."""
        for r in self.cp.registers:
            rid = self.ids[("register", r.name)]
            self.info.registers[rid] = m.RegisterInfo(rid, r.name, r.size, r.bitwidth)
            pr = self.p4.registers.add()
            self._preamble(pr, "register", r.name)
            set_bits_type(pr.type_spec, r.bitwidth, r.signed, r.is_bool)
            pr.size = r.size

    def _value_sets(self) -> None:
        """Parser value sets: bit<W> (one unnamed exact field) or struct members."""
        for v in self.cp.value_sets:
            vid = self.ids[("value_set", v.name)]
            pv = self.p4.value_sets.add()
            self._preamble(pv, "value_set", v.name, annos=v.annotations)
            if v.struct:  # struct members: ids allocated as for keys, @match gives the kind
                vids = field_ids([f.annotations for f in v.fields])
            else:  # bit<W>: one exact field with no name (P4Runtime spec)
                vids = list(range(1, len(v.fields) + 1))
            fields = []
            for fid, f in zip(vids, v.fields, strict=True):
                mt, other = match_type(f.annotations) if v.struct else (MATCH_TYPES["exact"], "")
                mf = pv.match.add()
                mf.id, mf.bitwidth = fid, f.bitwidth
                if f.name:
                    mf.name = f.name
                if other:
                    mf.other_match_type = other
                else:
                    mf.match_type = mt
                if v.struct:
                    mf.annotations.extend(_anno_strs(f.annotations, ANNOTATION_SKIP | {"match"}))
                    set_doc(mf, f.annotations)
                kind = next((k for k, n in MATCH_TYPES.items() if n == mt and not other), "exact")
                fields.append(m.KeyField(fid, f.name or v.name, m.MatchKind(kind), f.bitwidth))
            self.info.value_sets[vid] = m.ValueSetInfo(vid, v.name, v.size, tuple(fields))
            pv.size = v.size

    def _controller_headers(self) -> None:
        """packet_in / packet_out metadata (@controller_header)."""
        for h in self.cp.controller_headers:
            hid = self.ids[("controller_header", h.type_name)]
            fids = field_ids([f.annotations for f in h.fields])
            hf = tuple(m.HeaderFieldInfo(fid, f.name, f.bitwidth) for fid, f in zip(fids, h.fields, strict=True))
            self.info.controller_headers[hid] = m.ControllerHeaderInfo(hid, h.name, hf)
            if h.hidden:
                continue
            ph = self.p4.controller_packet_metadata.add()
            ph.preamble.id = hid
            ph.preamble.name = h.name
            ph.preamble.alias = h.name
            ph.preamble.annotations.append(f'@controller_header("{h.name}")')
            for fi, f in zip(hf, h.fields, strict=True):
                if has_annotation(f.annotations, "hidden"):
                    continue  # keeps its id (the allocator counted it) but is not listed
                md = ph.metadata.add()
                md.id, md.name, md.bitwidth = fi.id, fi.name, fi.bitwidth
                md.annotations.extend(_anno_strs(f.annotations, ANNOTATION_SKIP))

    def _enums(self) -> None:
        """Serializable enums used at the P4Runtime boundary."""
        for e in sorted(self.cp.enums, key=lambda e: e.name):
            se = self.p4.type_info.serializable_enums[e.name]
            se.underlying_type.bitwidth = e.bitwidth
            for member in e.members:
                mm = se.members.add()
                mm.name = member.name
                mm.value = _canonical_bytes(member.value)

    def _digests(self) -> None:
        """Digests with their type specs."""
        for d in self.cp.digests:
            did = self.ids[("digest", d.name)]
            self.digest_ids[d.name] = did
            hf = tuple(m.HeaderFieldInfo(i + 1, f.name, f.bitwidth) for i, f in enumerate(d.fields))
            self.info.digests[did] = m.DigestInfo(did, d.name, hf)
            pd = self.p4.digests.add()
            self._preamble(pd, "digest", d.name)
            _digest_type_spec(self.p4, pd.type_spec, d, self.cp.errors)


def _member_type_spec(p4, spec, f: DigestField, errors: tuple[str, ...]) -> None:
    """One digested field: bits, or error / a plain enum described in type_info."""
    if f.kind == "error":
        spec.error.SetInParent()
        if not p4.type_info.error.members:
            p4.type_info.error.members.extend(errors)
    elif f.kind == "enum":
        spec.enum.name = f.enum_name
    else:
        set_bits_type(spec, f.bitwidth, f.kind == "int", f.kind == "bool")


def _digest_type_spec(p4, spec, d: Digest, errors: tuple[str, ...]) -> None:
    """The P4DataTypeSpec of a digest: a named struct or header (described in type_info)
    or an anonymous tuple (described inline), as p4c's TypeSpecConverter writes them."""
    if d.kind == "tuple":
        for f in d.fields:
            _member_type_spec(p4, spec.tuple.members.add(), f, errors)
        return
    if d.kind == "header":
        spec.header.name = d.name
        hdr = p4.type_info.headers[d.name]
        for f in d.fields:
            mem = hdr.members.add()
            mem.name = f.name
            if f.kind == "int":
                mem.type_spec.int.bitwidth = f.bitwidth
            else:
                mem.type_spec.bit.bitwidth = f.bitwidth
        return
    spec.struct.name = d.name
    st = p4.type_info.structs[d.name]
    for f in d.fields:
        mem = st.members.add()
        mem.name = f.name
        _member_type_spec(p4, mem.type_spec, f, errors)


def _canonical_bytes(value: int) -> bytes:
    """P4Runtime canonical byte string (no leading zero bytes; 0 is one zero byte)."""
    return value.to_bytes(max(1, (value.bit_length() + 7) // 8), "big")
