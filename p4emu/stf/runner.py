"""Run parsed STF commands against a device and judge the outputs.

The runner is independent of the pipeline implementation: it takes the device state and a
`process(port, data, now_us) -> [(port, data), ...]` function, so the judge can be tested
with a fake switch and the CLI plugs in p4emu's v1model pipeline.
"""

from __future__ import annotations

import logging
import operator
from collections.abc import Callable
from dataclasses import dataclass, field

from p4emu.runtime.action_profiles import GroupMember
from p4emu.runtime.actions import ActionCall
from p4emu.runtime.counters import CounterArray, CounterData
from p4emu.runtime.device import DeviceState, DirectCounter
from p4emu.runtime.errors import RuntimeStateError
from p4emu.runtime.match import Exact
from p4emu.runtime.meters import MeterArray, MeterConfig
from p4emu.runtime.model import MatchKind
from p4emu.runtime.pre import CloneSession
from p4emu.runtime.tables import Table, TableEntry
from p4emu.stf import commands as c
from p4emu.stf.judge import Verdict, judge
from p4emu.stf.keys import KeyValueError, key_match, resolve_key_name
from p4emu.stf.parser import StfError, check_width, parse_action, parse_int

log = logging.getLogger(__name__)

ProcessFn = Callable[[int, bytes, int], list[tuple[int, bytes]]]

_OPS = {"==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le,
        ">": operator.gt, ">=": operator.ge}

# µs of virtual time between two injected packets (meters and timestamps see this clock)
PACKET_SPACING_US = 1


@dataclass
class FileResult:
    filename: str
    verdict: Verdict
    counter_failures: list[str] = field(default_factory=list)
    counter_passes: int = 0
    # commands the switch refused (warnings: the run went on without them, as under BMv2)
    rejected: list[str] = field(default_factory=list)

    @property
    def passed(self) -> int:
        return self.verdict.passed + self.counter_passes

    @property
    def failed(self) -> int:
        return self.verdict.failed + len(self.counter_failures)

    @property
    def ok(self) -> bool:
        return self.failed == 0

    def report_lines(self) -> list[str]:
        lines = list(self.rejected)
        lines += [f"{self.filename}: {m.describe()}" for m in self.verdict.mismatches]
        lines += [f"{self.filename}: {msg}" for msg in self.counter_failures]
        lines.append(f"{self.filename}: {self.passed} passed, {self.failed} failed")
        return lines


class _Fail(Exception):
    """A line p4c's STF driver itself cannot turn into a switch command (unknown table,
    action, key field or parameter): the driver raises, so the test fails."""


class _Rejected(Exception):
    """A command the driver hands to simple_switch_CLI but the switch refuses (entry exists,
    table full, const default action, value too wide, unknown register, ...): the CLI
    prints an error and the driver carries on, so the run continues without it."""


