"""Mirror one switch's Python run-time state into its native State.

Tables and action profiles stay the control plane's (P4Runtime writes go to the Python
objects); their `on_change` hooks set a dirty byte that the C entry points check, and
`Mirror.refresh` then reloads every table's C copy. Hit counts of table entries come
back as deltas at each reload (and on `sync`). Registers and counters are not copied:
their Python objects are given buffers (array('Q')) the C code writes, so P4Runtime
reads see the data plane's values.
"""

from __future__ import annotations

from array import array

from p4emu.native.ctables import MAXA, TableShape
from p4emu.native.errors import refuse
from p4emu.runtime.counters import CounterArray, CounterData
from p4emu.runtime.device import DeviceState
from p4emu.runtime.registers import RegisterArray
from p4emu.runtime.tables import Table

K_ACTION, K_GROUP, K_NONE = 0, 1, 2
M_HASH, M_SCAN = 0, 1
FULL = (1 << 64) - 1


class CellView:
    """A counter cell whose packets/bytes live in the shared buffer."""

    __slots__ = ("buf", "i")

    def __init__(self, buf: array, i: int) -> None:
        self.buf, self.i = buf, i

    @property
    def packets(self) -> int:
        return self.buf[2 * self.i]

    @packets.setter
    def packets(self, v: int) -> None:
        self.buf[2 * self.i] = v

    @property
    def bytes(self) -> int:
        return self.buf[2 * self.i + 1]

    @bytes.setter
    def bytes(self, v: int) -> None:
        self.buf[2 * self.i + 1] = v


class CellsView:
    """`CounterArray.cells` read and written through the shared buffer."""

    def __init__(self, buf: array) -> None:
        self.buf = buf

    def __len__(self) -> int:
        return len(self.buf) // 2

    def __getitem__(self, i: int) -> CellView:
        if not 0 <= i < len(self):
            raise IndexError(i)
        return CellView(self.buf, i)

    def __setitem__(self, i: int, cell: CounterData) -> None:
        self.buf[2 * i], self.buf[2 * i + 1] = cell.packets, cell.bytes


def share_register(reg: RegisterArray) -> array:
    if not isinstance(reg.values, array):
        reg.values = array("Q", reg.values)
    return reg.values


def share_counter(cnt: CounterArray) -> array:
    if isinstance(cnt.cells, CellsView):
        return cnt.cells.buf
    buf = array("Q", [0] * (2 * len(cnt.cells)))
    for i, c in enumerate(cnt.cells):
        buf[2 * i], buf[2 * i + 1] = c.packets, c.bytes
    cnt.cells = CellsView(buf)  # type: ignore[assignment]
    return buf


def _words(values: list[int]) -> bytes:
    return array("Q", [v & FULL for v in values]).tobytes()


