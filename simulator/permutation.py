"""The permutation experiment in virtual time: every host sends one long flow to a host of
another pod at the same moment, per spray mode; optionally a link, switch or plane fails
mid-transfer. Goodput per flow is measured from the warm-up until the first flow finished
(all flows still sending), normalised to one link's payload rate.

    result = run_permutation(PermutationRun(spec="fattree:k=8", modes=("ev", "ecmp")))
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace

from controller.next_hops import source_routes
from endpoint.core.sender_config import SenderConfig
from endpoint.sim.permutation import placed_by
from endpoint.wire import route_word
from fabric_model.spec import parse_spec
from fabric_model.spray import SPRAY_MODES
from fabric_model.traffic import cross_group_permutation
from simulator.hosts import FlowSpec, SimFlow
from simulator.links import LinkState
from simulator.network import SimNetwork, SimSettings


@dataclass(frozen=True)
class Failure:
    """What fails and when (s): `link A B` (gray), `switch NAME`, `plane N`."""

    kind: str
    target: tuple[str, ...]
    at: float

    @classmethod
    def parse(cls, text: str) -> Failure:
        """`link:A,B@T`, `switch:NAME@T` or `plane:N@T` (T in seconds, e.g. 200e-6)."""
        what, sep, when = text.partition("@")
        kind, _, names = what.partition(":")
        try:
            at = float(when)
        except ValueError:
            at = -1.0
        parts = tuple(n for n in names.split(",") if n)
        arity = {"link": 2, "switch": 1, "plane": 1}
        if not sep or at < 0 or arity.get(kind) != len(parts):
            raise ValueError(f"--fail {text!r}: expected link:A,B@T, switch:NAME@T or "
                             "plane:N@T with T >= 0 in seconds")
        return cls(kind, parts, at)

    def apply(self, net: SimNetwork) -> None:
        if self.kind == "link":
            net.set_link(*self.target, LinkState.GRAY, at=self.at)
        elif self.kind == "switch":
            net.fail_switch(self.target[0], at=self.at)
        else:
            try:
                plane = int(self.target[0])
            except ValueError:
                raise ValueError(f"--fail plane:{self.target[0]}: not a plane number") from None
            net.fail_plane(plane, at=self.at)


@dataclass(frozen=True)
class PermutationRun:
    spec: str = "fattree:k=4"
    modes: tuple[str, ...] = ("ecmp", "ev", "source")
    settings: SimSettings = SimSettings()
    seconds: float = 200e-6  # each flow's size: this long at one link's payload rate
    warmup: float = 20e-6
    failures: tuple[Failure, ...] = ()
    seed: int = 1
    max_time: float = 0.05  # virtual seconds before unfinished flows count as failed


@dataclass
class ModeResult:
    mode: str
    goodputs: list[float]  # per flow, fraction of one link's payload rate
    completed: int
    flows: int
    window: tuple[float, float]
    finish_times: list[float | None]
    stats: dict[str, int]  # sender counters summed over the flows
    controller_events: list[dict]
    packet_hops: int
    wall_s: float
    virtual_s: float
    incomplete: bool = False  # interrupted (Ctrl-C): figures so far

    def summary(self) -> dict:
        g = self.goodputs
        return {"mode": self.mode, "mean": statistics.fmean(g) if g else 0.0,
                "min": min(g, default=0.0),
                "p10": statistics.quantiles(g, n=10, method="inclusive")[0] if len(g) > 1
                else min(g, default=0.0),
                "completed": self.completed, "flows": self.flows,
                "hops_per_wall_s": self.packet_hops / self.wall_s if self.wall_s else 0.0}


@dataclass
class PermutationResult:
    run: PermutationRun
    modes: list[ModeResult] = field(default_factory=list)

    def as_dict(self) -> dict:
        run = asdict(self.run)
        return {"engine": "sim", "run": run, "modes": [asdict(m) for m in self.modes],
                "summary": [m.summary() for m in self.modes]}


def _routes(net: SimNetwork, src: str, dst: str) -> tuple[tuple[int, ...], ...]:
    hosts = net.fabric.hosts
    out = []
    for nic in hosts[src].nics:
        peer = next((n for n in hosts[dst].nics if n.plane == nic.plane), None)
        if peer is not None:
            out.append(tuple(route_word(p) for p in source_routes(net.fabric, nic.ip, peer.ip)))
    return tuple(out)


def run_mode(run: PermutationRun, mode: str,
             progress: Callable[[SimNetwork], None] | None = None) -> ModeResult:
    """One spray mode of `run`, on a fabric built afresh (the same seed: the same pairs)."""
    if mode not in SPRAY_MODES:
        raise ValueError(f"spray mode {mode!r} (known: {', '.join(SPRAY_MODES)})")
    fabric = parse_spec(run.spec)
    net = SimNetwork(fabric, replace(run.settings, spray=mode, seed=run.seed))
    net.start()
    planes = fabric.planes
    s = net.settings
    payload_rate = s.link_rate_bps * s.mss / (s.mss + s.header_frame)
    size = max(1, int(payload_rate * planes * run.seconds / 8))
    min_rto, initial_rto, max_rto = s.rto_timers()
    cfg = SenderConfig(min_rto=min_rto, max_rto=max_rto, initial_rto=initial_rto,
                       idle_timeout=max(0.005, run.max_time / 2))
    flows: list[SimFlow] = []
    for i, (src, dst) in enumerate(cross_group_permutation(fabric, run.seed)):
        routes = _routes(net, src, dst) if mode == "source" else ()
        flows.append(net.add_flow(FlowSpec(src, dst, size, seed=run.seed * 1000 + i,
                                           routes=routes), cfg))
    for failure in run.failures:
        failure.apply(net)
    started = time.perf_counter()
    incomplete = False
    try:
        step = run.max_time / 200
        while net.loop.now < run.max_time and not all(f.done for f in flows):
            net.loop.run(net.loop.now + step, lambda: all(f.done for f in flows))
            if progress is not None:
                progress(net)
    except KeyboardInterrupt:
        incomplete = True
    net.controller.stop_probing()
    wall = time.perf_counter() - started
    ends = [f.sender.finish_time for f in flows if f.sender.finish_time is not None]
    end = min(ends) if ends else net.loop.now
    start = min(run.warmup, end / 2)
    span = max(end - start, 1e-12)
    goodputs = [(placed_by(f.progress, end) - placed_by(f.progress, start)) * 8 / span
                / payload_rate for f in flows]
    stat_names = ("data_sent", "retransmits", "nacks", "ecn_echoes", "timeouts",
                  "probes_sent", "probe_replies", "evs_unretired")
    stats = {n: sum(getattr(f.sender.stats, n) for f in flows) for n in stat_names}
    stats["evs_retired"] = sum(len(f.sender.pool.retirements) for f in flows)
    return ModeResult(mode, goodputs, sum(f.sender.done for f in flows), len(flows),
                      (start, end), [f.sender.finish_time for f in flows], stats,
                      [asdict(e) for e in net.controller.events], net.packet_hops(), wall,
                      net.loop.now, incomplete)


def run_permutation(run: PermutationRun,
                    progress: Callable[[str, SimNetwork], None] | None = None
                    ) -> PermutationResult:
    result = PermutationResult(run)
    for mode in run.modes:
        each = None if progress is None else (lambda net, mode=mode: progress(mode, net))
        result.modes.append(run_mode(run, mode, each))
        if result.modes[-1].incomplete:
            break
    return result
