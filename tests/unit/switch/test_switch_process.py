"""`python -m p4emu switch PROGRAM.p4` as a process: flags, P4Runtime, CLI, clean exit."""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
from pathlib import Path

import grpc
from p4.v1 import p4runtime_pb2 as pb
from p4.v1 import p4runtime_pb2_grpc

REPO = Path(__file__).resolve().parents[3]
PROGRAM = REPO / "tests" / "p4" / "switch" / "l3_qdepth.p4"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cli(port: int, *command: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "p4emu", "cli", "--thrift-port", str(port),
                           *command], input=stdin, capture_output=True, text=True,
                          timeout=30, cwd=REPO)


def test_switch_process_with_p4_program(tmp_path):
    grpc_port, thrift_port = free_port(), free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "p4emu", "switch", "--device-id", "4", "--log-file",
         str(tmp_path / "sw.log"), "--log-level", "info", "--thrift-port", str(thrift_port),
         str(PROGRAM), "--", "--grpc-server-addr", f"127.0.0.1:{grpc_port}", "--cpu-port",
         "255", "--priority-queues", "2"], cwd=REPO, stderr=subprocess.PIPE, text=True)
    try:
        channel = grpc.insecure_channel(f"127.0.0.1:{grpc_port}")
        grpc.channel_ready_future(channel).result(timeout=30)
        stub = p4runtime_pb2_grpc.P4RuntimeStub(channel)
        config = stub.GetForwardingPipelineConfig(
            pb.GetForwardingPipelineConfigRequest(device_id=4)).config
        assert [t.preamble.name for t in config.p4info.tables] == ["MyIngress.ipv4_lpm"]
        # the program compiled at start-up, as the device config P4Runtime reads back
        assert config.p4_device_config.startswith(b'{"format":"p4emu-preprocessed/1"')
        channel.close()
        out = cli(thrift_port, "register_write", "max_qdepth", "3", "12")
        assert out.returncode == 0, out.stderr
        out = cli(thrift_port, stdin="register_read MyEgress.max_qdepth 3\nshow_ports\n")
        assert out.stdout.splitlines()[0] == "MyEgress.max_qdepth[3]= 12"
        out = cli(thrift_port, "frobnicate")
        assert out.returncode == 1 and out.stderr.strip() == \
            "Error: unknown command 'frobnicate' (try help)"
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            code = proc.wait(timeout=15)
        finally:
            if proc.poll() is None:
                proc.kill()
    assert code == 0, proc.stderr.read()
    log = (tmp_path / "sw.log").read_text()
    assert "pipeline set" in log and "switch stopping" in log
