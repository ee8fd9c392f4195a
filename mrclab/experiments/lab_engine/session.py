"""The running lab as an experiment sees it: spray, rates, thresholds, flows, failures.

Experiments (`mrclab.experiments.permutation`, ...) drive only this class, so that what they do
reads as the experiment and all Mininet and process handling stays here. Every traffic
phase is measured by `machine.Monitor` and judged by `mrclab.experiments.validity`.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict
from pathlib import Path

from mrclab.experiments import flowstats, plans, validity
from mrclab.experiments.config import ExperimentError, Setup
from mrclab.experiments.lab_engine import fabric_ops, flows, machine
from mrclab.experiments.plans import Flow, Timed
from mrclab.experiments.records import FabricCounters, PhaseRecord, counter_delta
from mrclab.fabric.model import Fabric
from mrclab.fabric.reconvergence import Reconvergence
from mrclab.lab.lab import Lab

log = logging.getLogger(__name__)


class Session:
    def __init__(self, lab: Lab, setup: Setup, workdir: Path,
                 progress: Callable[[str], None]) -> None:
        self.lab = lab
        self.setup = setup
        self.workdir = workdir
        self.progress = progress  # called with each phase's name as it starts
        self._runs = 0
        self._spray: str | None = None  # the mode this session last set

    @property
    def fabric(self) -> Fabric:
        return self.lab.fabric

    # --- configuration ------------------------------------------------------------------
    def set_spray(self, mode: str) -> None:
        self.lab.ask("spray", mode=mode)
        self._spray = mode

    def run_at(self, setup: Setup) -> None:
        """Traffic from now on runs at `setup`'s link rates, and its phases are paced and
        judged by them: a --rate auto trial by its own rate (judged by a faster rate's
        late-ACK bound, every ACK of a slower trial looks late)."""
        self.setup = setup
        fabric_ops.apply_rates(self.lab, setup.rate_bps, setup.fabric_rate_bps or setup.rate_bps)

    def set_thresholds(self, trim: int, ecn: int, spray: str) -> float:
        """Restart the controller with new trim/ECN thresholds; returns seconds taken."""
        taken = fabric_ops.restart_controller(self.lab, trim, ecn, spray)
        self._spray = spray
        return taken

    # --- observation --------------------------------------------------------------------
    def counters(self, switches: list[str] | None = None) -> FabricCounters:
        """Transmitted/received bytes and packets per switch port (kernel counters)."""
        return machine.port_counters(self.lab, switches)

    def reconvergence(self) -> list[Reconvergence]:
        return fabric_ops.reconvergence_events(self.lab)

    def core_links(self) -> list[tuple[str, int, str, int]]:
        return fabric_ops.core_links(self.lab)

    def wait_links_up(self, timeout: float = 20.0) -> bool:
        return fabric_ops.wait_links_up(self.lab, timeout)

    def wait_reconvergence(self, count: int, timeout: float = 20.0) -> bool:
        """Wait until the controller has reported `count` link verdicts in all (it reports
        a link's return a little after the traffic ended)."""
        deadline = time.monotonic() + timeout
        while len(self.reconvergence()) < count and time.monotonic() < deadline:
            time.sleep(0.2)
        return len(self.reconvergence()) >= count

    def now(self) -> float:
        """Wall time, the clock of the flows' common start t0."""
        return time.time()

    # --- actions ------------------------------------------------------------------------
    def set_link(self, a: str, b: str, up: bool) -> float:
        """Fail or restore a link; returns the wall time of the command."""
        when = time.time()
        self.lab.set_link(a, b, up)
        return when

    def set_links(self, links: list[tuple[str, str]], up: bool) -> float:
        """Fail or restore several links at once (each takes ~0.5 s of nft commands on a
        loaded machine: one after the other, a plane would fail over seconds); returns
        the wall time when all are done."""
        with ThreadPoolExecutor(max_workers=8) as pool:
            list(pool.map(lambda link: self.lab.set_link(link[0], link[1], up), links))
        return time.time()

    def run_flows(self, name: str, plan: list[Flow], timeout: float,
                  schedule: Sequence[Timed] = ()) -> PhaseRecord:
        """Run `plan` together; returns the flows' stats, the fabric counter deltas over the
        run and the machine's verdict on it. On a fabric in spray mode `source` each sender
        is given its source routes (a sender without them would fall back to hashed EVs)."""
        if self._spray == "source":
            plan = plans.with_source_routes(self.fabric, plan)
        self._runs += 1
        before = self.counters()
        with machine.Monitor(self.lab) as monitor:
            outcome = flows.run_flows(self.lab, self.workdir / f"{self._runs:02d}-{name}",
                                      plan, timeout, schedule,
                                      self.setup.link_rate if self.setup.pace_resends else 0.0)
        after = self.counters()
        if (why := flowstats.nothing_transferred(outcome.flows)) is not None:
            raise ExperimentError(f"{name}: {why}")
        bound = self.setup.queue_delay_bound_s(self.fabric.max_switch_hops())
        acks = validity.late_acks(outcome.flows, bound)
        if acks is not None:
            monitor.measured.late_count = acks[0]
            monitor.measured.late_share = acks[0] / acks[1] if acks[1] else 0.0
        monitor.measured.late_bound_s = bound
        verdict = validity.judge(monitor.measured)
        if not verdict.faithful:
            log.info("%s: %s", name, "; ".join(verdict.reasons))  # stated in the report
        return PhaseRecord(name, outcome.t0, outcome.end, verdict, outcome.flows,
                           outcome.receivers, counter_delta(before, after),
                           asdict(monitor.measured))
