#!/usr/bin/env python3
"""Benchmark one p4emu switch between two network namespaces (root needed); prints figures.

Measures: packets/s forwarded h1 -> h2 (64 B and 1500 B UDP frames, offered as fast as a
Python sender can, counted by a UDP socket that h2 reads as iperf's server does; the frames
its full buffer dropped are printed beside), added latency (ping RTT through the switch vs
a direct veth pair), and the P4Runtime write rate (table entries/s, one per Write and
batched).

Targets: ``p4emu`` compiles tests/p4/switch/l3_qdepth.p4 (an L3 LPM forwarder, as
tutorials' basic.p4) and runs `python -m p4emu switch` as a separate process; ``bmv2``
compiles the same program with p4c-bm2-ss and runs `simple_switch_grpc` (logging off) with
the same arguments, pushed over the same P4Runtime client and driven by the same senders;
``both`` runs one after the other and prints p4emu's packet rates over BMv2's. `--pipeline`
chooses p4emu's P4 pipeline (auto: the compiled C one where the program allows),
`--traffic-manager` its queues and per-packet loops (auto: the compiled C ones).
"""

from __future__ import annotations

import argparse
import ipaddress
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from p4emu.cmdline import UsageError, run_main  # noqa: E402

PY = sys.executable
TAG = f"{os.getpid() % 10000}"
H1, H2, D1, D2 = f"bh1-{TAG}", f"bh2-{TAG}", f"bd1-{TAG}", f"bd2-{TAG}"
SW1, SW2, DV = f"bs{TAG}a", f"bs{TAG}b", f"bd{TAG}v"


def sh(*cmd: str, check: bool = True) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, check=check, capture_output=True, text=True, timeout=120)


def ns(name: str, *cmd: str, check: bool = True) -> subprocess.CompletedProcess:
    return sh("ip", "netns", "exec", name, *cmd, check=check)


def quiet(iface: str, netns: str | None = None) -> None:
    prefix = ("ip", "netns", "exec", netns) if netns else ()
    sh(*prefix, "ethtool", "-K", iface, "tx", "off", "rx", "off", "tso", "off", "gso", "off",
       "gro", "off", check=False)
    sh(*prefix, "sysctl", "-q", "-w", f"net.ipv6.conf.{iface}.disable_ipv6=1", check=False)


def build() -> None:
    for host, sw, addr, subnet in ((H1, SW1, "10.0.1.1/24", 1), (H2, SW2, "10.0.2.2/24", 2)):
        sh("ip", "netns", "add", host)
        sh("ip", "link", "add", sw, "type", "veth", "peer", "name", "eth0", "netns", host)
        ns(host, "ip", "link", "set", "eth0", "address", f"00:00:00:00:00:0{subnet}")
        ns(host, "ip", "addr", "add", addr, "dev", "eth0")
        for iface, where in (("eth0", host), (sw, None)):
            quiet(iface, where)
        ns(host, "ip", "link", "set", "eth0", "up")
        ns(host, "ip", "link", "set", "lo", "up")
        sh("ip", "link", "set", sw, "up")
        gw = f"10.0.{subnet}.254"
        ns(host, "ip", "neigh", "add", gw, "lladdr", f"00:00:00:00:0{subnet}:fe", "dev", "eth0")
        ns(host, "ip", "route", "add", "default", "via", gw)
    # the baseline: the same two hosts' worth of veth, directly connected
    sh("ip", "netns", "add", D1)
    sh("ip", "netns", "add", D2)
    sh("ip", "link", "add", DV, "netns", D1, "type", "veth", "peer", "name", "eth0", "netns", D2)
    ns(D1, "ip", "link", "set", DV, "name", "eth0")
    for host, addr in ((D1, "10.9.0.1/24"), (D2, "10.9.0.2/24")):
        ns(host, "ip", "addr", "add", addr, "dev", "eth0")
        quiet("eth0", host)
        ns(host, "ip", "link", "set", "eth0", "up")


def teardown() -> None:
    for name in (H1, H2, D1, D2):
        sh("ip", "netns", "del", name, check=False)
    for iface in (SW1, SW2):
        sh("ip", "link", "del", iface, check=False)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# ------------------------------------------------------------------ P4Runtime client
