"""`python -m p4emu bench [PROG.p4] [--packets N] [--routes N] [--entries SETUP.stf]`.

Measures p4emu's single-core packet rate: packets run to completion through
`Pipeline.process`, one after another, on this process's one thread.

Without --entries the built-in L3 scenario runs on p4emu/bench_l3.p4 (or PROG.p4 when it
has the same tables): N /24 routes and /16 covering routes in `ipv4_lpm`, 64 next hops in
`nexthop`, source MACs per port in `smac`, and a mix of 256 packets to routed
destinations (three lookups each). With --entries, the STF file's table/PRE commands set
the device up and its `packet` lines are the traffic mix.
"""

from __future__ import annotations

import argparse
import logging
import time
from collections.abc import Callable
from pathlib import Path

from p4emu.cmdline import OneLineParser, UsageError, run_main
from p4emu.runtime.actions import ActionCall
from p4emu.runtime.device import DeviceState
from p4emu.runtime.match import Exact, Lpm
from p4emu.runtime.tables import TableEntry

DEFAULT_PROGRAM = Path(__file__).resolve().parent / "bench_l3.p4"
NEXT_HOPS = 64
PORTS = 8
MIX = 256

log = logging.getLogger(__name__)


def route_ip(i: int) -> int:
    """Destination prefix of route i: 10.x.y.0/24 (x, y from i)."""
    return (10 << 24) | ((i // 250) % 250 + 1) << 16 | (i % 250 + 1) << 8


def install_l3(state: DeviceState, routes: int) -> None:
    """Routes (/24 each, plus one /16 per 10.x), next hops and source MACs."""
    lpm = state.resolve_table("ipv4_lpm")
    nexthop = state.resolve_table("nexthop")
    smac = state.resolve_table("smac")
    set_nhop = state.resolve_action("set_nhop", lpm).id
    forward = state.resolve_action("forward", nexthop).id
    set_smac = state.resolve_action("set_smac", smac).id
    for n in range(NEXT_HOPS):
        nexthop.insert(TableEntry((Exact(n),), action=ActionCall(
            forward, (0x0000_0000_BB00 | n, n % PORTS + 1))))
    for port in range(1, PORTS + 1):
        smac.insert(TableEntry((Exact(port),), action=ActionCall(set_smac, (0xF0 | port,))))
    covering: set[int] = set()
    for i in range(routes):
        prefix = route_ip(i)
        lpm.insert(TableEntry((Lpm(prefix, 24),), action=ActionCall(set_nhop, (i % NEXT_HOPS,))))
        covering.add(prefix & 0xFFFF0000)
    for prefix in covering:
        lpm.insert(TableEntry((Lpm(prefix, 16),), action=ActionCall(set_nhop, (0,))))


def l3_packets(routes: int) -> list[tuple[int, bytes]]:
    """MIX IPv4 packets (64 bytes) to hosts inside the installed routes."""
    packets = []
    for k in range(MIX):
        dst = route_ip((k * 7919) % routes) | (k % 200 + 1)
        eth = bytes.fromhex("000000000001" "000000000002" "0800")
        ip = bytes.fromhex("45000032000000004011" "0000" "c0a80001") + dst.to_bytes(4, "big")
        packets.append((k % PORTS + 1, (eth + ip).ljust(64, b"\x00")))
    return packets


def stf_setup(state: DeviceState, path: str) -> list[tuple[int, bytes]]:
    """Run the STF file's set-up commands; its packet lines become the mix."""
    from p4emu.stf import commands as c
    from p4emu.stf.parser import parse_stf
    from p4emu.stf.runner import StfRun

    packets: list[tuple[int, bytes]] = []
    run = StfRun(state, lambda port, data, now: [], path)
    for cmd in parse_stf(Path(path).read_text(), path):
        if isinstance(cmd, c.Packet):
            packets.append((cmd.port, cmd.data))
        else:
            run.execute(cmd)
    return packets


def measure(process: Callable[[int, bytes, int], list], packets: list[tuple[int, bytes]],
            count: int) -> tuple[float, int]:
    """(seconds, packets out) for `count` packets cycling through `packets`."""
    n = len(packets)
    out = 0
    start = time.perf_counter()
    for i in range(count):
        port, data = packets[i % n]
        out += len(process(port, data, i))
    return time.perf_counter() - start, out


def main(argv: list[str]) -> int:
    ap = OneLineParser(prog="p4emu bench", description=__doc__.splitlines()[0],
                       error_prefix="p4emu bench")
    ap.add_argument("program", nargs="?", default=str(DEFAULT_PROGRAM))
    ap.add_argument("--packets", type=int, default=30000, help="packets to run (30000)")
    ap.add_argument("--routes", type=int, default=1000, help="/24 routes to install (1000)")
    ap.add_argument("--entries", metavar="SETUP.stf",
                    help="set up from this STF file and send its packets instead")
    ap.add_argument("-I", dest="include", action="append", default=[], metavar="DIR")
    ap.add_argument("--pipeline", choices=("python", "native", "both"), default="python",
                    help="the generated Python pipeline (default), p4emu.native's compiled "
                         "C one, or both, each on its own device with the same set-up and "
                         "packets")
    args = ap.parse_args(argv)
    from p4emu.lang.errors import P4CompileError
    from p4emu.stf.parser import StfError

    # KeyError: a table or action of the scenario the program does not have
    return run_main("p4emu bench", lambda: _bench(args),
                    {(UsageError, P4CompileError, StfError, KeyError, OSError): 2},
                    plain=(P4CompileError,))


def _bench(args: argparse.Namespace) -> int:
    if args.packets < 1 or args.routes < 1:
        raise UsageError("--packets and --routes must be positive")
    if not Path(args.program).is_file():
        raise UsageError(f"{args.program}: no such file")
    from p4emu.compiler import load_ir
    from p4emu.frontend import compile_file
    from p4emu.v1model.pipeline import Pipeline

    program = load_ir(compile_file(args.program, include_dirs=tuple(args.include)).ir)
    runs = [] if args.pipeline == "native" else [("python", Pipeline)]
    if args.pipeline != "python":
        from p4emu.native import NativeUnsupported, load_native
        from p4emu.native.pipeline import NativePipeline

        try:
            load_native(program)
        except NativeUnsupported as exc:
            raise UsageError(f"--pipeline {args.pipeline}: {exc}") from None
        runs.append(("native", NativePipeline))
    print(f"program: {args.program}")
    for label, make in runs:
        state = DeviceState.from_program(program.info, clock_us=lambda: 0)
        pipeline = make(program, state)
        if args.entries:
            packets = stf_setup(state, args.entries)
            scenario = f"STF set-up {args.entries}"
        else:
            install_l3(state, args.routes)
            packets = l3_packets(args.routes)
            scenario = f"L3: {args.routes} /24 routes, {NEXT_HOPS} next hops, 3 lookups/packet"
        if not packets:
            raise UsageError("no packets to send")
        measure(pipeline.process, packets, min(1000, args.packets))  # warm-up
        seconds, out = measure(pipeline.process, packets, args.packets)
        prefix = f"{label}: " if args.pipeline == "both" else ""
        if label == runs[0][0]:
            print(f"scenario: {scenario}")
        print(f"{prefix}packets: {args.packets} in, {out} out, {seconds:.3f} s")
        print(f"{prefix}rate: {args.packets / seconds:,.0f} packets/s (one core)")
    return 0
