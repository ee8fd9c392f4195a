"""Where a packet-hop's CPU goes in the lab's switch processes: py-spy samples of the
running switches, each sample put in one category by the innermost frame that names one,
and the categories' shares turned into microseconds per packet-hop.

Used by `bench_fabric.py --profile DIR` (which records while the cross-pod load runs); also
on its own over saved samples:

    python scripts/hop_profile.py DIR/*.txt --cpu-per-hop-us 120
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

# (category, substrings of a frame's "function (file:line)"), innermost match wins; the
# order settles frames that match two (a generated table action calls the runtime)
CATEGORIES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("P4 program (generated code)", ("<p4emu generated>",)),
    ("table lookups, counters, externs (p4emu/runtime)", ("p4emu/runtime/",)),
    ("pipeline runner (p4emu/v1model)", ("p4emu/v1model/",)),
    ("queues (p4emu/switch/queues.py)", ("p4emu/switch/queues.py",)),
    ("port I/O: recv, send (p4emu/switch/ports.py)", ("p4emu/switch/ports.py",)),
    ("captures", ("p4emu/switch/pcap.py",)),
    ("traffic manager (p4emu/switch/traffic_manager.py)", ("p4emu/switch/traffic_manager.py",)),
    # a switch process's asyncio loop serves only P4Runtime; gRPC's completion-queue
    # poller thread is told by its name (py-spy --threads puts it first in each stack)
    (P4RUNTIME := "P4Runtime: gRPC, protobuf, streams", ("grpc", "google/protobuf", "p4emu/switch/grpc_server",
                                            "p4emu/switch/sessions", "p4emu/switch/packet_io",
                                            "p4emu/switch/stream_channel", "p4emu/switch/rpc_loop",
                                            "asyncio/",
                                            "p4emu/switch/notifications", "p4emu/switch/entity_")),
    ("Thrift (runtime CLI server)", ("thrift", "p4emu/switch/runtime_")),
    ("loop: epoll, wake-ups (p4emu/switch/dataplane_loop.py)",
     ("p4emu/switch/dataplane_loop.py", "selectors.py")),
    ("logging", ("logging/",)),
    ("threads, locks", ("threading.py", "queue.py")),
)
THREADS = "threads, locks"
POLLER_THREAD = "(_poll_wrapper)"  # grpc.aio's completion-queue poller
OTHER = "other"
WAITING = "waiting"
# innermost frames that block rather than run: py-spy cannot always
# tell a thread blocked in C from a running one, so these are set apart by name
BLOCKING = ("Condition.wait (", "Event.wait (", ".select (selectors.py", "sleep (",
            "_serve (grpc/_server.py:1314)",  # the completion queue's poll, in C
            "_worker (concurrent/futures/thread.py:81)")  # a pool thread's queue get, in C


def record(pid: int, seconds: float, out: Path, rate: int = 250) -> subprocess.Popen:
    """Start py-spy recording `pid` (all its threads, idle ones left out) into `out`."""
    spy = shutil.which("py-spy") or str(Path(sys.executable).with_name("py-spy"))
    return subprocess.Popen([spy, "record", "--pid", str(pid), "--duration",
                             str(int(seconds)), "--rate", str(rate), "--threads", "--format", "raw",
                             "--output", str(out)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def category(stack: str) -> str:
    """The category of one collapsed stack ("thread;outer;...;inner")."""
    frames = stack.split(";")
    if any(frames[-1].startswith(b) or b in frames[-1] for b in BLOCKING):
        return WAITING
    if frames[0].startswith("thread (") and POLLER_THREAD in frames[0]:
        return P4RUNTIME  # C code under Python frames that name no part
    for depth, frame in enumerate(reversed(frames)):
        for name, needles in CATEGORIES:
            # every thread starts in threading.py: only its innermost frame counts there
            if any(needle in frame for needle in needles) and (depth == 0 or
                                                               name != THREADS):
                return name
    return OTHER


def tally(paths: list[Path]) -> Counter[str]:
    """Samples per category over py-spy raw outputs ("stack count" lines)."""
    counts: Counter[str] = Counter()
    for path in paths:
        for line in path.read_text().splitlines():
            stack, _, count = line.rpartition(" ")
            if stack and count.isdigit():
                counts[category(stack)] += int(count)
    return counts


def report(counts: Counter[str], cpu_per_hop_us: float | None) -> list[str]:
    waiting = counts.pop(WAITING, 0)
    total = sum(counts.values())
    if not total:
        return ["no samples (was py-spy allowed to attach? it needs root)"]
    lines = [f"{total} samples of the switch processes' running threads "
             f"({waiting} more were blocked, left out)"]
    for name, n in counts.most_common():
        share = n / total
        us = f"{share * cpu_per_hop_us:6.1f} us/hop" if cpu_per_hop_us else ""
        lines.append(f"  {share:6.1%}  {us}  {name}")
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("samples", nargs="+", type=Path, help="py-spy --format raw outputs")
    parser.add_argument("--cpu-per-hop-us", type=float,
                        help="the measured switch CPU per packet-hop, to turn shares into us")
    args = parser.parse_args()
    missing = [str(p) for p in args.samples if not p.is_file()]
    if missing:
        parser.error(f"no such file: {', '.join(missing)}")
    print("\n".join(report(tally(args.samples), args.cpu_per_hop_us)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
