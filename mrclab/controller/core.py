"""The controller's decisions, sans I/O: events in, writes and records out.

Both engines drive one `ControllerCore`, as both drive the endpoint's transport core: the
lab's controller process (`mrclab.controller.fabric`: P4Runtime streams, threads, the wall
clock) and the simulator (`mrclab.sim.controller`: its event loop, writes applied in
process). The core never reads a clock and never touches a socket:

- events in: a probe round is due (`probe_round`), a PacketIn arrived (`packet_in`), a
  link verdict changed (`link_event`), a switch came back or was lost (`switch_up`,
  `switch_down`), the forwarding policy changed (`set_policy`);
- writes out: which switches to rewrite, and for each the ordered P4Runtime write phases
  from what it holds to what it should hold (`write`, through the engine's `Writer`);
- records out: one `Reconvergence` per handled link event (`reconverged`).

Routing and the link verdict rule are parameters, so a student's `next_hops` or liveness
rule runs on both engines.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, replace

from p4.v1 import p4runtime_pb2

from mrclab.controller.link_monitor import LinkMonitor
from mrclab.controller.link_verdict import LinkVerdict
from mrclab.controller.next_hops import LinkId, NextHops, Routing, compute_next_hops
from mrclab.controller.p4rt_codec import Codec
from mrclab.controller.probe_liveness import LinkEvent, LinkStatus, VerdictFactory
from mrclab.controller.switch_state import ForwardingPolicy, SwitchState, desired_state
from mrclab.controller.write_plan import apply_ops, plan
from mrclab.fabric.model import Fabric
from mrclab.fabric.reconvergence import Reconvergence, link_name

log = logging.getLogger(__name__)

# Writes one phase of updates to a switch; returns the errors (empty: every update landed).
Writer = Callable[[list[p4runtime_pb2.Update]], list[str]]


@dataclass(frozen=True)
class PacketOut:
    """A probe frame for `switch` to send, with its packet_out metadata."""

    switch: str
    frame: bytes
    metadata: dict[int, bytes]


@dataclass(frozen=True)
class Reroute:
    """What a link event changed: the links down after it and the switches whose next
    hops moved (the ones to rewrite)."""

    event: LinkEvent
    down: frozenset[LinkId]
    switches: list[str]


class ControllerCore:
    def __init__(self, fabric: Fabric, codec: Codec, policy: ForwardingPolicy, *,
                 probe_interval: float, miss_limit: int = 3,
                 initially_down: frozenset[LinkId] = frozenset(),
                 routing: Routing = compute_next_hops, verdict: VerdictFactory = LinkVerdict,
                 event_log_level: int = logging.WARNING) -> None:
        """`routing(fabric, down links)` gives every switch's next hops, at start and after
        each link event; `verdict(miss_limit, up_after, up)` makes each link's down/up
        rule from its probes. `event_log_level`: how loudly link events are logged (the
        lab's operator wants them; a simulated sweep has thousands)."""
        self.fabric = fabric
        self.codec = codec
        self.policy = policy
        self.routing = routing
        self.event_log_level = event_log_level
        self.monitor = LinkMonitor(fabric, probe_interval, miss_limit,
                                   initially_down=set(initially_down), verdict=verdict,
                                   to_group=codec.probes_to_group)
        self.next_hops: NextHops = routing(fabric, self.monitor.down_links())
        # what each switch holds, as far as the controller knows (None: unknown, read it)
        self.installed: dict[str, SwitchState | None] = dict.fromkeys(fabric.switches)
        self.reconvergences: list[Reconvergence] = []

    # --- events in --------------------------------------------------------------------
    def probe_round(self, now: float, ts_ms: int) -> tuple[list[LinkEvent], list[PacketOut]]:
        """Judge the last round's probes, then this round's PacketOuts (stamped `ts_ms`)."""
        events, probes = self.monitor.probes(now, ts_ms)
        return events, [PacketOut(p.switch, p.frame, self.codec.packet_out_metadata(p.port))
                        for p in probes]

    def packet_in(self, switch: str, metadata: dict[int, bytes], payload: bytes,
                  now: float) -> LinkEvent | None:
        """A PacketIn from `switch`: a link's verdict when its probe answer changes it."""
        return self.monitor.answered(switch, self.codec.packet_in_port(metadata), payload, now)

    def switch_up(self, name: str) -> None:
        """`name` answers again (a new primary stream): its links' probes count again."""
        self.monitor.switch_back(name)

    def switch_down(self, name: str) -> None:
        """`name` is gone: its links are not judged meanwhile, and its state is unknown."""
        self.monitor.switch_lost(name)
        self.installed[name] = None

    def link_event(self, event: LinkEvent) -> Reroute:
        """Routes again around the links now down; the switches whose next hops moved."""
        down = frozenset(self.monitor.down_links())
        old, self.next_hops = self.next_hops, self.routing(self.fabric, set(down))
        changed = [name for name in self.fabric.switches if old[name] != self.next_hops[name]]
        return Reroute(event, down, changed)

    def set_policy(self, policy: ForwardingPolicy) -> list[str]:
        """A new spray mode or thresholds: every switch is to be rewritten."""
        self.policy = policy
        return list(self.fabric.switches)

    def set_spray_mode(self, mode: int) -> list[str]:
        return self.set_policy(replace(self.policy, spray_mode=mode))

    # --- writes out -------------------------------------------------------------------
    def desired(self, name: str) -> SwitchState:
        """What switch `name` should hold now."""
        return desired_state(self.fabric.switches[name], self.next_hops[name], self.policy,
                             self.monitor.probe_group(name))

    def write(self, name: str, current: SwitchState, desired: SwitchState,
              writer: Writer) -> int:
        """Bring switch `name` from `current` to `desired`, phase by phase (P4Runtime does
        not order the updates inside one write); the number of updates written. After a
        failed phase the mirror is not trustworthy, so it is dropped: the engine reads the
        switch back before its next write."""
        written = 0
        failed = False
        for phase in plan(current, desired):
            errors = writer([self.codec.update(op) for op in phase])
            if errors:
                failed = True
                log.error("%s: %d of %d updates failed, first: %s", name, len(errors),
                          len(phase), errors[0])
            else:
                apply_ops(current, phase)
                written += len(phase)
        self.installed[name] = None if failed else current
        return written

    # --- records out ------------------------------------------------------------------
    def reconverged(self, reroute: Reroute, done_at: float, touched: int, updates: int, *,
                    clock_offset: float = 0.0, from_command_s: float | None = None,
                    ) -> Reconvergence:
        """The engine finished rewriting for `reroute` at `done_at` (its clock; plus
        `clock_offset` gives the record's wall time)."""
        event = reroute.event
        record = Reconvergence.of(event, done_at, touched, updates, clock_offset=clock_offset,
                                  from_command_s=from_command_s)
        self.reconvergences.append(record)
        extra = "" if from_command_s is None else f", {from_command_s:.3f} s from link command"
        if event.status is LinkStatus.DOWN:
            log.log(self.event_log_level, "link %s down: detected %.3f s after first missed "
                    "probe, fabric reprogrammed in %.3f s (%d switches, %d updates); total "
                    "%.3f s%s", record.link, record.detect_s or 0.0, record.program_s, touched,
                    updates, record.total_s or 0.0, extra)
        else:
            log.log(self.event_log_level, "link %s up: fabric reprogrammed in %.3f s (%d "
                    "switches, %d updates)%s", record.link, record.program_s, touched, updates,
                    extra)
        return record

    # --- queries ----------------------------------------------------------------------
    def entry_count(self) -> int:
        return sum(s.entry_count() for s in self.installed.values() if s is not None)

    def down_link_names(self) -> list[str]:
        return sorted(link_name(lk) for lk in self.monitor.down_links())
