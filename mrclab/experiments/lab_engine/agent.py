"""`python -m mrclab.experiments.lab_engine.agent send|recv`: the project's endpoint on a Mininet host,
started lean and recording a timeline.

    python -m mrclab.experiments.lab_engine.agent send --timeline FILE --start-at WALL --dst IP[,IP]
        --size BYTES --seed N --json FILE --timeout S [--interval 0.05] [--evs 64]
        [--min-rto 0.1] [--qmax-threshold 0] [--route [PLANE:]LABELS ...]
    python -m mrclab.experiments.lab_engine.agent recv --count N --json FILE --timeout S

The transfer is the endpoint's own (`mrclab.endpoint.runner.run_sender` / `run_receiver`, the
same sans-I/O sender and receiver, with the defaults of `python -m mrclab.endpoint send`). Two
things differ from the endpoint CLI:
- start-up cost: this agent imports only the data path (`mrclab.endpoint.runner`), not the
  endpoint CLI with its `blast` and trace tools; an experiment starts 2 processes per flow
  on a 2-core machine.
- the sender records, every `--interval` seconds, the bytes the receiver has acknowledged,
  the congestion window, ECN echoes, NACKs, retransmissions, timeouts, the largest `qmax`
  echoed since the previous sample and the EVs down (the endpoint's summary has totals
  only). The recorder (`mrclab.experiments.transfer.TimelineSender`, which the simulator's
  session uses too) is a subclass of the endpoint's sender, passed to `run_sender`.
`--start-at` (a Unix time) holds the transfer until then, so that senders started one
after the other begin together.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import signal
import sys
import time
from dataclasses import replace
from pathlib import Path

from mrclab.endpoint import runner as endpoint_runner
from mrclab.endpoint.core.receiver import ReceiverConfig
from mrclab.endpoint.kernel_routes import RouteError, host_interfaces, resolve_plane
from mrclab.endpoint.report import MessageDigest
from mrclab.experiments.transfer import (
    LAB_IDLE_TIMEOUT_S,
    Timeline,
    TimelineSender,
    add_transfer_options,
    transfer_config,
)
from mrclab.jsonrecords import to_json
from p4emu.cmdline import run_main


def payload(size: int, seed: int) -> bytes:
    return random.Random(seed).randbytes(size)


def send(args: argparse.Namespace) -> int:
    ready_at = time.time()
    planes = [resolve_plane(d.strip()) for d in args.dst.split(",") if d.strip()]
    mss = endpoint_runner.mss_for(planes, None)
    data = payload(args.size, args.seed)
    cfg = transfer_config(args, mss=mss, planes=len(planes), seed=args.seed,
                          nonce=random.SystemRandom().getrandbits(32),
                          idle_timeout=min(LAB_IDLE_TIMEOUT_S, args.timeout))
    if args.start_at is not None and args.start_at > time.time():
        time.sleep(args.start_at - time.time())
    made: list[TimelineSender] = []

    def recording_sender(*a, **kw) -> TimelineSender:
        # the runner's clock is time.monotonic(); the timeline is kept in Unix time
        made.append(TimelineSender(*a, interval=args.interval,
                                   time_offset=time.time() - time.monotonic(), **kw))
        return made[-1]
    report = None
    try:
        report = endpoint_runner.run_sender(planes, data, cfg, args.timeout,
                                            sender_class=recording_sender)
    finally:
        timeline = replace(made[-1].timeline() if made else Timeline(),
                           interval=args.interval, start_at=args.start_at, ready_at=ready_at)
        args.timeline.write_text(json.dumps(to_json(timeline)) + "\n")
        if report is not None:
            args.json.write_text(json.dumps(report.to_json()) + "\n")
    return 0 if report.ok else 1


def recv(args: argparse.Namespace) -> int:
    digests: list[MessageDigest] = []
    stopping = False

    def on_signal(_sig: int, _frame: object) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGTERM, on_signal)
    give_up = time.monotonic() + args.timeout
    ifaces = host_interfaces()
    print(f"listening on {', '.join(ifaces)}", flush=True)
    outcome = endpoint_runner.run_receiver(
        ifaces, lambda m: digests.append(MessageDigest(
            peer=m.peer, bytes=len(m.data), ok=m.ok, sha256=hashlib.sha256(m.data).hexdigest(),
            seconds=round(m.finished - m.started, 6))),
        args.count, endpoint_runner.DEFAULT_LINGER,
        ReceiverConfig(link_rate_bps=args.link_rate),
        stop=lambda: stopping or time.monotonic() >= give_up)
    outcome.report.digests = digests
    args.json.write_text(json.dumps(outcome.report.to_json()) + "\n")
    return 0 if len(digests) >= args.count and outcome.report.stats.messages_bad == 0 else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m mrclab.experiments.lab_engine.agent")
    sub = parser.add_subparsers(dest="command", required=True)
    s = sub.add_parser("send")
    s.add_argument("--timeline", type=Path, required=True)
    s.add_argument("--json", type=Path, required=True)
    s.add_argument("--dst", required=True)
    s.add_argument("--size", type=int, required=True)
    s.add_argument("--seed", type=int, default=1)
    s.add_argument("--timeout", type=float, default=60.0)
    s.add_argument("--interval", type=float, default=0.05)
    s.add_argument("--start-at", type=float, default=None)
    add_transfer_options(s)
    r = sub.add_parser("recv")
    r.add_argument("--json", type=Path, required=True)
    r.add_argument("--count", type=int, required=True)
    r.add_argument("--timeout", type=float, default=60.0)
    r.add_argument("--link-rate", type=float, default=0.0,
                   help="b/s: give resends turns at this rate (0: NACK at once)")
    args = parser.parse_args(argv)
    return run_main("agent", lambda: send(args) if args.command == "send" else recv(args),
                    {(RouteError, ValueError): 2})


if __name__ == "__main__":
    sys.exit(main())
