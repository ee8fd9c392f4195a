"""One experiment transfer as both engines run it: the options a sender takes (the lab's
agent on its command line, the simulator's session from `Flow.send_args`) and the timeline
the sender records. Pure: the clock is whatever `now` the caller's loop passes.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass, field

from mrclab.endpoint.core.ev_pool import EvStatus
from mrclab.endpoint.core.sender import MrcSender
from mrclab.endpoint.core.sender_config import (
    EMULATED_MAX_CWND,
    EMULATED_MIN_RTO,
    SenderConfig,
    emulated_fabric_config,
)
from mrclab.endpoint.wire import MsgType, parse_routes

SAMPLE_FIELDS = ("time", "acked_bytes", "cwnd", "ecn_echoes", "nacks", "retransmits",
                 "timeouts", "qmax", "evs_down")


@dataclass(slots=True)
class Timeline:
    """What `TimelineSender` sampled: one row of `fields` per sample, times on the run's
    clock (the lab's Unix time, the simulator's virtual seconds)."""

    sender_start: float | None = None
    fields: list[str] = field(default_factory=list)
    samples: list[list[float]] = field(default_factory=list)
    interval: float | None = None  # the lab's agent: its sampling and start times
    start_at: float | None = None
    ready_at: float | None = None

    def column(self, name: str) -> list[tuple[float, float]]:
        """(time, value) of one field; empty when it was not sampled."""
        if name not in self.fields:
            return []
        ti, ci = self.fields.index("time"), self.fields.index(name)
        return [(row[ti], float(row[ci])) for row in self.samples]


class TimelineSender(MrcSender):
    """MrcSender that samples its own state every `interval` seconds of its clock.

    `time_offset` is added to the sender's clock in the records: the lab's runner runs it
    on time.monotonic() and wants Unix time; the simulator's virtual time needs nothing."""

    def __init__(self, *args, interval: float, time_offset: float = 0.0, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.interval = interval
        self.time_offset = time_offset
        self.samples: list[list[float]] = []
        self._next_sample = self.start_time
        self._bin_qmax = 0

    def _sample(self, now: float) -> None:
        acked = min(self.board.delivered_count * self.cfg.mss, self.length)
        down = sum(1 for st in self.pool.all()
                   if st.status in (EvStatus.FAILED, EvStatus.PROBING))
        s = self.stats
        # ns: the simulator's RTTs are microseconds
        self.samples.append([round(now + self.time_offset, 9), acked, round(self.cc.cwnd, 2),
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

    def timeline(self) -> Timeline:
        return Timeline(sender_start=round(self.start_time + self.time_offset, 9),
                        fields=list(SAMPLE_FIELDS), samples=self.samples)


def add_transfer_options(parser: argparse.ArgumentParser) -> None:
    """The sender options an experiment's `Flow.send_args` may carry."""
    parser.add_argument("--evs", type=int, default=64)
    # default: the engine's (the lab's EMULATED_MIN_RTO; the simulator's, from its links)
    parser.add_argument("--min-rto", type=float, default=None)
    parser.add_argument("--qmax-threshold", type=int, default=0)
    parser.add_argument("--route", action="append", default=[])  # as `python -m mrclab.endpoint send`


def parse_send_args(send_args: tuple[str, ...] | list[str]) -> argparse.Namespace:
    """`Flow.send_args` as the agent would read them; ValueError naming a bad one."""
    parser = argparse.ArgumentParser(prog="send_args", add_help=False, exit_on_error=False)
    add_transfer_options(parser)
    try:
        args, extra = parser.parse_known_args(list(send_args))
    except argparse.ArgumentError as exc:
        raise ValueError(f"send_args {' '.join(send_args)!r}: {exc}") from None
    if extra:
        raise ValueError(f"send_args: unknown {' '.join(extra)!r}")
    return args


LAB_IDLE_TIMEOUT_S = 5.0  # a lab sender gives up after this much silence


def transfer_config(args: argparse.Namespace, *, mss: int, planes: int, seed: int,
                    nonce: int, idle_timeout: float,
                    fabric: dict[str, float] | None = None) -> SenderConfig:
    """The sender's configuration from its options. `fabric`: the simulator's figures for
    its links (min_rto, initial_rto, max_rto in microseconds, init_cwnd of a BDP, the
    window following the planes in use, a window after a cut that measures but does not
    cut again, marked ACKs recycling their EVs, the queueing delay its window may grow
    into when it has source routes);
    without them the lab's: the RTO floor `--min-rto` (default `EMULATED_MIN_RTO`) of an
    emulated fabric, a first window of 16 packets."""
    settings = {"mss": mss, "evs_per_plane": args.evs, "init_cwnd": 16.0,
                "qmax_threshold": args.qmax_threshold, "idle_timeout": idle_timeout,
                "seed": seed, "nonce": nonce, "routes": parse_routes(args.route, planes)}
    if fabric is None:
        return emulated_fabric_config(args.min_rto or EMULATED_MIN_RTO, **settings)
    timers = dict(fabric)
    if not settings["routes"]:
        # proportional increase needs paths of equal share (congestion.DctcpWindow)
        timers.pop("delay_target", None)
    if args.min_rto is not None:
        timers["min_rto"] = args.min_rto
    timers["initial_rto"] = max(timers["initial_rto"], timers["min_rto"])
    timers["max_rto"] = max(timers["max_rto"], timers["min_rto"])
    return SenderConfig(**{**settings, "max_cwnd": EMULATED_MAX_CWND, **timers})
