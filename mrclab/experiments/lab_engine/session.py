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
from functools import cached_property
from pathlib import Path

from mrclab.controller.next_hops import SourceRoutes
from mrclab.endpoint.report import ReceiverReport
from mrclab.experiments import flowstats, plans, validity
from mrclab.experiments.collective_plan import JobPlan
from mrclab.experiments.config import ExperimentError, Setup
from mrclab.experiments.lab_engine import fabric_ops, flows, job, machine
from mrclab.experiments.lab_engine.rank_agent import RankJob
from mrclab.experiments.plans import Flow, Timed
from mrclab.experiments.records import (
    CollectiveIteration,
    FabricCounters,
    JobRecord,
    PhaseRecord,
    counter_delta,
)
from mrclab.experiments.transfer import LAB_IDLE_TIMEOUT_S
from mrclab.fabric.model import Fabric
from mrclab.fabric.reconvergence import Reconvergence
from mrclab.lab.lab import Lab
from mrclab.mininet import link_failure

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
        # a job was cut short by Ctrl-C or SIGTERM: its iterations are kept, no more run
        self.interrupted = False

    @property
    def fabric(self) -> Fabric:
        return self.lab.fabric

    @cached_property
    def source_routes(self) -> SourceRoutes:
        """The fabric's source routes (spray mode `source`), searched once per session."""
        return SourceRoutes(self.fabric)

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
    def set_link(self, a: str, b: str, up: bool, admin: bool = False) -> float:
        """Fail or restore a link (`admin`: its ports go down, else gray: both ends drop);
        returns the wall time of the command."""
        when = time.time()
        self.lab.set_link(a, b, up, self._failure_method(admin))
        return when

    def set_links(self, links: list[tuple[str, str]], up: bool, admin: bool = False) -> float:
        """Fail or restore several links at once (each takes ~0.5 s of nft commands on a
        loaded machine: one after the other, a plane would fail over seconds); returns
        the wall time when all are done."""
        method = self._failure_method(admin)
        with ThreadPoolExecutor(max_workers=8) as pool:
            list(pool.map(lambda link: self.lab.set_link(link[0], link[1], up, method), links))
        return time.time()

    def _failure_method(self, admin: bool) -> str | None:
        if not admin:
            return None  # the lab's default: gray
        if self.setup.target == "bmv2":
            raise ExperimentError("an admin-down link freezes a BMv2 switch "
                                  "(docs/V1MODEL-NOTES, section 8): use a gray failure")
        return link_failure.ADMIN

    def run_job(self, name: str, plan: JobPlan) -> JobRecord:
        """Run a training job: one rank agent per host, the barrier here (`job.run_job`);
        its iterations, the fabric counter deltas and the machine's verdict."""
        self._runs += 1
        schedule = plan.schedule
        pairs = {(t.src, t.dst) for t in schedule.transfers}
        send_args = {}
        if self._spray == "source":
            flows = plans.with_source_routes(
                self.source_routes, [Flow(plan.hosts[a], plan.hosts[b], 1, seed=0) for a, b in sorted(pairs)])
            send_args = {f"{a}>{b}": list(f.send_args) for (a, b), f in zip(sorted(pairs), flows,
                                                                            strict=True)}
        rank_job = RankJob(schedule.pattern, schedule.ranks, schedule.size, schedule.slice_bytes,
                           plan.spec, list(plan.hosts),
                           [[nic.ip for nic in self.fabric.hosts[h].nics] for h in plan.hosts],
                           send_args, link_rate_bps=self.setup.link_rate
                           if self.setup.pace_resends else 0.0,
                           schedule_sha256=schedule.digest(), timeout_s=plan.timeout_s + 60)
        before = self.counters()
        with machine.Monitor(self.lab) as monitor:
            outcome = job.run_job(self.lab, self.workdir / f"{self._runs:02d}-{name}", plan,
                                  rank_job, LAB_IDLE_TIMEOUT_S)
        after = self.counters()
        self.interrupted |= outcome.incomplete
        verdict = validity.judge(monitor.measured)
        receivers = {host: ReceiverReport.from_json(report["receiver"])
                     for host, report in outcome.receivers.items()}
        return JobRecord(name, 0.0, outcome.end - outcome.t0, verdict, list(plan.hosts),
                         [CollectiveIteration(r, t) for r, t in zip(outcome.iterations,
                                                                   outcome.totals, strict=True)],
                         receivers, counter_delta(before, after),
                         [r for r in self.reconvergence() if r.detected_at >= outcome.t0],
                         {**asdict(monitor.measured), "schedule_sha256": schedule.digest(),
                          "t0": outcome.t0},
                         stalled=outcome.stalled, incomplete=outcome.incomplete)

    def run_flows(self, name: str, plan: list[Flow], timeout: float,
                  schedule: Sequence[Timed] = ()) -> PhaseRecord:
        """Run `plan` together; returns the flows' stats, the fabric counter deltas over the
        run and the machine's verdict on it. On a fabric in spray mode `source` each sender
        is given its source routes (a sender without them would fall back to hashed EVs)."""
        if self._spray == "source":
            plan = plans.with_source_routes(self.source_routes, plan)
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