class Mirror:
    """The C copies of one switch's tables."""

    def __init__(self, cstate, state: DeviceState, shapes: list[TableShape]) -> None:
        self.cstate = cstate
        self.state = state
        self.shapes = shapes
        self.tables: list[Table] = [state.tables[s.name] for s in shapes]
        self.loaded: list[list] = [[] for _ in shapes]  # entries in C record order
        self.dirty = bytearray(1)
        self.changed: set[int] = set(range(len(shapes)))  # tables to reload
        self._hooks: list[tuple[list, object]] = []
        users: dict[int, list[int]] = {}  # id(profile) -> indices of the tables using it
        for i, t in enumerate(self.tables):
            if t.direct_meter is not None or t._idle_timeout:
                raise refuse(f"table {t.name}: direct meter or idle timeout")
            self._hook(t.on_change, [i])
            if t.profile is not None:
                users.setdefault(id(t.profile), []).append(i)
        for t in self.tables:
            if t.profile is not None and id(t.profile) in users:
                self._hook(t.profile.on_change, users.pop(id(t.profile)))

    def _hook(self, hooks: list, indices: list[int]) -> None:
        def mark() -> None:
            self.changed.update(indices)
            self.dirty[0] = 1
        hooks.append(mark)
        self._hooks.append((hooks, mark))

    def detach(self) -> None:
        for hooks, mark in self._hooks:
            if mark in hooks:
                hooks.remove(mark)
        self._hooks.clear()

    def sync(self, indices=None) -> None:
        """Add the entries' hits since the last call to their Python counters (of the
        tables `indices`, default all)."""
        for i in range(len(self.loaded)) if indices is None else indices:
            entries = self.loaded[i]
            if not entries:
                continue
            hits = array("Q")
            hits.frombytes(self.cstate.take_hits(i))
            for k, entry in enumerate(entries):
                if hits[2 * k]:
                    c = entry.counter
                    c.packets += hits[2 * k]
                    c.bytes += hits[2 * k + 1]

    def refresh(self) -> None:
        """Reload the C copies of the tables changed since the last refresh."""
        changed, self.changed = sorted(self.changed), set()
        self.dirty[0] = 0
        self.sync(changed)
        for i in changed:
            self._load(i, self.shapes[i], self.tables[i])

    def _load(self, i: int, shape: TableShape, table: Table) -> None:
        local = {aid: j for j, aid in enumerate(shape.action_ids)}
        nk = len(table.match_keys)
        widths = [k.bitwidth for k in table.match_keys]
        full = [(1 << w) - 1 for w in widths]
        groups: dict[int, int] = {}
        records: list[int] = []
        ranges: list[int] = []
        entries = []

        def action_words(call) -> list[int]:
            args = list(call.args)
            if len(args) > MAXA:
                raise refuse(f"table {table.name}: more than {MAXA} action arguments")
            return [local.get(call.action_id, -1)] + args + [0] * (MAXA - len(args))

        def target(entry) -> list[int]:
            if entry.action is not None:
                return [K_ACTION] + action_words(entry.action)
            if entry.member_id is not None:
                member = table.profile.members.get(entry.member_id)
                if member is None:
                    return [K_NONE, -1] + [0] * MAXA
                return [K_ACTION] + action_words(member.action)
            g = groups.setdefault(entry.group_id, len(groups))
            return [K_GROUP, g] + [0] * MAXA

        def add(keys: list[int], masks: list[int], level: int, entry) -> None:
            records.extend(keys + masks + [level] + target(entry))
            entries.append(entry)

        if table._mode == "exact":
            levels = [full] if nk else [[]]
            mode = M_HASH
            for entry in table._exact.values():
                add([fm.value for fm in entry.match], [0] * nk, 0, entry)
        elif table._mode == "lpm":
            mode = M_HASH
            pos = table._lpm_pos
            levels = []
            for level, (mask, bucket) in enumerate(table._lpm_levels):
                levels.append([mask if j == pos else full[j] for j in range(nk)])
                for key, entry in bucket.items():
                    add(list(key) if isinstance(key, tuple) else [key], [0] * nk, level, entry)
        else:
            mode = M_SCAN
            levels = []
            for _, masks, entry_ranges, entry in table._scan:
                km, kv = [0] * nk, [0] * nk
                for j, m, v in masks:
                    km[j], kv[j] = m, v
                add(kv, km, 0, entry)
                bounds, bits = [0] * (2 * nk), 0
                for j, low, high in entry_ranges:
                    bits |= 1 << j
                    bounds[2 * j], bounds[2 * j + 1] = low, high
                ranges.extend([bits] + bounds)
            if not any(ranges[k] for k in range(0, len(ranges), 1 + 2 * nk)):
                ranges = []
        gstart, gmem = [0], []
        profile = table.profile
        for gid in sorted(groups, key=groups.get):
            group = profile.groups.get(gid) if profile is not None else None
            for gm in group.members if group is not None else ():
                member = profile.members[gm.member_id]
                watch = -1 if gm.watch_port is None else gm.watch_port
                gmem.extend([action_words(member.action)[0], watch, gm.weight]
                            + action_words(member.action)[1:])
            gstart.append(len(gmem) // (3 + MAXA))
        d = table.default
        def_action = local.get(d.action_id, -1) if d is not None else -1
        def_args = list(d.args) if d is not None else []
        self.cstate.load_table(i, nk, mode, _words([m for lv in levels for m in lv]),
                               _words(records), def_action, _words(def_args),
                               _words(gstart), _words(gmem), _words(ranges))
        self.loaded[i] = entries
