"""Table entries, lookup results and field-match validation (used by `tables`)."""

from __future__ import annotations

from dataclasses import dataclass, field

from p4emu.runtime.actions import ActionCall
from p4emu.runtime.counters import CounterData
from p4emu.runtime.errors import InvalidEntry
from p4emu.runtime.match import Exact, FieldMatch, Lpm, Optional, Range, Ternary, lpm_mask
from p4emu.runtime.meters import MeterCell, MeterConfig
from p4emu.runtime.model import MatchKind


@dataclass(eq=False)
class TableEntry:
    """One entry. `match` has one FieldMatch|None per non-selector key field, in order.

    Exactly one of `action` (direct tables), `member_id` or `group_id` (tables with an
    action profile / selector) is set. `counter` is the direct counter cell, `meter` the
    direct meter cell (created by the table when it has a direct meter).
    """

    match: tuple[FieldMatch | None, ...]
    priority: int = 0
    action: ActionCall | None = None
    member_id: int | None = None
    group_id: int | None = None
    counter: CounterData = field(default_factory=CounterData)
    meter_config: MeterConfig | None = None
    controller_metadata: int = 0
    metadata: bytes = b""
    idle_timeout_ns: int = 0
    is_const: bool = False
    # maintained by the table
    seq: int = 0
    meter: MeterCell | None = None
    last_hit_us: int = 0
    _result: LookupResult | None = field(default=None, repr=False)


class LookupResult:
    """Outcome of one lookup. `action_id` is None when nothing runs (no default action or
    an empty selector group); `meter_color` is set only on a hit of a table with a direct
    meter."""

    __slots__ = ("hit", "action_id", "args", "entry", "meter_color")

    def __init__(self, hit: bool, action_id: int | None, args: tuple[int, ...],
                 entry: TableEntry | None, meter_color: int | None = None) -> None:
        self.hit = hit
        self.action_id = action_id
        self.args = args
        self.entry = entry
        self.meter_color = meter_color

    def __repr__(self) -> str:
        return (f"LookupResult(hit={self.hit}, action_id={self.action_id}, args={self.args}, "
                f"meter_color={self.meter_color})")


def canon_field(fm: FieldMatch | None, kind: MatchKind, width: int,
                 where: str) -> FieldMatch | None:
    """Validate one field match and reduce don't-care forms to None."""
    full = (1 << width) - 1

    def fits(v: int) -> None:
        if not 0 <= v <= full:
            raise InvalidEntry(f"{where}: value {v:#x} does not fit bit<{width}>")

    if fm is None:
        if kind == MatchKind.EXACT:
            raise InvalidEntry(f"{where}: exact field needs a value")
        return None
    if kind == MatchKind.EXACT and isinstance(fm, Exact):
        fits(fm.value)
        return fm
    if kind == MatchKind.LPM and isinstance(fm, Lpm):
        fits(fm.value)
        if not 0 <= fm.prefix_len <= width:
            raise InvalidEntry(f"{where}: prefix length {fm.prefix_len} not in 0..{width}")
        if fm.value & ~lpm_mask(fm.prefix_len, width):
            raise InvalidEntry(f"{where}: lpm value has bits past the prefix")
        return None if fm.prefix_len == 0 else fm
    if kind == MatchKind.TERNARY and isinstance(fm, Ternary):
        fits(fm.value)
        fits(fm.mask)
        if fm.value & ~fm.mask:
            raise InvalidEntry(f"{where}: ternary value has bits outside the mask")
        return None if fm.mask == 0 else fm
    if kind == MatchKind.RANGE and isinstance(fm, Range):
        fits(fm.low)
        fits(fm.high)
        if fm.low > fm.high:
            raise InvalidEntry(f"{where}: range low > high")
        return None if (fm.low, fm.high) == (0, full) else fm
    if kind == MatchKind.OPTIONAL and isinstance(fm, Optional):
        fits(fm.value)
        return fm
    raise InvalidEntry(f"{where}: {type(fm).__name__} match on a {kind} field")
