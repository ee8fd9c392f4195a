"""P4Runtime client code written for BMv2 works unchanged against p4emu.

A real gRPC client against an in-process switch running the real compiler and pipeline
(tests/p4/switch/l3_qdepth.p4): the device config wrapped in p4.tmp.P4DeviceConfig as
well as raw, a stream closed and at once reopened with the same election id, and a BMv2
JSON from p4c named as such over gRPC and on the command line.
"""

from __future__ import annotations

import json
import queue
import subprocess
import sys
from pathlib import Path

import grpc
import pytest
from google.rpc import code_pb2
from p4.v1 import p4runtime_pb2 as pb
from p4.v1 import p4runtime_pb2_grpc

from p4emu.frontend import compile_file
from p4emu.switch.core import SwitchCore
from p4emu.switch.device_config import BMV2_JSON_MESSAGE, device_data, wrapped_device_data
from p4emu.switch.grpc_server import serve
from p4emu.switch.ports import PortSet
from p4emu.switch.program import ir_loader
from p4emu.switch.traffic_manager import QueueSettings, TrafficManager

from .p4config_message import P4DeviceConfig, wrap

REPO = Path(__file__).resolve().parents[3]
PROGRAM = REPO / "tests" / "p4" / "switch" / "l3_qdepth.p4"
DEVICE_ID = 3
# the shape p4c-bm2-ss writes (abridged): what a BMv2 user pushes by habit
BMV2_JSON = json.dumps({
    "header_types": [{"name": "scalars_0", "id": 0, "fields": []}],
    "headers": [], "parsers": [], "deparsers": [], "actions": [],
    "pipelines": [{"name": "ingress", "init_table": None, "tables": []}],
    "__meta__": {"version": [2, 23], "compiler": "https://github.com/p4lang/p4c"},
}, indent=2).encode()
Req = pb.SetForwardingPipelineConfigRequest


@pytest.fixture(scope="module")
def compiled():
    return compile_file(str(PROGRAM))


@pytest.fixture
def real_switch():
    core = SwitchCore(device_id=DEVICE_ID, cpu_port=255)
    TrafficManager(core, PortSet(), QueueSettings())
    server, service, port = serve(core, ir_loader(255), "127.0.0.1:0")
    channel = grpc.insecure_channel(f"127.0.0.1:{port}")
    try:
        yield p4runtime_pb2_grpc.P4RuntimeStub(channel)
    finally:
        channel.close()
        server.stop(grace=0)
        service.stop()


def set_pipeline(stub, p4info, device_config: bytes, action=Req.VERIFY_AND_COMMIT):
    req = Req(device_id=DEVICE_ID, action=action)
    req.config.p4info.CopyFrom(p4info)
    req.config.p4_device_config = device_config
    req.config.cookie.cookie = 5
    return stub.SetForwardingPipelineConfig(req)


def lpm_entry(p4info) -> pb.TableEntry:
    table = p4info.tables[0]
    action = next(a for a in p4info.actions if a.preamble.name == "MyIngress.ipv4_forward")
    te = pb.TableEntry(table_id=table.preamble.id)
    te.match.add(field_id=1).lpm.CopyFrom(pb.FieldMatch.LPM(value=b"\x0a\x00\x00\x00",
                                                             prefix_len=8))
    te.action.action.action_id = action.preamble.id
    for param, value in zip(action.params, (b"\x00\x00\x00\x00\x00\x02",
                                            b"\x00\x00\x00\x00\x00\x01", b"\x00\x02"),
                            strict=True):
        te.action.action.params.add(param_id=param.id, value=value)
    return te


def read_entries(stub, p4info) -> list[pb.Entity]:
    req = pb.ReadRequest(device_id=DEVICE_ID)
    req.entities.add().table_entry.table_id = p4info.tables[0].preamble.id
    return [e for resp in stub.Read(req) for e in resp.entities]


