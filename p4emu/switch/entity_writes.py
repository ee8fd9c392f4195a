"""Apply one P4Runtime Update (INSERT / MODIFY / DELETE of an entity) to a DeviceState."""

from __future__ import annotations

import logging

from google.rpc import code_pb2
from p4.v1 import p4runtime_pb2

from p4emu.runtime.actions import ActionCall
from p4emu.runtime.counters import CounterArray
from p4emu.runtime.device import DeviceState, DirectMeter
from p4emu.runtime.errors import EntryNotFound, RuntimeStateError
from p4emu.runtime.meters import MeterArray
from p4emu.runtime.pre import CloneSession
from p4emu.runtime.tables import INT32_MAX, Table, TableEntry
from p4emu.switch import codec_entities as ce
from p4emu.switch import codec_tables as ct
from p4emu.switch.p4rt_errors import P4RTError, from_runtime, invalid

log = logging.getLogger(__name__)

Update = p4runtime_pb2.Update
INSERT, MODIFY, DELETE = Update.INSERT, Update.MODIFY, Update.DELETE


def lookup_object(collection: dict, obj_id: int, kind: str):
    """The object with P4Info id `obj_id` (0 or unknown: INVALID_ARGUMENT)."""
    obj = collection.get(obj_id) if obj_id else None
    if obj is None:
        raise invalid(f"no {kind} with id {obj_id}")
    return obj


def table_of(state: DeviceState, table_id: int) -> Table:
    return lookup_object(state.tables, table_id, "table")


def entry_key(table: Table, pb: p4runtime_pb2.TableEntry) -> TableEntry:
    """A TableEntry holding only the match and priority of `pb` (for get/delete)."""
    match = ct.decode_match(table.info, pb.match)
    ct.check_priority(table.info, pb.priority)
    return TableEntry(match=match, priority=pb.priority)


def find_entry(table: Table, pb: p4runtime_pb2.TableEntry) -> TableEntry:
    key = entry_key(table, pb)
    try:
        return table.get(key.match, key.priority)
    except EntryNotFound:
        if not (table.needs_priority and table.info.const_entries):
            raise
    # const entries keep BMv2's priority; reads show PI's INT32_MAX - p (encode_entry)
    entry = table.get(key.match, INT32_MAX - key.priority)
    if not entry.is_const:
        raise EntryNotFound(f"table {table.name}: no such entry")
    return entry