def push_and_route(grpc_port: int, p4info, device_config: bytes):
    import grpc
    from p4.v1 import p4runtime_pb2 as pb
    from p4.v1 import p4runtime_pb2_grpc

    channel = grpc.insecure_channel(f"127.0.0.1:{grpc_port}")
    grpc.channel_ready_future(channel).result(timeout=30)
    stub = p4runtime_pb2_grpc.P4RuntimeStub(channel)
    req = pb.SetForwardingPipelineConfigRequest(
        device_id=1, action=pb.SetForwardingPipelineConfigRequest.VERIFY_AND_COMMIT)
    req.config.p4info.CopyFrom(p4info)
    req.config.p4_device_config = device_config
    stub.SetForwardingPipelineConfig(req)
    table = next(t for t in p4info.tables if t.preamble.name.endswith("ipv4_lpm"))
    action = next(a for a in p4info.actions if a.preamble.name == L3_FORWARD)

    def entry(addr: int, plen: int, port: int, subnet: int) -> pb.Update:
        te = pb.TableEntry(table_id=table.preamble.id)
        fm = te.match.add(field_id=table.match_fields[0].id)
        fm.lpm.value = addr.to_bytes(4, "big")
        fm.lpm.prefix_len = plen
        te.action.action.action_id = action.preamble.id
        for param in action.params:
            value = {"port": port.to_bytes(2, "big"),
                     "dstAddr": bytes([0, 0, 0, 0, 0, subnet]),
                     "srcAddr": bytes([0, 0, 0, 0, subnet, 0xFE])}[param.name]
            te.action.action.params.add(param_id=param.id, value=value)
        return pb.Update(type=pb.Update.INSERT, entity=pb.Entity(table_entry=te))

    routes = [entry(int(ipaddress.IPv4Address("10.0.1.1")), 32, 1, 1),
              entry(int(ipaddress.IPv4Address("10.0.2.2")), 32, 2, 2)]
    stub.Write(pb.WriteRequest(device_id=1, updates=routes))
    return stub, entry, table.size


def write_rate(stub, entry, count: int, batch: int) -> tuple[float, float]:
    from p4.v1 import p4runtime_pb2 as pb

    base = int(ipaddress.IPv4Address("20.0.0.0"))
    updates = [entry(base + i, 32, 2, 2) for i in range(2 * count)]
    start = time.perf_counter()
    for update in updates[:count]:
        stub.Write(pb.WriteRequest(device_id=1, updates=[update]))
    single = count / (time.perf_counter() - start)
    start = time.perf_counter()
    for i in range(count, 2 * count, batch):
        stub.Write(pb.WriteRequest(device_id=1, updates=updates[i:i + batch]))
    batched = count / (time.perf_counter() - start)
    return single, batched


# ------------------------------------------------------------------ traffic
# The sink is a bound UDP socket. veth hands a frame to the destination's stack inside the
# switch's send(2), so whatever h2's kernel does per frame is billed to the switch: with
# no socket on the port it routed an ICMP port-unreachable for every frame (the rate limit
# then sends few), and a packet tap cloned each one: 19 % of p4emu's CPU at 1500 B
# (docs/lab-capacity.md, session 17).
RECEIVER = """
import socket, time, sys
def rcvbuf_errors():  # UDP datagrams this namespace dropped at a full socket buffer
    lines = [l.split() for l in open("/proc/net/snmp") if l.startswith("Udp:")]
    return int(lines[1][lines[0].index("RcvbufErrors")])
dropped0 = rcvbuf_errors()
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 << 20)
s.bind(("0.0.0.0", 4793)); s.settimeout(0.2)
buf = bytearray(65536)
end = time.time() + float(sys.argv[1]); n = 0; first = last = None
while time.time() < end:
    try:
        s.recv_into(buf)
    except socket.timeout:
        continue
    n += 1; last = time.time(); first = first or last
print(n, first or 0, last or 0, rcvbuf_errors() - dropped0)
"""

SENDER = """
import socket, time, sys
size, duration = int(sys.argv[1]), float(sys.argv[2])
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
payload = bytes(size - 42); end = time.time() + duration; n = 0
while time.time() < end:
    for _ in range(100):
        try:
            s.sendto(payload, ("10.0.2.2", 4793)); n += 1
        except OSError:
            pass
print(n)
"""


def throughput(size: int, duration: float) -> tuple[float, float, int, int, int]:
    """(offered packets/s, forwarded packets/s, sent, received, dropped by the sink)"""
    receiver = subprocess.Popen(["ip", "netns", "exec", H2, PY, "-c", RECEIVER,
                                 str(duration + 2.0)], stdout=subprocess.PIPE, text=True)
    time.sleep(0.3)
    sender = ns(H1, PY, "-c", SENDER, str(size), str(duration))
    out, _ = receiver.communicate(timeout=duration + 30)
    sent = int(sender.stdout.strip())
    received, first, last, dropped = out.split()
    received_n = int(received)
    span = max(float(last) - float(first), 1e-6)
    return (sent / duration, received_n / span if received_n > 1 else 0.0, sent, received_n,
            int(dropped))


def ping_rtt(netns: str, dst: str, count: int = 50) -> float:
    out = ns(netns, "ping", "-q", "-c", str(count), "-i", "0.02", dst).stdout
    match = re.search(r"= [\d.]+/([\d.]+)/", out)
    return float(match.group(1)) if match else float("nan")


