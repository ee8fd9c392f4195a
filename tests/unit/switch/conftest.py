"""A running p4emu switch without ports: P4Runtime on 127.0.0.1, the toy pipeline."""

from __future__ import annotations

import grpc
import pytest
from google.protobuf import text_format
from p4.v1 import p4runtime_pb2_grpc

from p4emu.switch.core import SwitchCore
from p4emu.switch.dataplane_loop import DataplaneLoop
from p4emu.switch.grpc_server import serve
from p4emu.switch.native_tm_module import compiled_port_queues
from p4emu.switch.native_traffic_manager import NativeTrafficManager
from p4emu.switch.ports import PortSet
from p4emu.switch.queues import PortQueues
from p4emu.switch.traffic_manager import QueueSettings, TrafficManager

from .fake_program import CPU_PORT, DEVICE_CONFIG, DEVICE_ID, fake_loader, make_info, make_p4info


class RunningSwitch:
    def __init__(self) -> None:
        self.core = SwitchCore(device_id=DEVICE_ID, cpu_port=CPU_PORT)
        self.tm = TrafficManager(self.core, PortSet(), QueueSettings())
        self.server, self.service, port = serve(self.core, fake_loader(), "127.0.0.1:0")
        self.addr = f"127.0.0.1:{port}"
        self.loop = DataplaneLoop([self.tm])
        self.loop.start()

    def stop(self) -> None:
        self.server.stop(grace=0)
        self.service.stop()
        self.loop.stop()


@pytest.fixture
def switch():
    running = RunningSwitch()
    try:
        yield running
    finally:
        running.stop()


@pytest.fixture
def stub(switch):
    channel = grpc.insecure_channel(switch.addr)
    try:
        yield p4runtime_pb2_grpc.P4RuntimeStub(channel)
    finally:
        channel.close()


@pytest.fixture
def p4info():
    return make_p4info(make_info())


@pytest.fixture
def config_files(tmp_path, p4info):
    p4info_path = tmp_path / "fake.p4info.txtpb"
    p4info_path.write_text(text_format.MessageToString(p4info))
    bin_path = tmp_path / "fake.bin"
    bin_path.write_bytes(DEVICE_CONFIG)
    return str(p4info_path), str(bin_path)


# the Python queues and traffic manager (the reference) and the compiled ones
# (p4emu.switch.native_traffic_manager): the tests of either run against both
@pytest.fixture(params=["python", "native"])
def make_queues(request):
    return PortQueues if request.param == "python" else compiled_port_queues


@pytest.fixture(params=["python", "native"])
def tm_class(request):
    return TrafficManager if request.param == "python" else NativeTrafficManager
