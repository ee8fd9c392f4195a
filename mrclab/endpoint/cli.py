"""`python -m mrclab.endpoint send|recv`: the MRC endpoint on a real host (root, raw sockets).

    python -m mrclab.endpoint recv [--iface IF ...] [--out FILE|DIR] [--once | --count N] [--json F]
    python -m mrclab.endpoint send --dst IP[,IP...] (--size 8M | --file PATH) [--evs 64]
                            [--json stats.json] [--timeout S]
    python -m mrclab.endpoint blast --dst IP --count N [--ev cycle|random|EV] [--route L1,L2,..]

Each `--dst` IP (or each `--iface` for one IP) is a plane with its own EV pool. Exit status:
0 on success, 1 when the transfer failed, 2 for bad input.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import logging
import random
import re
import signal
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from mrclab.endpoint.core.ev_pool import check_routes
from mrclab.endpoint.core.receiver import Message, ReceiverConfig
from mrclab.endpoint.core.sender import MrcSender
from mrclab.endpoint.core.sender_config import (
    EMULATED_MAX_CWND,
    EMULATED_MIN_RTO,
    emulated_fabric_config,
)
from mrclab.endpoint.kernel_routes import Plane, RouteError, host_interfaces, resolve_plane
from mrclab.endpoint.runner import DEFAULT_LINGER, mss_for, run_receiver, run_sender, write_message
from mrclab.endpoint.wire import MsgType, parse_route, parse_routes
from p4emu.cmdline import OneLineParser, UsageError, run_main

if TYPE_CHECKING:  # mrclab.endpoint.blast imports Scapy (~1 CPU-second): only `blast` pays for it
    from mrclab.endpoint.blast import BlastPlan

_SUFFIX = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}


def parse_size(text: str) -> int:
    """'8M' -> 8388608; K/M/G are powers of 1024; a plain number is bytes."""
    m = re.fullmatch(r"\s*(\d+)\s*([KMGkmg]?)(?:i?[Bb])?\s*", text)
    if not m:
        raise UsageError(f"bad size {text!r}: expected a number with optional K/M/G suffix")
    size = int(m.group(1)) * _SUFFIX[m.group(2).upper()]
    if size > 0xFFFFFFFF:
        raise UsageError(f"size {text!r} exceeds the 4 GiB message limit")
    return size


def _positive(kind: Callable[[str], float], name: str) -> Callable[[str], float]:
    """An argparse type that accepts only positive numbers of `kind`."""

    def check(text: str) -> float:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"bad {name} {text!r}") from None
        if value <= 0:
            raise argparse.ArgumentTypeError(f"{name} must be positive, got {text!r}")
        return value
    return check


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(prog="python -m mrclab.endpoint", description=__doc__.split("\n")[0])
    parser.add_argument("-v", "--verbose", action="count", default=0)
    sub = parser.add_subparsers(dest="command", required=True)

    send = sub.add_parser("send", help="send one message")
    send.add_argument("--dst", required=True, help="receiver IPv4 address(es), comma-separated")
    what = send.add_mutually_exclusive_group(required=True)
    what.add_argument("--size", help="send this many pseudo-random bytes (K/M/G suffixes)")
    what.add_argument("--file", type=Path, help="send this file")
    send.add_argument("--iface", action="append", default=[], help="source interface(s)")
    send.add_argument("--evs", type=_positive(int, "--evs"), default=64,
                      help="entropy values per plane (default 64)")
    send.add_argument("--mss", type=_positive(int, "--mss"), help="payload bytes per packet")
    send.add_argument("--timeout", type=_positive(float, "--timeout"), default=60.0,
                      help="give up after this many seconds (default 60)")
    send.add_argument("--idle-timeout", type=_positive(float, "--idle-timeout"), default=5.0,
                      help="give up when the receiver is silent this long (default 5)")
    # the RTO floor for emulated fabrics (why: mrclab.endpoint.core.sender_config)
    send.add_argument("--min-rto", type=_positive(float, "--min-rto"),
                      default=EMULATED_MIN_RTO, help="minimum retransmission timeout in "
                      f"seconds (default {EMULATED_MIN_RTO:g})")
    send.add_argument("--init-cwnd", type=_positive(float, "--init-cwnd"), default=16.0)
    send.add_argument("--max-cwnd", type=_positive(float, "--max-cwnd"),
                      default=EMULATED_MAX_CWND)
    send.add_argument("--qmax-threshold", type=int, default=0,
                      help="echoed qmax at or above this counts as congestion (0: off)")
    send.add_argument("--route", action="append", default=[], metavar="[PLANE:]LABELS",
                      help="a source route to spray over, e.g. 3,1,2,4,1 (repeat for each "
                      "path; PLANE: the --dst address it is for, from 0); for spray mode "
                      "source. Default: the fabric hashes the EVs")
    send.add_argument("--seed", type=int, default=None, help="EV pool / payload seed")
    send.add_argument("--json", type=Path, help="write the summary as JSON here")

    gen = sub.add_parser("blast", help="send raw MRC packets (no transport) for data-plane tests")
    gen.add_argument("--dst", required=True, help="destination IPv4 address")
    gen.add_argument("--iface", help="source interface (default: the route's)")
    gen.add_argument("--count", type=_positive(int, "--count"), required=True)
    gen.add_argument("--payload", type=int, default=1000, help="payload bytes (default 1000)")
    gen.add_argument("--type", choices=[t.name.lower() for t in MsgType], default="data")
    gen.add_argument("--ev", default="cycle",
                     help="EV per packet: cycle, random or a fixed number (default cycle)")
    gen.add_argument("--evs", type=_positive(int, "--evs"), default=64,
                     help="distinct EVs for cycle/random (default 64)")
    gen.add_argument("--first-ev", type=int, default=1, help="first EV of the pool")
    gen.add_argument("--route", default="", help="source-route labels, e.g. 3,4,2 (first hop first)")
    gen.add_argument("--rate", type=float, default=2000.0, help="packets/s, 0 = unpaced")
    gen.add_argument("--seed", type=int, default=1)
    gen.add_argument("--json", type=Path, help="write the summary as JSON here")

    recv = sub.add_parser("recv", help="receive messages")
    recv.add_argument("--iface", action="append", default=[],
                      help="interface(s) to listen on (default: every non-loopback one)")
    recv.add_argument("--out", type=Path, help="file (or directory) for received messages")
    recv.add_argument("--once", action="store_true", help="exit after one message")
    recv.add_argument("--count", type=_positive(int, "--count"),
                      help="exit after this many messages")
    recv.add_argument("--linger", type=_positive(float, "--linger"), default=DEFAULT_LINGER,
                      help="keep answering this long after the last packet (default "
                           f"{DEFAULT_LINGER:g} s: longer than a sender waits between tries)")
    recv.add_argument("--timeout", type=_positive(float, "--timeout"),
                      help="give up (exit 1) when the messages have not all come after S s")
    recv.add_argument("--json", type=Path, help="write receiver statistics as JSON here")
    recv.add_argument("--link-rate", type=_positive(float, "--link-rate"), metavar="MBIT_S",
                      help="the interfaces' rate: NACKs then give each trimmed packet's resend "
                           "a turn, a frame apart per interface (default: resend at once)")
    return parser


def _planes(args: argparse.Namespace) -> list[Plane]:
    try:
        return [resolve_plane(d, i) for d, i in _plane_pairs(args)]
    except RouteError as exc:
        raise UsageError(f"--dst: {exc}") from None


def _plane_pairs(args: argparse.Namespace) -> list[tuple[str, str | None]]:
    """(destination address, source interface or None) per plane, from --dst / --iface."""
    dsts = [d.strip() for d in args.dst.split(",") if d.strip()]
    ifaces = [i for arg in args.iface for i in arg.split(",") if i]
    if not dsts:
        raise UsageError("--dst: no address given")
    if ifaces and len(dsts) == 1:
        pairs = [(dsts[0], i) for i in ifaces]
    elif ifaces and len(ifaces) == len(dsts):
        pairs = list(zip(dsts, ifaces, strict=True))
    elif ifaces:
        raise UsageError("--iface: give one per --dst address, or several for one address")
    else:
        pairs = [(d, None) for d in dsts]
    return pairs


def _payload(args: argparse.Namespace, seed: int) -> bytes:
    if args.file is not None:
        try:
            return args.file.read_bytes()
        except OSError as exc:
            raise UsageError(f"--file {args.file}: {exc.strerror}") from None
    return pseudo_random_bytes(parse_size(args.size), seed)


def pseudo_random_bytes(size: int, seed: int) -> bytes:
    """Reproducible payload (`randbytes` alone cannot make more than 256 MiB at once)."""
    rng = random.Random(seed)
    block = 1 << 20
    return b"".join(rng.randbytes(min(block, size - i)) for i in range(0, size, block))


def _write_json(path: Path | None, data: dict[str, object], flag: str) -> None:
    if path is None:
        return
    try:
        path.write_text(json.dumps(data, indent=2) + "\n")
    except OSError as exc:
        raise UsageError(f"{flag} {path}: {exc.strerror}") from None


def _routes(texts: list[str], planes: int, evs: int) -> tuple[tuple[int, ...], ...]:
    try:
        routes = parse_routes(texts, planes)
        check_routes(routes, planes, evs)
    except ValueError as exc:
        raise UsageError(f"--route: {exc}") from None
    return routes


def cmd_send(args: argparse.Namespace) -> int:
    if args.size is not None:
        parse_size(args.size)  # bad sizes fail before any network lookup
    seed = args.seed if args.seed is not None else random.SystemRandom().getrandbits(32)
    routes = _routes(args.route, len(_plane_pairs(args)), args.evs)
    planes = _planes(args)
    try:
        mss = mss_for(planes, args.mss)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    data = _payload(args, seed)
    cfg = emulated_fabric_config(
        args.min_rto, mss=mss, evs_per_plane=min(args.evs, 65535), init_cwnd=args.init_cwnd,
        max_cwnd=args.max_cwnd, qmax_threshold=args.qmax_threshold,
        idle_timeout=min(args.idle_timeout, args.timeout), seed=seed,
        nonce=random.SystemRandom().getrandbits(32), routes=routes)
    print(f"sending {len(data)} bytes to {args.dst} over {len(planes)} plane(s), "
          f"{cfg.evs_per_plane} EVs each, mss {mss}", flush=True)
    report = run_sender(planes, data, cfg, args.timeout,
                        progress=lambda line: print(line, flush=True),
                        sender_class=args.sender_class)
    _write_json(args.json, report.to_json(), "--json")
    if not report.ok:
        print(f"send failed: {report.error}", file=sys.stderr)
        return 1
    c = report.counters
    print(f"done: {report.bytes} bytes in {report.completion_time_s} s, goodput "
          f"{report.goodput_mbps} Mb/s, retransmits {c.retransmits} (timeouts "
          f"{c.timeouts}), trimmed (NACKed) {c.nacks}, ECN echoes {c.ecn_echoes}, EVs used "
          f"{len(report.pool.evs_used)}, retired {len(report.pool.evs_retired)}, sha256 "
          f"{report.sha256}", flush=True)
    return 0


def cmd_recv(args: argparse.Namespace) -> int:
    if args.out is not None and not args.out.is_dir() and not args.out.parent.is_dir():
        raise UsageError(f"--out {args.out}: directory {args.out.parent} does not exist")
    count = 1 if args.once else args.count
    ifaces = [i for arg in args.iface for i in arg.split(",") if i]
    if not ifaces:
        try:
            ifaces = host_interfaces()
        except RouteError as exc:
            raise UsageError(f"--iface: {exc}") from None
    if not ifaces:
        raise UsageError("--iface: no interface to listen on")
    bad: list[str] = []

    def on_message(msg: Message) -> None:
        status = "ok" if msg.ok else f"CORRUPT ({msg.error})"
        target = write_message(msg, args.out)
        print(f"message from {msg.peer} conn 0x{msg.conn:08x}: {len(msg.data)} bytes in "
              f"{msg.finished - msg.started:.3f} s, {status}, sha256 "
              f"{hashlib.sha256(msg.data).hexdigest()}" + (f" -> {target}" if target else ""),
              flush=True)
        if not msg.ok:
            bad.append(msg.error)

    stopping = False
    give_up_at = time.monotonic() + args.timeout if args.timeout else None

    def on_signal(_sig: int, _frame: object) -> None:
        nonlocal stopping
        stopping = True

    def stop() -> bool:
        return stopping or (give_up_at is not None and time.monotonic() >= give_up_at)

    signal.signal(signal.SIGTERM, on_signal)
    print(f"listening on {', '.join(ifaces)} (UDP port 4793)", flush=True)
    try:
        cfg = ReceiverConfig(link_rate_bps=(args.link_rate or 0.0) * 1e6)
        outcome = run_receiver(ifaces, on_message, count, args.linger, cfg, stop=stop)
    except OSError as exc:
        raise UsageError(f"--iface {','.join(ifaces)}: {exc.strerror or exc}") from None
    received = outcome.report
    _write_json(args.json, received.to_json(), "--json")
    print(f"received {len(outcome.messages)} message(s); ignored {received.garbage} malformed, "
          f"{received.stats.unknown_conn} unknown-connection, {received.stats.duplicates} "
          "duplicate packets", flush=True)
    if count is not None and len(outcome.messages) < count:
        print(f"recv failed: {len(outcome.messages)} of {count} message(s) received",
              file=sys.stderr)
        return 1
    return 1 if bad else 0


def _blast_plan(args: argparse.Namespace) -> BlastPlan:
    from mrclab.endpoint.blast import BlastPlan

    try:
        route = parse_route(args.route)
    except ValueError as exc:
        raise UsageError(f"--route: {exc}") from None
    if args.ev in ("cycle", "random"):
        mode, first = args.ev, args.first_ev
    elif args.ev.isdigit() and int(args.ev) < 1 << 16:
        mode, first = "fixed", int(args.ev)
    else:
        raise UsageError(f"--ev: {args.ev!r} is not cycle, random or a 16-bit number")
    if not 0 <= args.payload <= 9000:
        raise UsageError(f"--payload: {args.payload} is not within 0..9000 bytes")
    try:
        return BlastPlan(count=args.count, payload=args.payload,
                         msg_type=MsgType[args.type.upper()], ev_mode=mode, ev=first,
                         evs=args.evs, route=route, rate_pps=max(args.rate, 0.0),
                         seed=args.seed)
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def cmd_blast(args: argparse.Namespace) -> int:
    from mrclab.endpoint.blast import blast

    plan = _blast_plan(args)
    args.iface = [args.iface] if args.iface else []
    plane = _planes(args)[0]
    stats = blast(plane, plan).to_json()
    print(json.dumps(stats), flush=True)
    _write_json(args.json, stats, "--json")
    return 0


COMMANDS = {"send": cmd_send, "recv": cmd_recv, "blast": cmd_blast}


def main(argv: list[str] | None = None,
         sender_class: Callable[..., MrcSender] = MrcSender) -> int:
    """`sender_class`: makes `send`'s sender (the endpoint exercise passes the student's)."""

    def body() -> int:
        args = build_parser().parse_args(argv)
        args.sender_class = sender_class
        logging.basicConfig(level=logging.WARNING - 10 * min(args.verbose, 2),
                            format="%(asctime)s %(levelname)s %(name)s: %(message)s")
        try:
            return COMMANDS[args.command](args)
        except PermissionError as exc:
            raise UsageError(f"{exc.strerror}: raw sockets need root (CAP_NET_RAW)") from None
    # bad input (a command line, or no root) is 2; a network error (OSError), 1
    return run_main("error", body, {UsageError: 2, OSError: 1}, interrupted="interrupted")
