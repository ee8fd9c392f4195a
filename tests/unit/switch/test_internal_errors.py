"""A p4emu switch survives an internal error of the real pipeline, and tells about it.

tests/unit/v1model/programs/divide.p4 divides by a packet field; a zero divisor makes the
generated code raise (BMv2 aborts there). The switch drops that packet, logs the
traceback at error level, counts it, and `p4emu cli internal_errors` reports it.
"""

from __future__ import annotations

import logging
import time
from pathlib import Path

import pytest

from p4emu.frontend import compile_file
from p4emu.switch import runtime_cli
from p4emu.switch.core import SwitchCore
from p4emu.switch.dataplane_loop import DataplaneLoop
from p4emu.switch.ports import PortSet
from p4emu.switch.program import build_program, ir_loader
from p4emu.switch.runtime_control import RuntimeCommands, RuntimeControlServer
from p4emu.switch.traffic_manager import QueueSettings

DIVIDE = Path(__file__).resolve().parents[1] / "v1model" / "programs" / "divide.p4"


@pytest.fixture
def divide_switch(tm_class):
    result = compile_file(str(DIVIDE))
    core = SwitchCore(device_id=1, cpu_port=None)
    tm = tm_class(core, PortSet(), QueueSettings())
    core.install(build_program(ir_loader(None), result.p4info, result.ir, 1,
                               port_up=lambda port: True, clock_us=core.clock_us))
    sent: list[tuple[int, bytes]] = []
    tm._transmit = lambda port, frame, start_us: sent.append((port, frame))
    loop = DataplaneLoop([tm])
    loop.start()
    try:
        yield core, tm, sent
    finally:
        loop.stop()


def wait_for(predicate, timeout: float = 3.0) -> bool:
    deadline = time.time() + timeout
    while time.time() < deadline and not predicate():
        time.sleep(0.01)
    return predicate()


def test_internal_error_counted_logged_and_served_to_the_cli(divide_switch, caplog, capsys):
    core, tm, sent = divide_switch
    commands = RuntimeCommands(core, tm, PortSet())
    assert commands.execute("internal_errors") == ["internal_errors: 0"]
    with caplog.at_level(logging.ERROR, logger="p4emu.switch.traffic_manager"):
        core.inject(2, b"\x06\x00")
        core.inject(2, b"\x06\x03")
        assert wait_for(lambda: sent == [(1, b"\x02\x03")])  # the switch goes on
    assert tm.pipeline_errors == 1
    record = next(r for r in caplog.records if "internal error" in r.getMessage())
    assert record.levelno == logging.ERROR
    assert record.exc_info and record.exc_info[0] is ZeroDivisionError
    server = RuntimeControlServer(("127.0.0.1", 0), commands)
    server.start()
    try:
        assert runtime_cli.main(["--thrift-port", str(server.server_address[1]),
                                 "internal_errors"]) == 0
    finally:
        server.stop()
    assert capsys.readouterr().out.splitlines() == [
        "internal_errors: 1",
        "last: ingress of a 2-byte frame from port 2: ZeroDivisionError: "
        "integer division or modulo by zero"]
