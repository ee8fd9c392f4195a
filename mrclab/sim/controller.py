"""The fabric controller in virtual time: the lab controller's route computation, state
diffing, P4Runtime encoding and probe liveness, with its writes applied in process.

What `mrclab.controller.fabric.FabricController` does over gRPC sessions and threads, this does
on the event loop with the same functions: `compute_next_hops`, `desired_state`,
`write_plan.plan`, `Codec.update` (so every entry goes through p4emu's entity-write path
as a P4Runtime Update), and `LinkMonitor` (probe frames sent as PacketOut, answers taken
from PacketIn, the same verdict rules). A write takes `write_delay` seconds to land: the
controller's round trip to a switch.
"""

from __future__ import annotations

import logging

from mrclab.controller.link_monitor import LinkMonitor
from mrclab.controller.link_verdict import LinkVerdict
from mrclab.controller.next_hops import compute_next_hops
from mrclab.controller.p4rt_codec import Codec, P4Ids
from mrclab.controller.probe_liveness import LinkEvent, LinkStatus, VerdictFactory
from mrclab.controller.switch_state import ForwardingPolicy, SwitchState, desired_state
from mrclab.controller.write_plan import apply_ops, plan
from mrclab.fabric.model import Fabric
from mrclab.fabric.reconvergence import Reconvergence
from mrclab.sim.clock import EventLoop
from mrclab.sim.program import CompiledProgram
from mrclab.sim.switch import SimSwitch

log = logging.getLogger(__name__)


class SimController:
    def __init__(self, loop: EventLoop, fabric: Fabric, switches: dict[str, SimSwitch],
                 program: CompiledProgram, policy: ForwardingPolicy,
                 probe_interval: float, miss_limit: int, write_delay: float,
                 verdict: VerdictFactory = LinkVerdict) -> None:
        self.loop, self.fabric, self.switches, self.policy = loop, fabric, switches, policy
        self.codec = Codec(P4Ids(program.p4info))
        self.monitor = LinkMonitor(fabric, probe_interval, miss_limit, verdict=verdict,
                                   to_group=self.codec.probes_to_group)
        self.write_delay = write_delay
        self.next_hops = compute_next_hops(fabric)
        self.installed: dict[str, SwitchState] = {name: SwitchState() for name in switches}
        self.events: list[Reconvergence] = []
        self.updates_written = 0
        self._probing = False
        for name, switch in switches.items():
            switch.packet_in = lambda payload, md, name=name: self._packet_in(name, payload, md)

    def program_all(self) -> int:
        """Bring every switch to its desired state now; the number of updates."""
        return sum(self._program(name) for name in self.switches)

    def _program(self, name: str) -> int:
        current = self.installed[name]
        desired = desired_state(self.fabric.switches[name], self.next_hops[name], self.policy,
                                self.monitor.probe_group(name))
        written = 0
        for phase in plan(current, desired):
            self.switches[name].write([self.codec.update(op) for op in phase])
            apply_ops(current, phase)
            written += len(phase)
        self.updates_written += written
        return written

    def set_policy(self, policy: ForwardingPolicy) -> int:
        self.policy = policy
        return self.program_all()

    # --- probing
    def start_probing(self) -> None:
        if not self._probing:
            self._probing = True
            self.loop.at(self.loop.now, self._round)

    def stop_probing(self) -> None:
        self._probing = False

    def _round(self) -> None:
        if not self._probing:
            return
        now = self.loop.now
        events, probes = self.monitor.probes(now, int(now * 1000))
        for probe in probes:
            self.switches[probe.switch].packet_out(probe.frame,
                                                   self.codec.packet_out_metadata(probe.port))
        for event in events:
            self._on_link_event(event)
        self.loop.after(self.monitor.interval, self._round)

    def _packet_in(self, name: str, payload: bytes, metadata: dict[int, bytes]) -> None:
        event = self.monitor.answered(name, self.codec.packet_in_port(metadata), payload,
                                      self.loop.now)
        if event is not None:
            self._on_link_event(event)

    def _on_link_event(self, event: LinkEvent) -> None:
        old, self.next_hops = self.next_hops, compute_next_hops(self.fabric,
                                                                self.monitor.down_links())
        changed = [name for name in self.switches if old[name] != self.next_hops[name]]
        self.loop.after(self.write_delay, self._rewrite, event, changed)

    def _rewrite(self, event: LinkEvent, changed: list[str]) -> None:
        updates = sum(self._program(name) for name in changed)
        record = Reconvergence.of(event, self.loop.now, len(changed), updates)
        self.events.append(record)
        log.info("t=%.6f link %s %s: %d switches rewritten (%d updates)", self.loop.now,
                 record.link, event.status.value, len(changed), updates)

    def down_links(self) -> list[str]:
        return sorted(f"{a}:{pa}-{b}:{pb}" for (a, pa), (b, pb) in self.monitor.down_links())

    def first_reroute_after(self, t: float, status: str = LinkStatus.DOWN.value) -> float | None:
        """When the first rewrite for a link verdict of `status` after `t` landed."""
        times = [e.programmed_at for e in self.events if e.status == status and
                 e.detected_at >= t]
        return min(times) if times else None
