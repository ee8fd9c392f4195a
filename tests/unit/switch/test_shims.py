"""A BMv2-style harness of our own that calls the tools only by BMv2's names.

`python -m p4emu shims DIR` writes the tools; DIR goes first on PATH (PYTHONPATH unset, a
scratch directory as cwd) and the harness runs `p4c-bm2-ss` / `p4c`, `simple_switch_grpc`
and `simple_switch_CLI` as a lab written for BMv2 does, with a P4Runtime client that
pushes the pipeline wrapped in p4.tmp.P4DeviceConfig as BMv2-era helpers do.
"""

from __future__ import annotations

import json
import os
import queue
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import grpc
import pytest
from google.protobuf import json_format, text_format
from p4.config.v1 import p4info_pb2
from p4.v1 import p4runtime_pb2 as pb
from p4.v1 import p4runtime_pb2_grpc

from .p4config_message import wrap

REPO = Path(__file__).resolve().parents[3]
PROGRAM = REPO / "tests" / "p4" / "switch" / "l3_qdepth.p4"
TOOLS = ("p4c-bm2-ss", "p4c", "simple_switch_grpc", "simple_switch_CLI")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Harness:
    """Runs tools by name with the shims first on PATH, from a scratch directory."""

    def __init__(self, shim_dir: Path, work: Path) -> None:
        self.work = work
        self.env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        self.env["PATH"] = f"{shim_dir}{os.pathsep}{os.environ.get('PATH', '')}"

    def run(self, *argv: str, stdin: str | None = None) -> subprocess.CompletedProcess:
        return subprocess.run(list(argv), input=stdin, capture_output=True, text=True,
                              env=self.env, cwd=self.work, timeout=60)

    def start(self, *argv: str) -> subprocess.Popen:
        return subprocess.Popen(list(argv), env=self.env, cwd=self.work, text=True,
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)

    def compile(self, name: str = "l3") -> tuple[Path, p4info_pb2.P4Info]:
        out = self.run("p4c-bm2-ss", "--p4v", "16", "--arch", "v1model", "-o",
                       f"build/{name}.json", "--p4runtime-files",
                       f"build/{name}.p4.p4info.txt", str(PROGRAM))
        assert out.returncode == 0, out.stderr
        p4info = text_format.Parse((self.work / f"build/{name}.p4.p4info.txt").read_text(),
                                   p4info_pb2.P4Info())
        return self.work / f"build/{name}.json", p4info

    def cli(self, thrift_port: int, commands: str) -> list[str]:
        out = self.run("simple_switch_CLI", "--thrift-port", str(thrift_port), stdin=commands)
        assert out.returncode == 0, out.stderr
        return out.stdout.splitlines()


@pytest.fixture
def harness(tmp_path):
    shim_dir = tmp_path / "shims"
    made = subprocess.run([sys.executable, "-m", "p4emu", "shims", str(shim_dir)],
                          capture_output=True, text=True, cwd=REPO, timeout=60)
    assert made.returncode == 0, made.stderr
    assert sorted(p.name for p in shim_dir.iterdir()) == sorted(TOOLS)
    work = tmp_path / "lab"
    (work / "build").mkdir(parents=True)
    return Harness(shim_dir, work)


def wait_ready(proc: subprocess.Popen, grpc_port: int, thrift_port: int) -> None:
    deadline = time.monotonic() + 20
    for port in (grpc_port, thrift_port):
        while True:
            assert proc.poll() is None, proc.stderr.read()
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert time.monotonic() < deadline, f"port {port} never opened"
                time.sleep(0.05)


def stop(proc: subprocess.Popen) -> tuple[int, str]:
    proc.send_signal(signal.SIGTERM)  # the pid the harness started is p4emu itself
    try:
        code = proc.wait(timeout=15)
    finally:
        if proc.poll() is None:
            proc.kill()
    return code, proc.stderr.read()


