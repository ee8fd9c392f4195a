"""The fabric controller in virtual time: the lab controller's core on the event loop.

`ControllerCore` makes every decision (routes, the switches to rewrite, their write
phases, probe frames, link verdicts, the records); this drives it as
`mrclab.controller.fabric.FabricController` drives it over P4Runtime streams and threads:
probe rounds come from the event loop, PacketIns from the simulated switches, and every
update goes through p4emu's entity-write path as a P4Runtime Update. A write takes
`write_delay` seconds to land: the controller's round trip to a switch.
"""

from __future__ import annotations

import logging

from mrclab.controller.core import ControllerCore, Reroute
from mrclab.controller.link_verdict import LinkVerdict
from mrclab.controller.next_hops import Routing, compute_next_hops
from mrclab.controller.p4rt_codec import Codec, P4Ids
from mrclab.controller.probe_liveness import LinkEvent, LinkStatus, VerdictFactory
from mrclab.controller.switch_state import ForwardingPolicy, SwitchState
from mrclab.endpoint.clock import EventLoop
from mrclab.fabric.model import Fabric
from mrclab.fabric.reconvergence import Reconvergence
from mrclab.sim.program import CompiledProgram
from mrclab.sim.switch import SimSwitch


class SimController:
    def __init__(self, loop: EventLoop, fabric: Fabric, switches: dict[str, SimSwitch],
                 program: CompiledProgram, policy: ForwardingPolicy,
                 probe_interval: float, miss_limit: int, write_delay: float,
                 verdict: VerdictFactory = LinkVerdict,
                 routing: Routing = compute_next_hops) -> None:
        self.loop, self.switches = loop, switches
        self.core = ControllerCore(fabric, Codec(P4Ids(program.p4info)), policy,
                                   probe_interval=probe_interval, miss_limit=miss_limit,
                                   routing=routing, verdict=verdict,
                                   event_log_level=logging.INFO)
        self.write_delay = write_delay
        self.updates_written = 0
        self._probing = False
        for name, switch in switches.items():
            switch.packet_in = lambda payload, md, name=name: self._packet_in(name, payload, md)

    @property
    def events(self) -> list[Reconvergence]:
        return self.core.reconvergences

    def program_all(self) -> int:
        """Bring every switch to its desired state now; the number of updates."""
        return sum(self._program(name) for name in self.switches)

    def _program(self, name: str) -> int:
        current = self.core.installed[name]
        if current is None:  # not written yet: a simulated switch starts empty
            current = SwitchState()
        written = self.core.write(name, current, self.core.desired(name),
                                  self.switches[name].write)
        self.updates_written += written
        return written

    def set_policy(self, policy: ForwardingPolicy) -> int:
        return sum(self._program(name) for name in self.core.set_policy(policy))

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
        events, packet_outs = self.core.probe_round(now, int(now * 1000))
        for out in packet_outs:
            self.switches[out.switch].packet_out(out.frame, out.metadata)
        for event in events:
            self._on_link_event(event)
        self.loop.after(self.core.monitor.interval, self._round)

    def _packet_in(self, name: str, payload: bytes, metadata: dict[int, bytes]) -> None:
        event = self.core.packet_in(name, metadata, payload, self.loop.now)
        if event is not None:
            self._on_link_event(event)

    def _on_link_event(self, event: LinkEvent) -> None:
        self.loop.after(self.write_delay, self._rewrite, self.core.link_event(event))

    def _rewrite(self, reroute: Reroute) -> None:
        updates = sum(self._program(name) for name in reroute.switches)
        self.core.reconverged(reroute, self.loop.now, len(reroute.switches), updates)

    def down_links(self) -> list[str]:
        return self.core.down_link_names()

    def first_reroute_after(self, t: float, status: str = LinkStatus.DOWN.value) -> float | None:
        """When the first rewrite for a link verdict of `status` after `t` landed."""
        times = [e.programmed_at for e in self.events if e.status == status and
                 e.detected_at >= t]
        return min(times) if times else None