class StfRun:
    """One STF file's run on one device."""

    def __init__(self, state: DeviceState, process: ProcessFn, filename: str) -> None:
        self.state = state
        self.process = process
        self.filename = filename
        self.outputs: dict[int, list[bytes]] = {}
        self.entry_ids: dict[str, tuple[Table, TableEntry]] = {}
        self.member_handles: dict[str, int] = {}
        self.group_handles: dict[str, int] = {}
        self.now_us = 0
        self.counter_failures: list[str] = []
        self.counter_passes = 0
        self.rejected: list[str] = []

    # --- helpers
    def _table(self, name: str) -> Table:
        try:
            return self.state.resolve_table(name)
        except KeyError as exc:
            raise _Fail(exc.args[0]) from None

    def _action_call(self, table: Table | None, spec: c.ActionSpec,
                     action_ids: frozenset[int] | None = None) -> ActionCall:
        try:
            action = self.state.resolve_action(spec.name, table, action_ids)
        except KeyError as exc:
            raise _Fail(exc.args[0]) from None
        given = dict(spec.args)
        unknown = set(given) - {p.name for p in action.params}
        if unknown:
            raise _Fail(f"action {action.name} has no parameter {sorted(unknown)[0]!r}")
        missing = [p.name for p in action.params if p.name not in given]
        if missing:
            raise _Fail(f"action {action.name}: missing parameter {missing[0]!r}")
        for p in action.params:
            try:
                check_width(given[p.name], p.bitwidth, f"action {action.name} parameter {p.name}")
            except ValueError as exc:
                raise _Fail(str(exc)) from None
        return ActionCall(action.id, tuple(int(given[p.name]) for p in action.params))

    def _match(self, table: Table, keys: tuple[tuple[str, str], ...]) -> tuple:
        names = [k.name for k in table.match_keys]
        # like p4c's driver: an exact key left out is 0; other kinds match anything
        match: list = [Exact(0) if k.match_kind == MatchKind.EXACT else None
                       for k in table.match_keys]
        for name, text in keys:
            try:
                index = resolve_key_name(name, names)
            except KeyValueError as exc:
                raise _Fail(f"table {table.name}: {exc}") from None
            try:
                match[index] = key_match(text, table.match_keys[index])
            except KeyValueError as exc:
                raise _Rejected(f"table {table.name}: {exc}") from None
        return tuple(match)

    def _priority(self, table: Table, priority: int | None) -> int:
        if not table.needs_priority:
            return 0  # the driver passes a priority to ternary-kind tables only
        if priority is None:
            raise _Rejected(f"table {table.name} needs a priority in each add")
        # the driver hands BMv2 10000 - p: a larger STF priority wins, as in P4Runtime
        return priority + 1

    # --- commands
    def _add(self, cmd: c.Add) -> None:
        table = self._table(cmd.table)
        if table.profile is not None:
            raise _Rejected(f"table {table.name} is indirect: use table_indirect_add")
        entry = TableEntry(self._match(table, cmd.keys), self._priority(table, cmd.priority),
                           action=self._action_call(table, cmd.action))
        table.insert(entry)
        if cmd.entry_id:
            self.entry_ids[cmd.entry_id] = (table, entry)

    def _indirect_add(self, cmd: c.IndirectAdd) -> None:
        table = self._table(cmd.table)
        if table.profile is None:
            raise _Fail(f"table {table.name} has no action profile")
        entry = TableEntry(self._match(table, cmd.keys), self._priority(table, cmd.priority),
                           member_id=None if cmd.is_group else cmd.handle,
                           group_id=cmd.handle if cmd.is_group else None)
        table.insert(entry)
        if cmd.entry_id:
            self.entry_ids[cmd.entry_id] = (table, entry)

    def _check_counter(self, cmd: c.CheckCounter) -> None:
        try:
            counter = self.state.resolve_counter(cmd.counter)
        except KeyError as exc:
            raise _Fail(exc.args[0]) from None
        if isinstance(counter, DirectCounter):
            if cmd.entry_id is None or cmd.entry_id not in self.entry_ids:
                raise _Fail(f"direct counter {counter.info.name} needs an entry id "
                            "given by 'add ... = <id>'")
            data: CounterData = self.entry_ids[cmd.entry_id][1].counter
        else:
            if cmd.index is None:
                raise _Fail(f"counter {counter.info.name} is indexed: give an index")
            data = counter.read(cmd.index)
        kind = cmd.kind or "packets"
        actual = data.packets if kind == "packets" else data.bytes
        where = cmd.index if cmd.index is not None else cmd.entry_id
        if _OPS[cmd.op](actual, cmd.value):
            self.counter_passes += 1
        else:
            self.counter_failures.append(
                f"line {cmd.line}: check_counter {cmd.counter}({where}) {kind} {cmd.op} "
                f"{cmd.value} failed: {kind} = {actual}")

    def _remove(self, cmd: c.Remove) -> None:
        if cmd.entry_id is None:
            for table in self.state.objects("tables"):
                if not table.info.is_const:
                    table.clear()
            self.entry_ids.clear()
            return
        if cmd.entry_id not in self.entry_ids:
            raise _Fail(f"no entry with id {cmd.entry_id!r}")
        table, entry = self.entry_ids.pop(cmd.entry_id)
        table.delete(entry)

    def _ints(self, args: tuple[str, ...]) -> list[int]:
        try:
            return [parse_int(a) for a in args]
        except ValueError as exc:
            raise _Fail(str(exc)) from None

    def _rates(self, texts: tuple[str, ...]) -> MeterConfig:
        if len(texts) != 2:
            raise _Fail("meter rates: give committed and peak rate:burst")
        try:
            (cir, cbs), (pir, pbs) = [(float(r), int(b, 0)) for r, b in
                                      (t.split(":", 1) for t in texts)]
        except ValueError:
            raise _Fail(f"bad meter rates {' '.join(texts)!r}") from None
        # BMv2's CLI rates are units per µs
        return MeterConfig(round(cir * 1e6), cbs, round(pir * 1e6), pbs)

    def _cli(self, cmd: c.CliCommand) -> None:
        name, args, pre = cmd.name, cmd.args, self.state.pre
        if name in ("mirroring_get", "counter_read", "register_read", "meter_get_rates"):
            log.info("%s:%d: %s (read-only, ignored)", self.filename, cmd.line, name)
        elif name == "mirroring_add":
            session, port = self._ints(args)
            pre.set_clone_session(CloneSession(session, egress_port=port))
        elif name == "mirroring_add_mc":
            session, group = self._ints(args)
            pre.set_clone_session(CloneSession(session, mcast_group=group))
        elif name == "mirroring_delete":
            pre.delete_clone_session(self._ints(args)[0])
        elif name == "mc_mgrp_create":
            pre.create_group(self._ints(args)[0])
        elif name == "mc_node_create":
            rid, *ports = self._ints(args)
            pre.create_node(rid, ports)
        elif name == "mc_node_update":
            handle, *ports = self._ints(args)
            pre.update_node(handle, ports)
        elif name == "mc_node_associate":
            group, handle = self._ints(args)
            pre.associate(group, handle)
        elif name == "counter_write":
            counter = self._resolve(self.state.resolve_counter, args[0])
            if not isinstance(counter, CounterArray):
                raise _Fail(f"counter_write: {args[0]} is a direct counter")
            index, packets, nbytes = self._ints(args[1:])
            counter.write(index, packets, nbytes)
        elif name == "register_write":
            register = self._resolve(self.state.resolve_register, args[0])
            index, value = self._ints(args[1:])
            # the CLI sends an i64 and BMv2's Register masks it to the register's width
            # (stateful.cpp export_bytes) rather than refusing a wide value
            if not 0 <= value < 1 << 63:
                raise _Fail(f"register_write: value {value} is not a 64-bit signed integer")
            register.set(index, value & register.mask)
        elif name == "register_reset":
            self._resolve(self.state.resolve_register, args[0]).reset()
        elif name in ("meter_set_rates", "meter_array_set_rates"):
            meter = self._resolve(self.state.resolve_meter, args[0])
            if not isinstance(meter, MeterArray):
                raise _Fail(f"{name}: {args[0]} is a direct meter")
            if name == "meter_set_rates":
                meter.set_config(self._ints(args[1:2])[0], self._rates(args[2:]))
            else:
                config = self._rates(args[1:])
                for index in range(meter.info.size):
                    meter.set_config(index, config)
        else:
            self._action_profile_cli(cmd)

    def _action_profile_cli(self, cmd: c.CliCommand) -> None:
        profile = self._resolve(self.state.resolve_action_profile, cmd.args[0])
        key = profile.info.name
        if cmd.name == "act_prof_create_member":
            if len(cmd.args) < 2:
                raise _Fail("act_prof_create_member needs an action call")
            try:
                spec = parse_action(cmd.args[1])
            except ValueError as exc:
                raise _Fail(str(exc)) from None
            call = self._action_call(None, spec, profile.allowed)
            handle = self.member_handles.get(key, 0)
            profile.insert_member(handle, call)
            self.member_handles[key] = handle + 1
        elif cmd.name == "act_prof_create_group":
            handle = self.group_handles.get(key, 0)
            profile.insert_group(handle)
            self.group_handles[key] = handle + 1
        elif cmd.name == "act_prof_add_member_to_group":
            member, group = self._ints(cmd.args[1:])
            if group not in profile.groups:
                raise _Fail(f"no group {group} in {key}")
            members = list(profile.groups[group].members) + [GroupMember(member)]
            profile.modify_group(group, members)
        else:
            raise _Fail(f"unsupported command {cmd.name}")

    def _resolve(self, resolver, name: str):
        try:
            return resolver(name)
        except KeyError as exc:
            raise _Fail(exc.args[0]) from None

    def execute(self, cmd: c.Command) -> None:
        try:
            if isinstance(cmd, c.Packet):
                self.now_us += PACKET_SPACING_US
                for port, data in self.process(cmd.port, cmd.data, self.now_us):
                    self.outputs.setdefault(port, []).append(data)
            elif isinstance(cmd, c.Add):
                self._add(cmd)
            elif isinstance(cmd, c.IndirectAdd):
                self._indirect_add(cmd)
            elif isinstance(cmd, c.SetDefault):
                table = self._table(cmd.table)
                table.set_default(self._action_call(table, cmd.action))
            elif isinstance(cmd, c.CheckCounter):
                self._check_counter(cmd)
            elif isinstance(cmd, c.Remove):
                self._remove(cmd)
            elif isinstance(cmd, c.CliCommand):
                try:
                    self._cli(cmd)
                except _Fail as exc:  # passed to the CLI verbatim: its errors are not fatal
                    raise _Rejected(str(exc)) from None
            # Expect / NoPacket / Wait: nothing happens at run time
        except (_Rejected, RuntimeStateError) as exc:
            self.rejected.append(f"{self.filename}:{cmd.line}: warning: {exc} (the switch "
                                 "refuses this command; the run goes on without it)")
        except _Fail as exc:
            raise StfError(self.filename, cmd.line, str(exc)) from None


def run_commands(commands: list[c.Command], state: DeviceState, process: ProcessFn,
                 filename: str = "<stf>") -> FileResult:
    """Execute `commands` in order on `state`, then judge the outputs."""
    run = StfRun(state, process, filename)
    expects = [cmd for cmd in commands if isinstance(cmd, c.Expect)]
    watched = {cmd.port for cmd in commands if isinstance(cmd, c.Packet | c.Expect)}
    for cmd in commands:
        run.execute(cmd)
    verdict = judge(expects, run.outputs, watched)
    return FileResult(filename, verdict, run.counter_failures, run.counter_passes,
                      run.rejected)