def test_compilers_take_p4c_command_lines(harness):
    build = harness.work / "build"
    out = harness.run("p4c-bm2-ss", "--p4v", "16", "--std", "p4-16", "--target", "bmv2",
                      "--arch", "v1model", "-I", str(PROGRAM.parent), "-DLAB=1",
                      "--emit-externs", "-o", "build/l3.json", "--p4runtime-files",
                      "build/l3.p4info.txt,build/l3.p4info.json,build/l3.p4info.bin",
                      str(PROGRAM))
    assert out.returncode == 0, out.stderr
    assert out.stderr == ("p4c-bm2-ss: note: --emit-externs ignored "
                          "(p4emu has no such output or pass)\n")
    assert (build / "l3.json").read_bytes().startswith(b'{"format":"p4emu-preprocessed/1"')
    text = text_format.Parse((build / "l3.p4info.txt").read_text(), p4info_pb2.P4Info())
    as_json = json_format.Parse((build / "l3.p4info.json").read_text(), p4info_pb2.P4Info())
    binary = p4info_pb2.P4Info.FromString((build / "l3.p4info.bin").read_bytes())
    assert text == as_json == binary
    assert [t.preamble.name for t in text.tables] == ["MyIngress.ipv4_lpm"]
    # the p4c driver: -o names a directory; the older --p4runtime-file/--p4runtime-format
    out = harness.run("p4c", "-b", "bmv2", "--arch", "v1model", "-o", "out",
                      "--p4runtime-file", "out.p4info", "--p4runtime-format", "text",
                      str(PROGRAM))
    assert out.returncode == 0, out.stderr
    assert (harness.work / "out" / "l3_qdepth.json").is_file()
    assert "MyIngress.ipv4_lpm" in (harness.work / "out.p4info").read_text()


@pytest.mark.parametrize(("argv", "error"), [
    (["p4c-bm2-ss", "--bogus", "x.p4"], "p4c-bm2-ss: error: unknown option --bogus"),
    (["p4c", "--arch", "psa", "x.p4"], "p4c: error: --arch psa: p4emu runs v1model only"),
    (["p4c-bm2-ss", "--p4v", "14", "x.p4"],
     "p4c-bm2-ss: error: --p4v 14: p4emu compiles P4_16 only (--p4v 16)"),
    (["p4c-bm2-ss", "--p4runtime-files", "a.p4info", "x.p4"],
     "p4c-bm2-ss: error: a.p4info: unknown P4Runtime file kind; known suffixes are "
     ".txt, .txtpb, .json, .bin"),
    (["simple_switch_grpc", "--frobnicate", "--no-p4"],
     "simple_switch_grpc: error: unknown option --frobnicate"),
    (["simple_switch_grpc", "--no-p4", "--", "--grpc-server-addr"],
     "simple_switch_grpc: error: option --grpc-server-addr needs a value"),
])
def test_bad_command_lines_give_one_line(harness, argv, error):
    out = harness.run(*argv)
    assert (out.returncode, out.stderr) == (2, error + "\n")


def test_switch_started_with_the_compiled_json(harness):
    config, p4info = harness.compile()
    grpc_port, thrift_port = free_port(), free_port()
    proc = harness.start("simple_switch_grpc", "--device-id", "2", "--thrift-port",
                         str(thrift_port), "--nanolog", "ipc:///tmp/unused.ipc", str(config),
                         "--", "--grpc-server-addr", f"127.0.0.1:{grpc_port}")
    try:
        wait_ready(proc, grpc_port, thrift_port)
        with grpc.insecure_channel(f"127.0.0.1:{grpc_port}") as channel:
            got = p4runtime_pb2_grpc.P4RuntimeStub(channel).GetForwardingPipelineConfig(
                pb.GetForwardingPipelineConfigRequest(device_id=2)).config
        # no P4Info beside the JSON (its name differs): the switch derives it
        assert [t.preamble.id for t in got.p4info.tables] == \
            [t.preamble.id for t in p4info.tables]
        lines = harness.cli(thrift_port, "register_write MyEgress.max_qdepth 3 12\n"
                            "register_read MyEgress.max_qdepth 3\n"
                            "set_queue_depth 16\nset_queue_rate 500 1 0\n"
                            "table_add MyIngress.ipv4_lpm drop 10.0.0.0/8 =>\n"
                            "frobnicate 1\nregister_read MyEgress.nope 0\n")
    finally:
        code, stderr = stop(proc)
    assert lines == [
        "Control utility for runtime P4 table manipulation",
        "RuntimeCmd: RuntimeCmd: MyEgress.max_qdepth[3]= 12",
        "RuntimeCmd: RuntimeCmd: RuntimeCmd: Error: table_add is not supported by p4emu's "
        "runtime control; use P4Runtime for tables, multicast and mirroring",
        "RuntimeCmd: *** Unknown syntax: frobnicate 1",
        "RuntimeCmd: Error: no register named 'MyEgress.nope'",
        "RuntimeCmd: ",
    ]
    assert code == 0
    assert "simple_switch_grpc: note: --nanolog ignored (p4emu has no nanomsg sockets)" \
        in stderr.splitlines()