L3_PROGRAM = REPO / "tests/p4/switch/l3_qdepth.p4"
L3_FORWARD = "MyIngress.ipv4_forward"  # its routes' action


def start_switch(target: str, grpc_port: int, build_dir: Path, pipeline: str = "auto",
                 traffic_manager: str = "auto"):
    """The switch process of `target` on the two ports, and what to push to it."""
    from mrclab.controller.p4rt_codec import load_p4info
    from mrclab.lab.target import compile_program
    from mrclab.mininet.p4switch import switch_command
    from mrclab.mininet.queues import QueueOptions

    compiled = compile_program(target, build_dir / target, L3_PROGRAM)
    p4info = load_p4info(compiled.p4info)
    cmd = switch_command(target, 1, {1: SW1, 2: SW2}, grpc_port, free_port(), 255, None, None,
                         QueueOptions(priority_queues=1))
    if target == "p4emu":
        # target options: switch_args ends after "--"
        cmd += ["--pipeline", pipeline, "--traffic-manager", traffic_manager]
    proc = subprocess.Popen(cmd, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return proc, p4info, compiled.device_config.read_bytes()


def measure(target: str, args: argparse.Namespace, build_dir: Path) -> dict:
    """Build the namespaces, run one switch of `target`, measure, tear down."""
    proc = None
    results: dict[str, object] = {"target": target}
    if target == "p4emu":
        results["pipeline"] = args.pipeline
        results["traffic_manager"] = args.traffic_manager
    try:
        build()
        grpc_port = free_port()
        proc, p4info, device_config = start_switch(target, grpc_port, build_dir, args.pipeline,
                                                    args.traffic_manager)
        stub, entry, table_size = push_and_route(grpc_port, p4info, device_config)
        ping_rtt(H1, "10.0.2.2", 5)  # warm-up
        for frame_size in (64, 1500):
            offered, forwarded, sent, received, dropped = throughput(frame_size, args.duration)
            results[f"pps_{frame_size}B"] = round(forwarded)
            results[f"offered_pps_{frame_size}B"] = round(offered)
            results[f"delivered_{frame_size}B"] = f"{received}/{sent}"
            results[f"sink_dropped_{frame_size}B"] = dropped
        through = ping_rtt(H1, "10.0.2.2")
        direct = ping_rtt(D1, "10.9.0.2")
        results["rtt_switch_ms"] = through
        results["rtt_direct_ms"] = direct
        results["added_latency_ms"] = round(through - direct, 3)
        # both phases must fit the table next to the two routes
        count = min(args.entries, (table_size - 2) // 2) if table_size else args.entries
        results["write_entries"] = count
        single, batched = write_rate(stub, entry, count, args.batch)
        results["writes_per_s_single"] = round(single)
        results[f"writes_per_s_batch{args.batch}"] = round(batched)
    finally:
        if proc is not None:
            proc.terminate()
            proc.wait(timeout=10)
        teardown()
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--target", choices=("p4emu", "bmv2", "both"), default="p4emu")
    parser.add_argument("--duration", type=float, default=3.0)
    parser.add_argument("--entries", type=int, default=2000)
    parser.add_argument("--batch", type=int, default=500)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--pipeline", choices=("auto", "native", "python"), default="auto",
                        help="p4emu's P4 pipeline (p4emu switch -- --pipeline)")
    parser.add_argument("--traffic-manager", choices=("auto", "native", "python"),
                        default="auto", help="p4emu's traffic manager (p4emu switch -- "
                        "--traffic-manager)")
    args = parser.parse_args()
    return run_main("bench_switch", lambda: bench(args), {UsageError: 2})


def bench(args: argparse.Namespace) -> int:
    if os.geteuid() != 0:
        print("bench_switch: needs root (network namespaces)", file=sys.stderr)
        return 1
    targets = ["p4emu", "bmv2"] if args.target == "both" else [args.target]
    if "bmv2" in targets:
        from mrclab.lab.target import resolve_target

        try:
            resolve_target("bmv2")
        except ValueError as exc:  # not installed: bad input here, not a failed run
            raise UsageError(str(exc)) from None
    with tempfile.TemporaryDirectory(prefix="bench_switch_") as tmp:
        runs = [measure(target, args, Path(tmp)) for target in targets]
    results: dict[str, object] = runs[0] if len(runs) == 1 else {
        **{f"{r['target']}_{key}": value for r in runs for key, value in r.items()
           if key != "target"},
        **{f"p4emu_over_bmv2_pps_{size}B": round(runs[0][f"pps_{size}B"]
                                                 / max(runs[1][f"pps_{size}B"], 1), 2)
           for size in (64, 1500)}}
    if args.json:
        print(json.dumps(results))
    else:
        for key, value in results.items():
            print(f"{key:>32}: {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
