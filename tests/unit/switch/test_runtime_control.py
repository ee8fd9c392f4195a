"""Runtime control commands, the TCP line protocol and the `p4emu cli` client."""

from __future__ import annotations

import io
import sys

import pytest

from p4emu.switch import runtime_cli
from p4emu.switch.ports import PortSet
from p4emu.switch.runtime_control import (
    CommandError,
    RuntimeCommands,
    RuntimeControlServer,
    answer,
)

from .fake_program import PORT_COUNTER, push_pipeline


@pytest.fixture
def commands(switch):
    return RuntimeCommands(switch.core, switch.tm, PortSet())


def test_queue_commands_change_one_port_or_all(commands, switch):
    commands.execute("set_queue_depth 10 3")
    commands.execute("set_queue_rate 500 3")
    commands.execute("set_line_rate 1e6 3")
    q3 = switch.tm.queue(3)
    assert (q3.config.depth, q3.config.rate_pps, q3.config.line_rate_bps) == (10, 500, 1e6)
    commands.execute("set_queue_depth 20")
    assert switch.tm.queue(3).config.depth == 20
    assert switch.tm.queue(7).config.depth == 20  # ports created later get it too
    assert switch.tm.queue(7).config.rate_pps == 0


def test_simple_switch_cli_priority_forms(commands, switch):
    commands.execute("set_queue_depth 12 4 0")  # one priority queue's depth, as BMv2
    commands.execute("set_queue_rate 300 4 0")  # one server per port: the port's rate
    q4 = switch.tm.queue(4)
    assert (q4.config.depth_of(0), q4.config.rate_pps) == (12, 300)
    with pytest.raises(CommandError, match=r"PRIO must be 0\.\.0, got 1"):
        commands.execute("set_queue_depth 5 4 1")  # one priority queue on this switch
    commands.execute("set_queue_depth 20 4")  # no PRIO: every queue of the port
    assert q4.config.depth_of(0) == 20 and q4.config.priority_depths == {}


def test_priority_depth_of_one_port_or_all(switch):
    switch.tm.settings.priorities = 2
    commands = RuntimeCommands(switch.core, switch.tm, PortSet())
    commands.execute("set_queue_depth 700 4 1")
    q4 = switch.tm.queue(4)
    assert (q4.config.depth_of(0), q4.config.depth_of(1)) == (64, 700)
    switch.tm.set_depth(50, priority=1)  # every port, and ports created later
    assert q4.config.depth_of(1) == 50 and switch.tm.queue(9).config.depth_of(1) == 50
    assert switch.tm.queue(9).config.depth_of(0) == 64


def test_show_ports_has_simple_switch_cli_layout(commands):
    assert commands.execute("show_ports") == [
        "  port #       iface name       status  extra info", "=" * 50]


@pytest.mark.parametrize("line", ["set_queue_depth", "set_queue_depth 0",
                                  "set_queue_depth x", "set_queue_rate -1 1",
                                  "set_queue_depth 5 512", "nope", "counter_read x",
                                  "help nope"])
def test_bad_commands_raise_one_line_errors(commands, line):
    with pytest.raises(CommandError):
        commands.execute(line)


def test_register_and_counter_commands_need_a_pipeline(commands, switch, stub, p4info):
    with pytest.raises(CommandError, match="no forwarding pipeline"):
        commands.execute("register_read qdepth 0")
    push_pipeline(stub, p4info)
    commands.execute("register_write MyEgress.qdepth 2 77")
    assert commands.execute("register_read qdepth 2") == ["MyEgress.qdepth[2]= 77"]
    assert commands.execute("register_read qdepth") == [
        "MyEgress.qdepth= 0, 0, 77, 0, 0, 0, 0, 0"]
    with pytest.raises(CommandError, match="does not fit"):
        commands.execute("register_write qdepth 2 9999999")
    with pytest.raises(CommandError, match="out of range"):
        commands.execute("register_read qdepth 8")
    assert commands.execute("register_reset MyEgress.qdepth") == []
    assert commands.execute("register_read qdepth 2") == ["MyEgress.qdepth[2]= 0"]
    switch.core.program.state.counters[PORT_COUNTER].count(1, 60)
    assert commands.execute("counter_read port_counter 1") == [
        "MyIngress.port_counter[1]=  BmCounterValue(packets=1, bytes=60)"]
    with pytest.raises(CommandError, match="direct counter"):
        commands.execute("counter_read lpm_counter 0")


def test_answer_wire_format(commands):
    assert answer(commands, "bogus").startswith("ERR unknown command")
    reply = answer(commands, "help set_queue_rate")
    assert reply.splitlines()[0] == "OK 1"


def test_tcp_server_and_cli_one_shot_and_stdin(commands, capsys, monkeypatch):
    server = RuntimeControlServer(("127.0.0.1", 0), commands)
    server.start()
    port = server.server_address[1]
    try:
        assert runtime_cli.main(["--thrift-port", str(port), "set_queue_depth", "9", "2"]) == 0
        assert commands.tm.queue(2).config.depth == 9
        monkeypatch.setattr(sys, "stdin", io.StringIO("bogus\nset_queue_rate 100 2\n"))
        assert runtime_cli.main(["--thrift-port", str(port)]) == 1  # one command failed
        assert commands.tm.queue(2).config.rate_pps == 100  # the next one still ran
        err = capsys.readouterr().err
        assert "unknown command 'bogus'" in err
    finally:
        server.stop()
    assert runtime_cli.main(["--thrift-port", str(port)]) == 1
    assert "cannot connect" in capsys.readouterr().err