class Bmv2StyleConnection:
    """What BMv2-era P4Runtime helpers (the P4 tutorials' SwitchConnection) do, in short."""

    def __init__(self, address: str, device_id: int) -> None:
        self.device_id = device_id
        self.channel = grpc.insecure_channel(address)
        self.stub = p4runtime_pb2_grpc.P4RuntimeStub(self.channel)
        self.requests: queue.Queue = queue.Queue()
        self.stream = self.stub.StreamChannel(iter(self.requests.get, None))

    def master_arbitration_update(self) -> pb.StreamMessageResponse:
        req = pb.StreamMessageRequest()
        req.arbitration.device_id = self.device_id
        req.arbitration.election_id.high = 0
        req.arbitration.election_id.low = 1
        self.requests.put(req)
        return next(self.stream)

    def set_forwarding_pipeline_config(self, p4info, bmv2_json_file_path: Path) -> None:
        req = pb.SetForwardingPipelineConfigRequest(device_id=self.device_id)
        req.election_id.low = 1
        req.action = pb.SetForwardingPipelineConfigRequest.VERIFY_AND_COMMIT
        req.config.p4info.CopyFrom(p4info)
        req.config.p4_device_config = wrap(bmv2_json_file_path.read_bytes())
        self.stub.SetForwardingPipelineConfig(req)

    def write_table_entry(self, entry: pb.TableEntry) -> None:
        req = pb.WriteRequest(device_id=self.device_id)
        req.election_id.low = 1
        req.updates.add(type=pb.Update.INSERT).entity.table_entry.CopyFrom(entry)
        self.stub.Write(req)

    def shutdown(self) -> None:
        self.requests.put(None)
        self.stream.cancel()


def lpm_entry(p4info, prefix: bytes, prefix_len: int, port: int) -> pb.TableEntry:
    action = next(a for a in p4info.actions if a.preamble.name == "MyIngress.ipv4_forward")
    te = pb.TableEntry(table_id=p4info.tables[0].preamble.id)
    te.match.add(field_id=1).lpm.CopyFrom(pb.FieldMatch.LPM(value=prefix,
                                                             prefix_len=prefix_len))
    te.action.action.action_id = action.preamble.id
    for param, value in zip(action.params, (bytes([0, 0, 0, 0, 0, port]),
                                            bytes([0, 0, 0, 0, 0, 1]), bytes([0, port])),
                            strict=True):
        te.action.action.params.add(param_id=param.id, value=value)
    return te


# runs inside the namespace: one IPv4 frame in on h1, what comes out on h2
SEND_RECEIVE = r"""
import json, socket, struct, sys, time
h1, h2 = sys.argv[1:3]
rx = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(3))
rx.bind((h2, 0))
rx.settimeout(0.2)
ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 28, 1, 0, 64, 17, 0,
                 bytes([10, 1, 0, 1]), bytes([10, 0, 0, 7]))
words = struct.unpack("!10H", ip)
csum = sum(words)
csum = (csum & 0xFFFF) + (csum >> 16)
ip = ip[:10] + struct.pack("!H", ~csum & 0xFFFF) + ip[12:]
frame = bytes(6) + bytes([0, 0, 0, 0, 0, 0xAA]) + b"\x08\x00" + ip + bytes(8)
tx = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
tx.bind((h1, 0))
tx.send(frame)
deadline = time.time() + 5
while time.time() < deadline:
    try:
        got = rx.recv(2048)
    except socket.timeout:
        continue
    if got[12:14] == b"\x08\x00" and got[30:34] == bytes([10, 0, 0, 7]):
        print(json.dumps(got.hex()))
        break
else:
    print(json.dumps(None))
"""


