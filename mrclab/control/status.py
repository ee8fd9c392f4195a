"""The controller's answer to `{"cmd": "status"}` on its control socket: one record, written
by the controller and parsed back in one place for the lab, its CLI, the demo and the
tests."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mrclab.jsonrecords import from_json, to_json


@dataclass(frozen=True, slots=True)
class SwitchStatus:
    """The controller's view of one switch's P4Runtime session."""

    primary: bool  # the controller holds the switch's primary arbitration
    synced: bool  # its entries are the ones the controller wants
    connects: int  # streams opened so far (a restarted switch adds one)


@dataclass(frozen=True, slots=True)
class ControllerStatus:
    ready: bool  # every switch answered or was given up on, and was programmed
    ready_s: float | None  # start -> ready
    spray_mode: int
    entries: int  # table entries installed over the fabric
    missing: list[str] = field(default_factory=list)  # switches given up on at start
    switches: dict[str, SwitchStatus] = field(default_factory=dict)
    down_links: list[str] = field(default_factory=list)  # "a:port-b:port", sorted
    held_link_verdicts: int = 0  # silences not taken for failures (a switch stalled)

    def to_json(self) -> dict[str, Any]:
        return to_json(self)

    @classmethod
    def from_json(cls, data: Any) -> ControllerStatus:
        """Parse a reply; raises ValueError naming what is missing or malformed."""
        return from_json(cls, data)