def test_wrapped_and_raw_device_configs_are_both_accepted(real_switch, compiled):
    wrapped = wrap(compiled.ir, port="9559")
    set_pipeline(real_switch, compiled.p4info, wrapped)
    got = real_switch.GetForwardingPipelineConfig(
        pb.GetForwardingPipelineConfigRequest(device_id=DEVICE_ID)).config
    assert got.p4_device_config == wrapped  # returned as the client sent it, as PI does
    real_switch.Write(pb.WriteRequest(device_id=DEVICE_ID, updates=[pb.Update(
        type=pb.Update.INSERT, entity=pb.Entity(table_entry=lpm_entry(compiled.p4info)))]))
    # the same program sent raw: reconciled, the entry carried over
    set_pipeline(real_switch, compiled.p4info, compiled.ir, Req.RECONCILE_AND_COMMIT)
    assert len(read_entries(real_switch, compiled.p4info)) == 1
    with pytest.raises(grpc.RpcError) as err:
        set_pipeline(real_switch, compiled.p4info, wrap(b""))
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "no p4_device_config" in err.value.details()


def test_raw_ir_is_never_taken_for_a_wrapper(compiled):
    for raw in (compiled.ir, b" \n\t\r" + compiled.ir, b"{}", b"fake-l3-program"):
        assert wrapped_device_data(raw) is None
        assert device_data(raw) == raw
    # every form a protobuf library writes unwraps to the device data
    assert device_data(P4DeviceConfig(device_data=compiled.ir).SerializeToString()) == \
        compiled.ir
    assert device_data(wrap(compiled.ir, a="1", b="2")) == compiled.ir
    assert wrapped_device_data(P4DeviceConfig(reassign=True).SerializeToString()) == b""
    truncated = wrap(compiled.ir)[:-10]
    assert wrapped_device_data(truncated) is None  # then loaded raw, and refused as such


@pytest.mark.parametrize("wrapped", [False, True])
def test_bmv2_json_over_grpc_is_named_in_one_line(real_switch, compiled, wrapped):
    config = wrap(BMV2_JSON) if wrapped else BMV2_JSON
    with pytest.raises(grpc.RpcError) as err:
        set_pipeline(real_switch, compiled.p4info, config)
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert err.value.details() == BMV2_JSON_MESSAGE


def test_bmv2_json_on_the_command_line_is_named_in_one_line(tmp_path):
    path = tmp_path / "prog.json"
    path.write_bytes(BMV2_JSON)
    proc = subprocess.run([sys.executable, "-m", "p4emu", "switch", "--thrift-port", "1",
                           str(path)], capture_output=True, text=True, timeout=30, cwd=REPO)
    assert proc.returncode == 1
    assert proc.stderr == f"p4emu switch: program {path}: {BMV2_JSON_MESSAGE}\n"


class Stream:
    """One StreamChannel on `stub`; the request side ends when `half_close` is called."""

    def __init__(self, stub, election_id: int) -> None:
        self.requests: queue.Queue = queue.Queue()
        req = pb.StreamMessageRequest()
        req.arbitration.device_id = DEVICE_ID
        req.arbitration.election_id.low = election_id
        self.requests.put(req)
        self.call = stub.StreamChannel(iter(self.requests.get, None))

    def first(self) -> pb.StreamMessageResponse:
        return next(self.call)

    def half_close(self) -> None:
        self.requests.put(None)


@pytest.mark.parametrize("how", ["half-close", "cancel", "half-close+cancel"])
def test_closed_stream_reconnects_at_once_with_the_same_election_id(real_switch, how):
    for _ in range(15):
        old = Stream(real_switch, 1)
        assert old.first().arbitration.status.code == code_pb2.OK
        if "half-close" in how:
            old.half_close()
        if "cancel" in how:
            old.call.cancel()
        new = Stream(real_switch, 1)
        arb = new.first().arbitration  # raised INVALID_ARGUMENT before
        assert (arb.status.code, arb.election_id.low) == (code_pb2.OK, 1)
        new.half_close()
        new.call.cancel()


def test_live_stream_still_keeps_its_election_id(real_switch):
    live = Stream(real_switch, 1)
    assert live.first().arbitration.status.code == code_pb2.OK
    dup = Stream(real_switch, 1)
    with pytest.raises(grpc.RpcError) as err:
        dup.first()
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert err.value.details() == "election id 1 is already used in role ''"
    live.half_close()
    live.call.cancel()


def test_primary_that_half_closes_hands_over_at_once(real_switch):
    primary = Stream(real_switch, 10)
    assert primary.first().arbitration.status.code == code_pb2.OK
    backup = Stream(real_switch, 5)
    assert backup.first().arbitration.status.code == code_pb2.ALREADY_EXISTS
    primary.half_close()  # the primary's response side is never cancelled
    notice = backup.first().arbitration
    assert (notice.status.code, notice.election_id.low) == (code_pb2.OK, 5)
    backup.half_close()