@pytest.fixture
def veth_pairs():
    """Two veth pairs: switch ends here, host ends in a private netns (names shm...)."""
    if os.geteuid() != 0:
        reason = "creating veth pairs and a network namespace needs root"
        print(f"SKIPPED: {reason}")
        pytest.skip(reason)
    tag = f"shm{os.getpid() % 100000}"
    ns, links = tag, [(f"{tag}s{i}", f"{tag}h{i}") for i in (1, 2)]

    def ip(*args: str, check: bool = True) -> None:
        subprocess.run(["ip", *args], check=check, capture_output=True, timeout=10)

    try:
        ip("netns", "add", ns)
        for switch_end, host_end in links:
            ip("link", "add", switch_end, "type", "veth", "peer", "name", host_end,
               "netns", ns)
            ip("link", "set", switch_end, "up")
            ip("-n", ns, "link", "set", host_end, "up")
        yield ns, links
    finally:
        for switch_end, _ in links:
            ip("link", "del", switch_end, check=False)
        ip("netns", "del", ns, check=False)


def test_bmv2_style_harness_forwards_packets(harness, veth_pairs, tmp_path):
    ns, ((s1, h1), (s2, h2)) = veth_pairs
    config, p4info = harness.compile()
    grpc_port, thrift_port = free_port(), free_port()
    pcaps = tmp_path / "pcaps"
    proc = harness.start("simple_switch_grpc", "--device-id", "1", "-i", f"1@{s1}", "-i",
                         f"2@{s2}", "--thrift-port", str(thrift_port), "--log-file",
                         "build/s1.log", "--log-flush", "--dump-packet-data", "64",
                         "--pcap", str(pcaps), "--no-p4", "--", "--grpc-server-addr",
                         f"127.0.0.1:{grpc_port}", "--cpu-port", "255",
                         "--priority-queues", "2")
    try:
        wait_ready(proc, grpc_port, thrift_port)
        address = f"127.0.0.1:{grpc_port}"
        first = Bmv2StyleConnection(address, 1)
        assert first.master_arbitration_update().arbitration.status.code == 0
        first.set_forwarding_pipeline_config(p4info, config)
        first.write_table_entry(lpm_entry(p4info, bytes([10, 0, 0, 0]), 8, 2))
        first.shutdown()
        # the same controller back at once, with the same election id
        again = Bmv2StyleConnection(address, 1)
        assert again.master_arbitration_update().arbitration.status.code == 0
        again.write_table_entry(lpm_entry(p4info, bytes([10, 9, 0, 0]), 16, 1))
        lines = harness.cli(thrift_port, "set_queue_depth 32 2 1\nset_queue_rate 1000 2 0\n"
                            "show_ports\n")
        assert lines[1] == "RuntimeCmd: RuntimeCmd: RuntimeCmd: " + \
            f"{'port #':^10}{'iface name':^20}{'status':^10}extra info"
        assert [line.split() for line in lines[3:5]] == [["1", s1, "UP"], ["2", s2, "UP"]]
        sent = subprocess.run(["ip", "netns", "exec", ns, sys.executable, "-c", SEND_RECEIVE,
                               h1, h2], capture_output=True, text=True, timeout=30)
        frame = json.loads(sent.stdout or "null")
        assert frame is not None, sent.stderr
        frame = bytes.fromhex(frame)
        assert frame[:12] == bytes([0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 1])  # MACs rewritten
        assert frame[22] == 63  # TTL decremented
        counted = harness.cli(thrift_port, "counter_read MyEgress.tx_count 2\n")
        assert counted[1] == ("RuntimeCmd: MyEgress.tx_count[2]=  "
                              "BmCounterValue(packets=1, bytes=42)")
        again.shutdown()
    finally:
        code, stderr = stop(proc)
    assert code == 0, stderr
    assert (pcaps / f"{s2}_out.pcap").stat().st_size > 24  # more than the file header
    assert (harness.work / "build" / "s1.log").is_file()
