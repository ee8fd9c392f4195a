"""The simulator's fabric at native speed: p4emu's `SimLoop` (p4emu/native/rt/sim_*.c), an
event loop in C whose heap also holds the wires' frames and the switches' serve timers.

A frame between two switches whose pipeline and traffic manager are compiled goes wire ->
ingress -> queues -> egress -> wire without a Python frame, and a host's NIC queue sends
from C; Python runs where a host's endpoint acts (a frame reaching its NIC, its timers),
for the controller (PacketIn, writes) and for the experiments' schedules. Nothing is
modelled twice: the P4 pipeline and traffic manager are the compiled ones the Python path
also calls, and the loop, `Wire`, `NicQueue` and the switch's timer and clock are the
Python ones' semantics to the event (`mrclab.endpoint.clock.EventLoop`,
`mrclab.sim.links`, `mrclab.sim.switch.SimSwitch`), the same events in the same order, so
the records are byte-identical (tests/unit/sim/test_native_fabric.py).

`SimSettings.fabric` chooses: "python" (the reference: `EventLoop`, `Wire`, `NicQueue`),
"native", or "auto" (native where the C module builds); `$MRCLAB_SIM_FABRIC` sets the
default.
"""

from __future__ import annotations

import functools
import gc
import logging
import os
import random
from collections.abc import Iterator
from contextlib import contextmanager

from mrclab.sim.links import LinkModel, LinkState, NicQueue, Receive, Wire, WireCounters

log = logging.getLogger(__name__)

FABRICS = ("auto", "native", "python")
FABRIC_ENV = "MRCLAB_SIM_FABRIC"
# allocations between two collections of CPython's young generation while the native
# loop runs (CPython's default: 700). Per packet the endpoint makes tracked objects that
# live a few microseconds of virtual time (parsed frames, headers, timers' arguments); at
# 700 most are still alive at a collection, so each is traversed and promoted, a sixth
# of a run's work; at this many nearly all have gone first. Cyclic garbage waits longer
# for it, a few megabytes at most.
YOUNG_COLLECTION_EVERY = 50_000


def default_fabric() -> str:
    """`$MRCLAB_SIM_FABRIC`, else auto."""
    return os.environ.get(FABRIC_ENV) or "auto"


def native_loop(choice: str):
    """A new `SimLoop` for `choice` (FABRICS), or None for the Python loop: "python"; or
    "auto" when the C module does not build (logged). "native" raises then."""
    if choice not in FABRICS:
        raise ValueError(f"simulator fabric {choice!r}: expected one of {', '.join(FABRICS)}")
    if choice == "python":
        return None
    try:
        return _loop_type()()
    except (RuntimeError, OSError) as exc:
        if choice == "native":
            raise
        log.info("the native fabric did not build (%s); running the Python one",
                 str(exc).splitlines()[0])
        return None


@functools.cache
def _loop_type() -> type:
    """The C module's `SimLoop`, its runs under `fewer_collections` (built once)."""
    from p4emu.switch.native_tm_module import tm_module

    class NativeLoop(tm_module().SimLoop):
        __slots__ = ()

        def run(self, until: float, stop=None) -> None:
            with fewer_collections():
                super().run(until, stop)

    return NativeLoop


@contextmanager
def fewer_collections() -> Iterator[None]:
    """The young generation collected every YOUNG_COLLECTION_EVERY allocations at most
    (unless collection is off), its threshold restored after."""
    young, *older = gc.get_threshold()
    if young == 0:  # collection off: leave it so
        yield
        return
    gc.set_threshold(max(young, YOUNG_COLLECTION_EVERY), *older)
    try:
        yield
    finally:
        gc.set_threshold(young, *older)


class NativeWire:
    """`Wire`'s interface over a wire of a `SimLoop`: what `NicQueue`, a switch's
    transmit and `SimNetwork` (failures, counters) use of it."""

    def __init__(self, loop, rate_bps: float, delay: float, loss: float, rng: random.Random,
                 port: int, far: Receive | int, model: LinkModel = LinkModel.WIRE) -> None:
        """`far`: the index in `loop` of the switch at the far end, or the far node's
        `receive(port, frame)`."""
        self.loop, self.rate_bps, self.delay, self.loss = loop, rate_bps, delay, loss
        self.model, self.port = model, port
        bit_time = 8 / rate_bps if model is LinkModel.WIRE else 0.0
        self.index = loop.add_wire(bit_time, delay, loss, rng, port, far)
        self._state = LinkState.UP

    @property
    def state(self) -> LinkState:
        return self._state

    @state.setter
    def state(self, state: LinkState) -> None:
        self._state = state
        self.loop.set_wire_up(self.index, state is LinkState.UP)

    @property
    def counters(self) -> WireCounters:
        return WireCounters(*self.loop.wire_counters(self.index))

    def send(self, frame: bytes, depart: float) -> None:
        """A frame whose transmission began at `depart` (>= now)."""
        self.loop.wire_send(self.index, frame, depart)


def nic_queue(loop, wire: Wire | NativeWire):
    """A host NIC's queue on `wire`: on a wire of the native fabric the loop's own (a
    `SimNic`, `NicQueue` in C), else a `NicQueue`."""
    if isinstance(wire, NativeWire):
        return wire.loop.add_nic(wire.index, wire.rate_bps, wire.model is LinkModel.VETH)
    return NicQueue(loop, wire)