class EntityWriter:
    """Turns Updates into calls on the run-time state; raises P4RTError on refusal."""

    def __init__(self, state: DeviceState, forms: dict | None = None) -> None:
        self.state = state
        self.info = state.info
        # how the client encoded ports (deprecated ints or bytes), echoed back on reads
        self.forms = forms if forms is not None else {}

    def apply(self, update: p4runtime_pb2.Update) -> None:
        if update.type not in (INSERT, MODIFY, DELETE):
            raise invalid("update type must be INSERT, MODIFY or DELETE")
        entity = update.entity
        kind = entity.WhichOneof("entity")
        handler = getattr(self, f"_write_{kind}", None) if kind else None
        if handler is None:
            if kind is None:
                raise invalid("the update has no entity")
            raise P4RTError(code_pb2.UNIMPLEMENTED, f"writing {kind} is not supported")
        try:
            handler(update.type, getattr(entity, kind))
        except RuntimeStateError as exc:
            raise from_runtime(exc) from None

    # --- tables
    def _write_table_entry(self, op: int, pb: p4runtime_pb2.TableEntry) -> None:
        table = table_of(self.state, pb.table_id)
        if pb.is_const:  # spec 9.1: only the server sets it
            raise invalid(f"table {table.name}: is_const must be false in a write")
        if pb.is_default_action:
            self._write_default(op, table, pb)
            return
        if op == MODIFY and not pb.HasField("action"):
            # spec 9.1.2: the action stays; only the direct resources given change (this
            # is also the one write a const table accepts)
            self._modify_resources(table, pb)
            return
        if table.info.is_const:
            raise P4RTError(code_pb2.PERMISSION_DENIED, f"table {table.name} is const")
        if op == DELETE:  # by key only: every other field is ignored (spec 9.1)
            table.delete(entry_key(table, pb))
            return
        if pb.HasField("time_since_last_hit"):  # read-only (PI table_write)
            raise invalid("time_since_last_hit must not be set in a write")
        if op == INSERT and not ct.match_keys(table.info):
            raise invalid(f"table {table.name} is keyless: only its default entry can be set")
        entry = self._decode_entry(table, pb)
        if op == INSERT:
            table.insert(entry)
            entry.last_hit_us = table.clock_us()  # the idle clock starts at insertion
            return
        table.modify(entry)
        if pb.HasField("counter_data"):
            stored = table.get(entry.match, entry.priority)
            stored.counter = ce.decode_counter_data(pb.counter_data)

    def _modify_resources(self, table: Table, pb: p4runtime_pb2.TableEntry) -> None:
        if pb.HasField("time_since_last_hit"):
            raise invalid("time_since_last_hit must not be set in a write")
        entry = find_entry(table, pb)
        if pb.HasField("counter_data"):
            if table.info.direct_counter is None:
                raise invalid(f"table {table.name} has no direct counter")
            entry.counter = ce.decode_counter_data(pb.counter_data)
        if pb.HasField("meter_config"):
            if table.direct_meter is None:
                raise invalid(f"table {table.name} has no direct meter")
            table.set_meter_config(entry, ce.decode_meter_config(pb.meter_config))

    def _decode_entry(self, table: Table, pb: p4runtime_pb2.TableEntry) -> TableEntry:
        info = table.info
        key = entry_key(table, pb)
        if not pb.HasField("action"):
            raise invalid(f"table {info.name}: the entry has no action")
        action = ct.decode_table_action(info, self.info.actions, pb.action, default=False)
        if pb.idle_timeout_ns and not info.idle_timeout:
            raise invalid(f"table {info.name} does not support idle timeout")
        if pb.HasField("meter_config") and table.direct_meter is None:
            raise invalid(f"table {info.name} has no direct meter")
        if pb.HasField("counter_data") and info.direct_counter is None:
            raise invalid(f"table {info.name} has no direct counter")
        entry = TableEntry(
            match=key.match,
            priority=key.priority,
            controller_metadata=pb.controller_metadata,
            metadata=pb.metadata,
            idle_timeout_ns=pb.idle_timeout_ns,
            meter_config=(ce.decode_meter_config(pb.meter_config)
                          if pb.HasField("meter_config") else None),
        )
        if pb.HasField("counter_data"):
            entry.counter = ce.decode_counter_data(pb.counter_data)
        # spec 9.1.2: a member or group not inserted yet is NOT_FOUND
        if isinstance(action, ct.MemberRef):
            if table.profile is not None and action.member_id not in table.profile.members:
                raise P4RTError(code_pb2.NOT_FOUND, f"no member {action.member_id}")
            entry.member_id = action.member_id
        elif isinstance(action, ct.GroupRef):
            if table.profile is not None and action.group_id not in table.profile.groups:
                raise P4RTError(code_pb2.NOT_FOUND, f"no group {action.group_id}")
            entry.group_id = action.group_id
        else:
            entry.action = action
        return entry

    def _write_default(self, op: int, table: Table, pb: p4runtime_pb2.TableEntry) -> None:
        if op != MODIFY:
            raise invalid(f"table {table.name}: the default entry can only be modified")
        if pb.match or pb.priority:
            raise invalid(f"table {table.name}: the default entry has no match or priority")
        if pb.idle_timeout_ns or pb.HasField("time_since_last_hit"):
            raise invalid(f"table {table.name}: the default entry has no idle timeout")
        if table.info.const_default_action:
            raise P4RTError(code_pb2.PERMISSION_DENIED,
                            f"table {table.name}: the default action is const")
        if not pb.HasField("action"):
            table.reset_default()
            return
        action = ct.decode_table_action(table.info, self.info.actions, pb.action, default=True)
        assert isinstance(action, ActionCall)
        table.set_default(action)

    # --- action profiles
    def _write_action_profile_member(self, op: int,
                                     pb: p4runtime_pb2.ActionProfileMember) -> None:
        profile = lookup_object(self.state.action_profiles, pb.action_profile_id,
                                "action profile")
        if op == DELETE:
            profile.delete_member(pb.member_id)
            return
        call = ct.decode_action_call(self.info.actions, pb.action)
        if op == INSERT:
            profile.insert_member(pb.member_id, call)
        else:
            profile.modify_member(pb.member_id, call)

    def _write_action_profile_group(self, op: int,
                                    pb: p4runtime_pb2.ActionProfileGroup) -> None:
        profile = lookup_object(self.state.action_profiles, pb.action_profile_id,
                                "action profile")
        if pb.max_size < 0:
            raise invalid(f"group {pb.group_id}: max_size must be >= 0")
        if op == DELETE:
            profile.delete_group(pb.group_id)
            return
        members = ce.decode_group_members(pb)
        # PI group_update_members: a member that does not exist is NOT_FOUND (the
        # run-time state calls it an invalid entry); a duplicate group id (INSERT) or an
        # unknown one (MODIFY) is reported first, as PI checks the group before members
        missing = [m.member_id for m in members if m.member_id not in profile.members]
        group_known = pb.group_id in profile.groups
        if missing and group_known == (op == MODIFY):
            raise P4RTError(code_pb2.NOT_FOUND,
                            f"group {pb.group_id}: no member {missing[0]}")
        if op == INSERT:
            profile.insert_group(pb.group_id, members, pb.max_size)
        else:
            old = profile.groups.get(pb.group_id)
            # PI group_modify: max_size is fixed at creation; 0 means "unchanged"
            if old is not None and pb.max_size and pb.max_size != old.max_size:
                raise invalid(f"group {pb.group_id}: max_size cannot change after creation")
            profile.modify_group(pb.group_id, members, pb.max_size or None)
        self.forms[("group", pb.action_profile_id, pb.group_id)] = ce.watch_forms(pb)

    # --- counters, meters, registers
    def _write_counter_entry(self, op: int, pb: p4runtime_pb2.CounterEntry) -> None:
        counter = lookup_object(self.state.counters, pb.counter_id, "counter")
        if op != MODIFY:
            raise invalid("counter entries can only be modified")
        if not isinstance(counter, CounterArray):
            raise invalid(f"counter {counter.info.name} is direct: use DirectCounterEntry")
        data = ce.decode_counter_data(pb.data)
        indexes = ([pb.index.index] if pb.HasField("index")
                   else range(counter.info.size))
        for index in indexes:
            counter.write(index, data.packets, data.bytes)

    def _write_direct_counter_entry(self, op: int,
                                    pb: p4runtime_pb2.DirectCounterEntry) -> None:
        if op != MODIFY:
            raise invalid("direct counter entries can only be modified")
        table = table_of(self.state, pb.table_entry.table_id)
        if table.info.direct_counter is None:
            raise invalid(f"table {table.name} has no direct counter")
        entry = find_entry(table, pb.table_entry)
        entry.counter = ce.decode_counter_data(pb.data)

    def _write_meter_entry(self, op: int, pb: p4runtime_pb2.MeterEntry) -> None:
        meter = lookup_object(self.state.meters, pb.meter_id, "meter")
        if op != MODIFY:
            raise invalid("meter entries can only be modified")
        if not isinstance(meter, MeterArray):
            raise invalid(f"meter {meter.info.name} is direct: use DirectMeterEntry")
        config = ce.decode_meter_config(pb.config) if pb.HasField("config") else None
        indexes = [pb.index.index] if pb.HasField("index") else range(meter.info.size)
        for index in indexes:
            meter.set_config(index, config)

    def _write_direct_meter_entry(self, op: int, pb: p4runtime_pb2.DirectMeterEntry) -> None:
        if op != MODIFY:
            raise invalid("direct meter entries can only be modified")
        table = table_of(self.state, pb.table_entry.table_id)
        meter = next((m for m in self.state.objects("meters")
                      if isinstance(m, DirectMeter) and m.table is table), None)
        if meter is None:
            raise invalid(f"table {table.name} has no direct meter")
        entry = find_entry(table, pb.table_entry)
        config = ce.decode_meter_config(pb.config) if pb.HasField("config") else None
        meter.set_config(entry, config)

    def _write_register_entry(self, op: int, pb: p4runtime_pb2.RegisterEntry) -> None:
        register = lookup_object(self.state.registers, pb.register_id, "register")
        if op != MODIFY:
            raise invalid("register entries can only be modified")
        value = ce.decode_register_data(pb.data, register.info.bitwidth,
                                        f"register {register.info.name}")
        indexes = [pb.index.index] if pb.HasField("index") else range(register.info.size)
        for index in indexes:
            register.set(index, value)

    # --- packet replication engine, digests, value sets
    def _write_packet_replication_engine_entry(
            self, op: int, pb: p4runtime_pb2.PacketReplicationEngineEntry) -> None:
        pre = self.state.pre
        kind = pb.WhichOneof("type")
        if kind == "multicast_group_entry":
            group = pb.multicast_group_entry
            gid = group.multicast_group_id
            if not 1 <= gid <= 32767:
                raise invalid(f"multicast group id {gid} not in 1..32767")
            if op == DELETE:
                pre.delete_group(gid)
                return
            replicas = ce.decode_replicas(group.replicas, f"multicast group {gid}")
            (pre.insert_group if op == INSERT else pre.modify_group)(gid, replicas)
            self.forms[("mcast", gid)] = ce.replica_form(group.replicas)
        elif kind == "clone_session_entry":
            session = pb.clone_session_entry
            sid = session.session_id
            if not 1 <= sid <= 32767:
                raise invalid(f"clone session id {sid} not in 1..32767")
            if op == DELETE:
                pre.delete_clone_session(sid)
                return
            if session.class_of_service:
                raise P4RTError(code_pb2.UNIMPLEMENTED, "clone session class_of_service")
            if session.packet_length_bytes:
                raise P4RTError(code_pb2.UNIMPLEMENTED, "clone session packet_length_bytes")
            replicas = tuple(ce.decode_replicas(session.replicas, f"clone session {sid}"))
            obj = CloneSession(sid, replicas=replicas)
            (pre.insert_clone_session if op == INSERT else pre.modify_clone_session)(obj)
            self.forms[("clone", sid)] = ce.replica_form(session.replicas)
        else:
            raise invalid("packet replication engine entry has no type")

    def _write_digest_entry(self, op: int, pb: p4runtime_pb2.DigestEntry) -> None:
        if pb.digest_id not in self.info.digests:
            raise invalid(f"no digest with id {pb.digest_id}")
        queue = self.state.digest_queue
        if op == DELETE:
            queue.delete_config(pb.digest_id)
            return
        config = ce.decode_digest_config(pb.config)
        (queue.insert_config if op == INSERT else queue.modify_config)(pb.digest_id, config)

    def _write_value_set_entry(self, op: int, pb: p4runtime_pb2.ValueSetEntry) -> None:
        value_set = lookup_object(self.state.value_sets, pb.value_set_id, "value set")
        if op != MODIFY:
            raise invalid("value set entries can only be modified")
        fields = value_set.info.fields
        members = []
        for member in pb.members:
            pseudo = _ValueSetKeys(value_set.info.name, fields)
            members.append(ct.decode_match(pseudo, member.match))  # type: ignore[arg-type]
        value_set.set_members(members)


class _ValueSetKeys:
    """Just enough of a TableInfo for decode_match on a value set's fields."""

    def __init__(self, name: str, fields) -> None:
        self.name = f"value set {name}"
        self.keys = fields


__all__ = ["EntityWriter", "lookup_object", "table_of", "find_entry", "entry_key"]
