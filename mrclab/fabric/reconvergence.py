"""A link verdict and the fabric rewrite it caused, as the controller reports it: over its
control socket in the lab (`{"cmd": "reconvergence"}`), and from the simulator's controller
in virtual time. One record, parsed in one place, read by the lab CLI, the experiments and
the tests."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any, Protocol

from mrclab.jsonrecords import from_json, to_json

LinkEnds = tuple[tuple[str, int], tuple[str, int]]  # ((switch, port), (switch, port))


class LinkVerdictEvent(Protocol):
    """What the controller's link monitor decides (`mrclab.controller.probe_liveness.LinkEvent`)."""

    link: LinkEnds
    status: Enum
    detected_at: float
    first_miss_at: float | None


@dataclass(frozen=True, slots=True)
class Reconvergence:
    link: str  # "a:port-b:port"
    status: str  # "down" or "up"
    detected_at: float  # when the verdict was reached (the lab: wall clock)
    programmed_at: float  # when every affected switch had been rewritten (same clock)
    detect_s: float | None  # first missed probe -> verdict; None for an "up"
    total_s: float | None  # first missed probe -> rewritten
    from_command_s: float | None  # the lab CLI's link command -> rewritten
    switches: int
    updates: int

    @classmethod
    def of(cls, event: LinkVerdictEvent, programmed_at: float, switches: int, updates: int,
           clock_offset: float = 0.0, from_command_s: float | None = None) -> Reconvergence:
        """The record of `event`, whose rewrite was done at `programmed_at`; the event's
        times plus `clock_offset` are on the record's clock (the lab's controller judges on
        the monotonic clock and reports wall time)."""
        first = event.first_miss_at
        return cls(link=link_name(event.link), status=event.status.value,
                   detected_at=event.detected_at + clock_offset, programmed_at=programmed_at,
                   detect_s=None if first is None else event.detected_at - first,
                   total_s=None if first is None else programmed_at - clock_offset - first,
                   from_command_s=from_command_s, switches=switches, updates=updates)

    @property
    def program_s(self) -> float:
        """Verdict -> every affected switch rewritten."""
        return self.programmed_at - self.detected_at

    def joins(self, a: str, b: str) -> bool:
        """Whether this is the link between switches `a` and `b` (either way round)."""
        return {end.split(":")[0] for end in self.link.split("-")} == {a, b}

    def to_json(self) -> dict[str, Any]:
        return {**to_json(self), "program_s": self.program_s}

    @classmethod
    def from_json(cls, data: Any) -> Reconvergence:
        """Parse a reply; raises ValueError naming what is missing."""
        return from_json(cls, data)


def link_name(link: LinkEnds) -> str:
    (a, pa), (b, pb) = link
    return f"{a}:{pa}-{b}:{pb}"
