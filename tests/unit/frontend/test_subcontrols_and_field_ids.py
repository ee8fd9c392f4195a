"""Sub-control applies and their tables, P4Info field ids, @hidden fields,
signed type specs (16-19): regressions of p4c-fidelity fixes beyond test_verdicts.py and
test_p4info_ids.py."""

import pytest

from p4emu.frontend import P4CompileError, compile_file

HEAD = """#include <core.p4>
#include <v1model.p4>
@controller_header("packet_in")
header pin_t { bit<9> port; @hidden bit<7> pad; bit<8> reason; }
header h_t { bit<8> a; bit<8> b; }
struct headers { pin_t pin; h_t h; }
struct meta_t { int<8> s; bit<8> k; }
struct dig_t { int<8> s; bool f; bit<8> k; }
parser P(packet_in pkt, out headers hdr, inout meta_t m, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control VC(inout headers hdr, inout meta_t m) { apply { } }
"""
TAIL = """
control E(inout headers hdr, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout meta_t m) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.pin); pkt.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
"""


def build(tmp_path, body: str):
    src = tmp_path / "prog.p4"
    src.write_text(HEAD + body + TAIL)
    return compile_file(str(src))


def test_subcontrol_without_tables_may_be_applied_twice(tmp_path):
    from p4emu.runtime.device import DeviceState
    from p4emu.v1model.pipeline import Pipeline

    r = build(tmp_path, """
control Inc(inout bit<8> k) { apply { k = k + 1; } }
control I(inout headers hdr, inout meta_t m, inout standard_metadata_t sm) {
    Inc() inc;
    apply { inc.apply(hdr.h.a); inc.apply(hdr.h.b); sm.egress_spec = 1; }
}""")
    assert list(r.p4info.tables) == []
    # each apply runs on its own argument
    pipeline = Pipeline(r.program, DeviceState.from_program(r.program.info))
    assert pipeline.process(0, b"\x05\x07") == [(1, b"\x06\x08")]


def test_nested_subcontrol_table_applied_twice_is_rejected(tmp_path):
    with pytest.raises(P4CompileError, match="I.outer.inner.t applied more than once"):
        build(tmp_path, """
control Inner(inout bit<8> k) {
    action set(bit<8> v) { k = v; }
    table t { key = { k : exact; } actions = { set; NoAction; } default_action = NoAction(); }
    apply { t.apply(); }
}
control Outer(inout bit<8> k) { Inner() inner; apply { inner.apply(k); } }
control I(inout headers hdr, inout meta_t m, inout standard_metadata_t sm) {
    Outer() outer;
    apply { outer.apply(hdr.h.a); outer.apply(hdr.h.b); }
}""")


SELECTOR_BODY = """
control I(inout headers hdr, inout meta_t m, inout standard_metadata_t sm) {
    action a(bit<8> x, @id(1) bit<8> y) { hdr.h.a = x + y; }
    table t {
        key = { m.k : selector; hdr.h.a : exact; hdr.h.b : ternary @id(9); }
        actions = { a; }
        implementation = action_selector(HashAlgorithm.crc16, 32w16, 32w8);
    }
    apply { t.apply(); digest<dig_t>(1, { m.s, true, m.k }); }
}"""


def test_field_ids_follow_p4c_allocator(tmp_path):
    r = build(tmp_path, SELECTOR_BODY)
    (t,) = r.p4info.tables
    # the selector key takes id 1 (not listed); @id(9) is reserved first
    assert [(f.id, f.name) for f in t.match_fields] == [(2, "hdr.h.a"), (9, "hdr.h.b")]
    (a,) = [x for x in r.p4info.actions if x.preamble.name == "I.a"]
    assert [(p.id, p.name) for p in a.params] == [(2, "x"), (1, "y")]
    info = r.info.by_name("actions", "I.a")
    assert [(p.id, p.name) for p in info.params] == [(2, "x"), (1, "y")]
    # a @hidden metadata field is not listed but still takes its id
    (pin,) = r.p4info.controller_packet_metadata
    assert [(f.id, f.name) for f in pin.metadata] == [(1, "port"), (3, "reason")]


def test_digest_member_type_specs(tmp_path):
    r = build(tmp_path, SELECTOR_BODY)
    members = r.p4info.type_info.structs["dig_t"].members
    assert members[0].type_spec.bitstring.int.bitwidth == 8
    assert members[1].type_spec.HasField("bool")
    assert members[2].type_spec.bitstring.bit.bitwidth == 8


@pytest.mark.parametrize("params, message", [
    ("@id(0) bit<8> x", "0 is not a valid @id"),
    ("@id(2) bit<8> x, @id(2) bit<8> y", "used multiple times"),
])
def test_bad_field_ids(tmp_path, params, message):
    with pytest.raises(P4CompileError, match=message):
        build(tmp_path, f"""
control I(inout headers hdr, inout meta_t m, inout standard_metadata_t sm) {{
    action a({params}) {{ }}
    table t {{ key = {{ hdr.h.a : exact; }} actions = {{ a; }} }}
    apply {{ t.apply(); }}
}}""")
