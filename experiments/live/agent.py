"""`python -m experiments.live.agent send|recv`: the project's endpoint on a Mininet host,
started lean and recording a timeline.

    python -m experiments.live.agent send --timeline FILE --start-at WALL --dst IP[,IP]
        --size BYTES --seed N --json FILE --timeout S [--interval 0.05] [--evs 64]
        [--min-rto 0.1] [--qmax-threshold 0] [--route [PLANE:]LABELS ...]
    python -m experiments.live.agent recv --count N --json FILE --timeout S

The transfer is the endpoint's own (`endpoint.runner.run_sender` / `run_receiver`, the
same sans-I/O sender and receiver, with the defaults of `python -m endpoint send`). Two
things differ from the endpoint CLI:
- start-up cost: this agent imports only the data path (`endpoint.runner`), not the
  endpoint CLI with its `blast` and trace tools; an experiment starts 2 processes per flow
  on a 2-core machine.
- the sender records, every `--interval` seconds, the bytes the receiver has acknowledged,
  the congestion window, ECN echoes, NACKs, retransmissions, timeouts, the largest `qmax`
  echoed since the previous sample and the EVs down (the endpoint's summary has totals
  only). The recorder is a subclass of the endpoint's sender, passed to `run_sender`.
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
from pathlib import Path

from endpoint import runner as endpoint_runner
from endpoint.core.ev_pool import EvStatus
from endpoint.core.receiver import ReceiverConfig
from endpoint.core.sender import MrcSender
from endpoint.core.sender_config import EMULATED_MIN_RTO, emulated_fabric_config
from endpoint.kernel_routes import RouteError, host_interfaces, resolve_plane
from endpoint.wire import MsgType, parse_routes

SAMPLE_FIELDS = ("time", "acked_bytes", "cwnd", "ecn_echoes", "nacks", "retransmits",
                 "timeouts", "qmax", "evs_down")


class TimelineSender(MrcSender):
    """MrcSender that samples its own state on a wall-clock grid."""

    interval = 0.05
    instances: list[TimelineSender] = []

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        # the runner's clock is time.monotonic(); samples are kept in wall time
        self.wall_offset = time.time() - time.monotonic()
        self.samples: list[list[float]] = []
        self._next_sample = self.start_time
        self._bin_qmax = 0
        TimelineSender.instances.append(self)

    def _sample(self, now: float) -> None:
        acked = min(self.board.delivered_count * self.cfg.mss, self.length)
        down = sum(1 for st in self.pool.all()
                   if st.status in (EvStatus.FAILED, EvStatus.PROBING))
        s = self.stats
        self.samples.append([round(now + self.wall_offset, 6), acked, round(self.cc.cwnd, 2),
                             s.ecn_echoes, s.nacks, s.retransmits, s.timeouts, self._bin_qmax,
                             down])
        self._bin_qmax = 0

    def poll(self, now: float):
        if now >= self._next_sample:
            self._sample(now)
            self._next_sample = max(self._next_sample + self.interval, now)
        return super().poll(now)

    def on_packet(self, plane: int, hdr, now: float) -> None:
        if hdr.type in (MsgType.ACK, MsgType.NACK):
            self._bin_qmax = max(self._bin_qmax, hdr.qmax)
        was_done = self.done
        super().on_packet(plane, hdr, now)
        if self.done and not was_done:
            self._sample(now)

    def timeline(self) -> dict:
        return {"sender_start": round(self.start_time + self.wall_offset, 6),
                "fields": list(SAMPLE_FIELDS), "samples": self.samples}


def payload(size: int, seed: int) -> bytes:
    return random.Random(seed).randbytes(size)


def send(args: argparse.Namespace) -> int:
    ready_at = time.time()
    planes = [resolve_plane(d.strip()) for d in args.dst.split(",") if d.strip()]
    mss = endpoint_runner.mss_for(planes, None)
    data = payload(args.size, args.seed)
    cfg = emulated_fabric_config(
        args.min_rto, mss=mss, evs_per_plane=args.evs, init_cwnd=16.0,
        qmax_threshold=args.qmax_threshold, idle_timeout=min(5.0, args.timeout),
        seed=args.seed, nonce=random.SystemRandom().getrandbits(32),
        routes=parse_routes(args.route, len(planes)))
    if args.start_at is not None and args.start_at > time.time():
        time.sleep(args.start_at - time.time())
    TimelineSender.interval = args.interval
    report = None
    try:
        report = endpoint_runner.run_sender(planes, data, cfg, args.timeout,
                                            sender_class=TimelineSender)
    finally:
        sender = TimelineSender.instances[-1] if TimelineSender.instances else None
        timeline = {"interval": args.interval, "start_at": args.start_at, "ready_at": ready_at,
                    **(sender.timeline() if sender else {})}
        args.timeline.write_text(json.dumps(timeline) + "\n")
        if report is not None:
            args.json.write_text(json.dumps(report.summary) + "\n")
    return 0 if report.ok else 1


def recv(args: argparse.Namespace) -> int:
    digests: list[dict] = []
    stopping = False

    def on_signal(_sig: int, _frame: object) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGTERM, on_signal)
    give_up = time.monotonic() + args.timeout
    ifaces = host_interfaces()
    print(f"listening on {', '.join(ifaces)}", flush=True)
    outcome = endpoint_runner.run_receiver(
        ifaces, lambda m: digests.append({"peer": m.peer, "bytes": len(m.data), "ok": m.ok,
                                          "sha256": hashlib.sha256(m.data).hexdigest(),
                                          "seconds": round(m.finished - m.started, 6)}),
        args.count, endpoint_runner.DEFAULT_LINGER, ReceiverConfig(),
        stop=lambda: stopping or time.monotonic() >= give_up)
    bad = sum(1 for d in digests if not d["ok"])
    args.json.write_text(json.dumps({**outcome.stats, "messages": len(outcome.messages),
                                     "messages_ok": len(digests) - bad, "messages_bad": bad,
                                     "digests": digests}) + "\n")
    return 0 if len(digests) >= args.count and not bad else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m experiments.live.agent")
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
    s.add_argument("--evs", type=int, default=64)
    s.add_argument("--min-rto", type=float, default=EMULATED_MIN_RTO)
    s.add_argument("--qmax-threshold", type=int, default=0)
    s.add_argument("--route", action="append", default=[])  # as `python -m endpoint send`
    r = sub.add_parser("recv")
    r.add_argument("--json", type=Path, required=True)
    r.add_argument("--count", type=int, required=True)
    r.add_argument("--timeout", type=float, default=60.0)
    args = parser.parse_args(argv)
    try:
        return send(args) if args.command == "send" else recv(args)
    except (RouteError, ValueError) as exc:
        print(f"agent: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
