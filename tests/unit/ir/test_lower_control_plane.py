"""The lowering pass: a small program's control-plane objects come out as typed IR, and
P4Info ids are assigned from it as p4c does."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from p4emu.frontend import compile_file
from p4emu.ir import (
    Action,
    ActionParam,
    ActionProfile,
    ActionRef,
    ControlPlane,
    Counter,
    Digest,
    DigestField,
    EnumMember,
    HeaderField,
    MatchField,
    Meter,
    Register,
    SerializableEnum,
    Table,
    TableEntry,
    ValueSet,
    ValueSetField,
)
from p4emu.p4info import jenkins_one_at_a_time
from p4emu.runtime.match import Exact

PROGRAM = r"""#include <core.p4>
#include <v1model.p4>

enum bit<8> Color { RED = 1, GREEN = 2, BLUE = 0xff }
@controller_header("packet_in")
header packet_in_t { bit<9> ingress_port; @id(5) bit<7> pad; }
header h_t { bit<8> a; bit<16> b; }
struct headers { h_t h; }
struct digest_t { bit<8> a; int<16> s; bool flag; error e; }
struct meta_t { bit<8> m; Color c; }

parser P(packet_in pkt, out headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    value_set<bit<8>>(4) vs;
    state start {
        pkt.extract(hdr.h);
        transition select(hdr.h.a) { vs: accept; default: accept; }
    }
}
control VC(inout headers hdr, inout meta_t meta) { apply { } }
control I(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    direct_counter(CounterType.packets) dc;
    counter(64, CounterType.bytes) c;
    meter(32, MeterType.packets) mtr;
    register<int<16>>(8) r;
    @max_group_size(4) action_selector(HashAlgorithm.crc16, 16, 14) sel;
    action drop() { mark_to_drop(sm); }
    @brief("set the port")
    action fwd(bit<9> port, @name("color") Color c) { sm.egress_spec = port; meta.c = c; }
    action unused() { }
    table t {
        key = { hdr.h.a: exact @name("a_key"); hdr.h.b: ternary; }
        actions = { fwd; @defaultonly drop; }
        default_action = drop();
        counters = dc;
        size = 256;
        const entries = { (1, _): fwd(2, Color.GREEN); }
    }
    @id(0x0200ABCD) table t2 { key = { meta.m: lpm; } actions = { fwd; } }
    table t3 {
        key = { hdr.h.a: exact; hdr.h.b: selector; }
        actions = { fwd; }
        implementation = sel;
    }
    apply {
        t.apply();
        t2.apply();
        t3.apply();
        c.count(0);
        mtr.execute_meter(0, meta.m);
        r.write(0, -1);
        digest<digest_t>(1, {hdr.h.a, -2, true, error.NoError});
    }
}
control E(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.h); } }
@pkginfo(name = "demo", version = "1.2") V1Switch(P(), VC(), I(), E(), CC(), D()) main;
"""


@pytest.fixture(scope="module")
def compiled(tmp_path_factory):
    path = Path(tmp_path_factory.mktemp("ir")) / "demo.p4"
    path.write_text(PROGRAM)
    return compile_file(str(path))


@pytest.fixture(scope="module")
def cp(compiled) -> ControlPlane:
    assert isinstance(compiled.program.control_plane, ControlPlane)
    return compiled.program.control_plane


def _hash_id(prefix: int, name: str) -> int:
    return (prefix << 24) | (jenkins_one_at_a_time(name) & 0xFFFFFF)


def test_tables_are_typed_with_keys_actions_defaults_and_entries(cp):
    assert [t.name for t in cp.tables] == ["I.t", "I.t2", "I.t3"]
    t = cp.find("tables", "I.t")
    assert isinstance(t, Table)
    assert t.keys == (MatchField("a_key", "exact", 8, t.keys[0].annotations),
                      MatchField("hdr.h.b", "ternary", 16))
    assert [a.text for a in t.keys[0].annotations] == ['@name("a_key")']
    assert [(r.action, r.scope) for r in t.actions] == [("I.fwd", "TABLE_AND_DEFAULT"),
                                                        ("I.drop", "DEFAULT_ONLY")]
    assert all(isinstance(r, ActionRef) for r in t.actions)
    assert (t.size, t.default_action, t.default_args, t.is_const) == (256, "I.drop", (), True)
    assert t.entries == (TableEntry((Exact(1), None), "I.fwd", (2, 2), 1),)  # None: `_`
    assert (t.direct_counter, t.direct_meter, t.implementation) == ("I.dc", None, None)
    assert t.explicit_id is None and not t.hidden


def test_a_table_without_default_gets_noaction_default_only(cp):
    t2 = cp.find("tables", "I.t2")
    assert t2.explicit_id == 0x0200ABCD
    assert t2.default_action == "NoAction"
    assert [(r.action, r.scope) for r in t2.actions] == [("I.fwd", "TABLE_AND_DEFAULT"),
                                                         ("NoAction", "DEFAULT_ONLY")]
    t3 = cp.find("tables", "I.t3")
    assert [k.match_kind for k in t3.keys] == ["exact", "selector"]
    assert t3.implementation == "I.sel"


def test_actions_are_the_used_ones_with_typed_params(cp):
    assert {a.name for a in cp.actions} == {"I.fwd", "I.drop", "NoAction"}  # not I.unused
    fwd = cp.find("actions", "I.fwd")
    assert isinstance(fwd, Action)
    assert [(p.name, p.bitwidth) for p in fwd.params] == [("port", 9), ("color", 8)]
    assert all(isinstance(p, ActionParam) for p in fwd.params)
    assert [a.name for a in fwd.annotations] == ["brief"]
    assert fwd.annotations[0].string() == "set the port"


def test_extern_instances(cp):
    assert cp.counters == (Counter("I.dc", 0, "packets", True, "I.t"),
                           Counter("I.c", 64, "bytes", False, None))
    assert cp.meters == (Meter("I.mtr", 32, "packets"),)
    assert cp.registers == (Register("I.r", 8, 16, signed=True),)
    (sel,) = cp.action_profiles
    assert isinstance(sel, ActionProfile)
    assert (sel.name, sel.size, sel.selector, sel.tables, sel.max_group_size) == (
        "I.sel", 16, "crc16", ("I.t3",), 4)
    assert cp.value_sets == (ValueSet("P.vs", 4, (ValueSetField("", 8),), struct=False),)


def test_packet_types_enums_errors_and_package(cp):
    (ch,) = cp.controller_headers
    assert (ch.type_name, ch.name) == ("packet_in_t", "packet_in")
    assert [(f.name, f.bitwidth) for f in ch.fields] == [("ingress_port", 9), ("pad", 7)]
    assert isinstance(ch.fields[0], HeaderField)
    (dg,) = cp.digests
    assert dg == Digest("digest_t", (DigestField("a", 8, "bit"), DigestField("s", 16, "int"),
                                     DigestField("flag", 1, "bool"),
                                     DigestField("e", 32, "error")), "struct")
    assert cp.enums == (SerializableEnum("Color", 8, (EnumMember("RED", 1), EnumMember("GREEN", 2),
                                                      EnumMember("BLUE", 0xFF))),)
    assert cp.errors[:2] == ("NoError", "PacketTooShort")
    assert [a.text for a in cp.package_annotations] == ['@pkginfo(name = "demo", version = "1.2")']


def test_p4info_ids_come_from_the_ir_names(cp, compiled):
    info = compiled.info
    assert info.by_name("tables", "I.t").id == _hash_id(0x02, "I.t")
    assert info.by_name("tables", "I.t2").id == 0x0200ABCD  # @id wins over the hash
    assert info.by_name("actions", "I.fwd").id == _hash_id(0x01, "I.fwd")
    assert info.by_name("counters", "I.dc").direct_table_id == _hash_id(0x02, "I.t")
    p4 = compiled.p4info
    assert p4.pkg_info.name == "demo" and p4.pkg_info.version == "1.2"
    ch = p4.controller_packet_metadata[0]
    assert [(md.name, md.id) for md in ch.metadata] == [("ingress_port", 1), ("pad", 5)]
    assert {a.preamble.alias for a in p4.actions} == {"fwd", "drop", "NoAction"}


def test_ir_objects_are_frozen_and_slotted(cp):
    t = cp.tables[0]
    with pytest.raises(dataclasses.FrozenInstanceError):
        t.name = "other"
    with pytest.raises(dataclasses.FrozenInstanceError):
        cp.tables = ()
    with pytest.raises((AttributeError, TypeError)):
        t.extra = 1  # slotted: no __dict__ to put new attributes in
    assert not hasattr(t, "__dict__") and not hasattr(cp, "__dict__")
    assert isinstance(cp.tables, tuple) and isinstance(t.keys, tuple)
    assert hash(t.keys[1]) == hash(MatchField("hdr.h.b", "ternary", 16))  # values, not identities
