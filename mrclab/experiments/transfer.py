"""One experiment transfer as both engines run it: the options a sender takes (the lab's
agent on its command line, the simulator's session from `Flow.send_args`) and the timeline
the sender records. Pure: the clock is whatever `now` the caller's loop passes.
"""

from __future__ import annotations

import argparse

from mrclab.endpoint.core.sender_config import (
    EMULATED_MAX_CWND,
    EMULATED_MIN_RTO,
    SenderConfig,
    emulated_fabric_config,
)
from mrclab.endpoint.core.timeline import SAMPLE_FIELDS, Timeline, TimelineSender
from mrclab.endpoint.wire import parse_routes

# the recorder lives beside the endpoint's core, which is compiled with it
# (mrclab.endpoint.compiled); the experiments import it from here
__all__ = ["SAMPLE_FIELDS", "Timeline", "TimelineSender", "add_transfer_options",
           "parse_send_args", "transfer_config"]


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
    cut again, marked ACKs recycling their EVs, a window resuming at init_cwnd after an
    idle, the queueing delay its window may grow into when it has source routes);
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
