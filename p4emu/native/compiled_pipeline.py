"""What makes a pipeline compiled: `CompiledPipeline`, the one type by which the switch's
compiled traffic manager tells a pipeline it can call from C from one it calls through
Python (`p4emu.switch.native_traffic_manager`).

Apart from `pipeline.py` so that the switch can ask the question without importing the C
emitter and the compiler behind it.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Any, NamedTuple


class EntryPoints(NamedTuple):
    """A compiled pipeline's C functions and the state they are called with:
    `ingress(state, port, frame, now_us)` -> jobs, and `egress(state, job, enq_timestamp,
    enq_qdepth, deq_timedelta, deq_qdepth, now_us)` -> [(port, frame)], as
    `p4emu.v1model.pipeline.Pipeline`'s methods of the same names."""

    ingress: Callable[..., Any]
    egress: Callable[..., Any]
    state: object


class CompiledPipeline(ABC):
    """A pipeline whose per-packet work is C functions of a built module (`NativePipeline`).
    A compiled traffic manager calls `entry_points()` from C, without a Python frame per
    packet; any other pipeline it calls through `ingress`/`egress`."""

    @abstractmethod
    def entry_points(self) -> EntryPoints:
        """The C functions and the state to call them with."""
