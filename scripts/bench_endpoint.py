"""Benchmark the MRC endpoint: core packets/s, simulator speed, and real I/O on a veth pair.

    sudo .venv/bin/python scripts/bench_endpoint.py [--size 32M] [--skip-veth]

Prints figures; it is not a test. The veth part needs root and creates two network
namespaces (removed at the end, also on failure).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from mrclab.endpoint.cli import parse_size, pseudo_random_bytes  # noqa: E402
from mrclab.endpoint.core.receiver import MrcReceiver, ReceiverConfig  # noqa: E402
from mrclab.endpoint.core.sender import MrcSender, SenderConfig  # noqa: E402
from mrclab.endpoint.netio import FrameAddress, FrameBuilder, parse_frame  # noqa: E402
from mrclab.endpoint.report import SenderReport  # noqa: E402
from mrclab.endpoint.wire import MrcHeader, MsgType  # noqa: E402
from mrclab.sim.pathmodel import PathSpec, run_transfer  # noqa: E402
from p4emu.cmdline import UsageError, run_main  # noqa: E402


def bench_core(size: int) -> None:
    """Sender and receiver cores back to back, no network: the protocol logic's cost."""
    data = pseudo_random_bytes(size, 1)
    tx = MrcSender(data, 1, SenderConfig(seed=1, init_cwnd=64))
    rx = MrcReceiver(ReceiverConfig(seed=2))
    now, packets = 0.0, 0
    start = time.perf_counter()
    while not tx.done:
        now += 1e-5
        for out in tx.poll(now):
            packets += 1
            for reply in rx.on_packet("p", out.header, out.payload, False, now):
                tx.on_packet(out.plane, reply.header, now + 1e-5)
    wall = time.perf_counter() - start
    print(f"core loopback       : {packets} data packets in {wall:.2f} s = "
          f"{packets / wall:,.0f} pkt/s ({size * 8 / wall / 1e6:,.0f} Mb/s of payload)")


def bench_framing(count: int = 50_000) -> None:
    addr = FrameAddress.of("02:00:00:00:00:01", "02:00:00:00:00:02", "10.0.0.1", "10.0.0.2")
    builder = FrameBuilder(addr)
    payload = bytes(1432)
    hdr = MrcHeader(type=MsgType.DATA, ev=1, conn=2, psn=3, length=1432)
    start = time.perf_counter()
    frames = [builder.build(hdr, payload) for _ in range(count)]
    built = time.perf_counter() - start
    start = time.perf_counter()
    for frame in frames:
        parse_frame(frame)
    parsed = time.perf_counter() - start
    print(f"framing             : build {count / built:,.0f} frames/s, "
          f"parse {count / parsed:,.0f} frames/s")


def bench_sim(size: int) -> None:
    start = time.perf_counter()
    r = run_transfer(size, [[PathSpec() for _ in range(8)]], seed=1)
    wall = time.perf_counter() - start
    s = r.sender.stats
    print(f"simulator (8 paths) : {s.data_sent} data packets, {r.events} events in "
          f"{wall:.2f} s = {s.data_sent / wall:,.0f} pkt/s, {r.events / wall:,.0f} events/s; "
          f"simulated goodput {r.goodput_bps / 1e6:.0f} Mb/s")


def _ns(name: str, *cmd: str, **kw) -> subprocess.CompletedProcess:
    return subprocess.run(["ip", "netns", "exec", name, *cmd], check=True,
                          capture_output=True, text=True, **kw)


def bench_veth(size: str) -> None:
    tag = f"mrcb{os.getpid() % 10000}"
    ns_a, ns_b, if_a, if_b = f"{tag}a", f"{tag}b", f"{tag}a0", f"{tag}b0"
    recv = None
    try:
        for ns in (ns_a, ns_b):
            subprocess.run(["ip", "netns", "add", ns], check=True)
            _ns(ns, "ip", "link", "set", "lo", "up")
        subprocess.run(["ip", "link", "add", if_a, "type", "veth", "peer", "name", if_b],
                       check=True)
        for ns, ifc, addr in ((ns_a, if_a, "10.78.0.1/24"), (ns_b, if_b, "10.78.0.2/24")):
            subprocess.run(["ip", "link", "set", ifc, "netns", ns], check=True)
            _ns(ns, "ip", "addr", "add", addr, "dev", ifc)
            _ns(ns, "ip", "link", "set", ifc, "up")
        mac_b = _ns(ns_b, "cat", f"/sys/class/net/{if_b}/address").stdout.strip()
        mac_a = _ns(ns_a, "cat", f"/sys/class/net/{if_a}/address").stdout.strip()
        _ns(ns_a, "ip", "neigh", "replace", "10.78.0.2", "lladdr", mac_b, "dev", if_a)
        _ns(ns_b, "ip", "neigh", "replace", "10.78.0.1", "lladdr", mac_a, "dev", if_b)
        with tempfile.TemporaryDirectory() as tmp:
            py = [sys.executable, "-m", "mrclab.endpoint"]
            recv = subprocess.Popen(["ip", "netns", "exec", ns_b, *py, "recv", "--iface", if_b,
                                     "--once", "--json", f"{tmp}/r.json"], cwd=ROOT,
                                    stdout=subprocess.PIPE, text=True)
            recv.stdout.readline()
            start = time.perf_counter()
            res = subprocess.run(["ip", "netns", "exec", ns_a, *py, "send", "--dst",
                                  "10.78.0.2", "--size", size, "--json", f"{tmp}/s.json"],
                                 cwd=ROOT, capture_output=True, text=True, timeout=300)
            wall = time.perf_counter() - start
            recv.wait(timeout=30)
            if res.returncode != 0:
                print(f"veth transfer failed: {res.stderr.strip()}")
                return
            s = SenderReport.from_json(json.loads(Path(f"{tmp}/s.json").read_text()))
        t, c = s.completion_time_s, s.counters
        print(f"veth send/recv      : {s.bytes} bytes in {t:.2f} s (process {wall:.2f} s): "
              f"goodput {s.goodput_mbps:.0f} Mb/s, {c.data_packets_sent / t:,.0f} data "
              f"pkt/s + {c.acks / t:,.0f} ACK pkt/s, retransmits {c.retransmits}, "
              f"timeouts {c.timeouts}, srtt {s.rtt.srtt_ms} ms")
    finally:
        if recv is not None and recv.poll() is None:
            recv.kill()
            recv.wait()
        for ns in (ns_a, ns_b):
            subprocess.run(["ip", "netns", "del", ns], capture_output=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size", default="32M", help="transfer size (K/M/G suffixes)")
    parser.add_argument("--skip-veth", action="store_true", help="no root part")
    args = parser.parse_args()
    return run_main("error", lambda: bench_all(args), {UsageError: 2})


def bench_all(args: argparse.Namespace) -> int:
    size = parse_size(args.size)
    bench_core(min(size, 8 << 20))
    bench_framing()
    bench_sim(min(size, 8 << 20))
    if args.skip_veth:
        return 0
    if os.geteuid() != 0:
        print("veth part skipped: needs root", file=sys.stderr)
        return 0
    bench_veth(args.size)
    return 0


if __name__ == "__main__":
    sys.exit(main())
