"""Answer P4Runtime Read requests from a DeviceState: wildcards per entity kind."""

from __future__ import annotations

from collections.abc import Iterator

from google.rpc import code_pb2
from p4.v1 import p4runtime_pb2

from p4emu.runtime.counters import CounterArray
from p4emu.runtime.device import DeviceState, DirectMeter
from p4emu.runtime.errors import EntryNotFound, RuntimeStateError
from p4emu.runtime.meters import MeterArray
from p4emu.runtime.tables import Table, TableEntry
from p4emu.switch import codec_entities as ce
from p4emu.switch import codec_tables as ct
from p4emu.switch.entity_writes import find_entry, lookup_object, table_of
from p4emu.switch.p4rt_errors import P4RTError, from_runtime, invalid

Entity = p4runtime_pb2.Entity


def _indexes(pb, size: int) -> range | list[int]:
    if pb.HasField("index"):
        index = pb.index.index
        if not 0 <= index < size:
            raise invalid(f"index {index} out of range (size {size})")
        return [index]
    return range(size)


class EntityReader:
    def __init__(self, state: DeviceState, forms: dict | None = None) -> None:
        self.state = state
        self.info = state.info
        self.forms = forms if forms is not None else {}

    def read(self, entity: p4runtime_pb2.Entity) -> Iterator[p4runtime_pb2.Entity]:
        """Every stored entity matching the (possibly wildcard) `entity`."""
        kind = entity.WhichOneof("entity")
        handler = getattr(self, f"_read_{kind}", None) if kind else None
        if handler is None:
            if kind is None:
                raise invalid("the read request has an empty entity")
            raise P4RTError(code_pb2.UNIMPLEMENTED, f"reading {kind} is not supported")
        try:
            yield from handler(getattr(entity, kind))
        except RuntimeStateError as exc:
            raise from_runtime(exc) from None

    # --- tables
    def _tables(self, table_id: int) -> list[Table]:
        if table_id == 0:
            return self.state.objects("tables")
        return [table_of(self.state, table_id)]

    def encode_entry(self, table: Table, entry: TableEntry,
                     query: p4runtime_pb2.TableEntry | None = None) -> p4runtime_pb2.TableEntry:
        """`entry` as P4Runtime; direct counter data and meter config only when `query`
        asks for them by setting the field (spec 9.1.4; PI table_read_one)."""
        pb = p4runtime_pb2.TableEntry(table_id=table.info.id,
                                      priority=table.p4runtime_priority(entry),
                                      controller_metadata=entry.controller_metadata,
                                      metadata=entry.metadata,
                                      idle_timeout_ns=entry.idle_timeout_ns,
                                      is_const=entry.is_const)
        pb.match.extend(ct.encode_match(table.info, entry.match))
        if entry.action is not None:
            pb.action.CopyFrom(ct.encode_table_action(self.info.actions, entry.action))
        elif entry.member_id is not None:
            pb.action.action_profile_member_id = entry.member_id
        elif entry.group_id is not None:
            pb.action.action_profile_group_id = entry.group_id
        if query is not None and query.HasField("time_since_last_hit"):
            # spec: the true value even for an entry whose TTL is 0 (PI reports 0 there)
            idle_us = table.clock_us() - entry.last_hit_us
            pb.time_since_last_hit.elapsed_ns = max(0, idle_us) * 1000
        want_counter = query is not None and query.HasField("counter_data")
        want_meter = query is not None and query.HasField("meter_config")
        if want_counter and table.info.direct_counter is not None:
            pb.counter_data.CopyFrom(ce.encode_counter_data(entry.counter))
        # a meter left in its default (all green) configuration is reported unset
        if want_meter and entry.meter_config is not None:
            pb.meter_config.CopyFrom(ce.encode_meter_config(entry.meter_config))
        return pb

    def _default_entry(self, table: Table) -> p4runtime_pb2.TableEntry:
        pb = p4runtime_pb2.TableEntry(table_id=table.info.id, is_default_action=True)
        if table.default is not None and table.profile is None:
            pb.action.CopyFrom(ct.encode_table_action(self.info.actions, table.default))
        return pb

    def _read_table_entry(self, pb: p4runtime_pb2.TableEntry) -> Iterator[Entity]:
        for table in self._tables(pb.table_id):
            if pb.HasField("time_since_last_hit") and not table.info.idle_timeout:
                # PI table_read_one refuses it, wildcard reads included
                raise invalid(f"table {table.name} has no idle timeout: do not ask for "
                              "time_since_last_hit")
            if pb.is_default_action:
                if pb.HasField("time_since_last_hit"):  # spec: no idle timeout on defaults
                    raise invalid("the default entry has no time_since_last_hit")
                yield Entity(table_entry=self._default_entry(table))
                continue
            if pb.match:
                try:
                    entry = find_entry(table, pb)
                except EntryNotFound:
                    continue  # a read of an absent entry answers nothing
                yield Entity(table_entry=self.encode_entry(table, entry, pb))
                continue
            for entry in table.entries():
                yield Entity(table_entry=self.encode_entry(table, entry, pb))

    # --- action profiles
    def _profiles(self, profile_id: int) -> list:
        if profile_id == 0:
            return self.state.objects("action_profiles")
        return [lookup_object(self.state.action_profiles, profile_id, "action profile")]

    def _read_action_profile_member(self, pb: p4runtime_pb2.ActionProfileMember,
                                    ) -> Iterator[Entity]:
        for profile in self._profiles(pb.action_profile_id):
            for member in sorted(profile.members.values(), key=lambda m: m.member_id):
                if pb.member_id and member.member_id != pb.member_id:
                    continue
                out = p4runtime_pb2.ActionProfileMember(
                    action_profile_id=profile.info.id, member_id=member.member_id,
                    action=ct.encode_action_call(self.info.actions, member.action))
                yield Entity(action_profile_member=out)

    def _read_action_profile_group(self, pb: p4runtime_pb2.ActionProfileGroup,
                                   ) -> Iterator[Entity]:
        for profile in self._profiles(pb.action_profile_id):
            for group in sorted(profile.groups.values(), key=lambda g: g.group_id):
                if pb.group_id and group.group_id != pb.group_id:
                    continue
                out = p4runtime_pb2.ActionProfileGroup(
                    action_profile_id=profile.info.id, group_id=group.group_id,
                    max_size=group.max_size)
                forms = self.forms.get(("group", profile.info.id, group.group_id), {})
                out.members.extend(ce.encode_group_member(m, forms.get(m.member_id))
                                   for m in group.members)
                yield Entity(action_profile_group=out)

    # --- counters, meters, registers
    def _read_counter_entry(self, pb: p4runtime_pb2.CounterEntry) -> Iterator[Entity]:
        if pb.counter_id:
            counters = [lookup_object(self.state.counters, pb.counter_id, "counter")]
            if not isinstance(counters[0], CounterArray):
                raise invalid(f"counter {counters[0].info.name} is direct")
        else:
            counters = [c for c in self.state.objects("counters") if isinstance(c, CounterArray)]
        for counter in counters:
            for index in _indexes(pb, counter.info.size):
                out = p4runtime_pb2.CounterEntry(counter_id=counter.info.id)
                out.index.index = index
                out.data.CopyFrom(ce.encode_counter_data(counter.read(index)))
                yield Entity(counter_entry=out)

    def _read_direct_counter_entry(self, pb: p4runtime_pb2.DirectCounterEntry,
                                   ) -> Iterator[Entity]:
        query = pb.table_entry
        for table in self._tables(query.table_id):
            if table.info.direct_counter is None:
                if query.table_id:
                    raise invalid(f"table {table.name} has no direct counter")
                continue
            if query.match:
                try:
                    entries = [find_entry(table, query)]
                except EntryNotFound:
                    entries = []
            else:
                entries = table.entries()
            for entry in entries:
                out = p4runtime_pb2.DirectCounterEntry()
                out.table_entry.CopyFrom(self.encode_entry(table, entry))
                out.data.CopyFrom(ce.encode_counter_data(entry.counter))
                yield Entity(direct_counter_entry=out)

    def _read_meter_entry(self, pb: p4runtime_pb2.MeterEntry) -> Iterator[Entity]:
        if pb.meter_id:
            meters = [lookup_object(self.state.meters, pb.meter_id, "meter")]
            if not isinstance(meters[0], MeterArray):
                raise invalid(f"meter {meters[0].info.name} is direct")
        else:
            meters = [m for m in self.state.objects("meters") if isinstance(m, MeterArray)]
        for meter in meters:
            for index in _indexes(pb, meter.info.size):
                out = p4runtime_pb2.MeterEntry(meter_id=meter.info.id)
                out.index.index = index
                config = meter.get_config(index)
                if config is not None:
                    out.config.CopyFrom(ce.encode_meter_config(config))
                yield Entity(meter_entry=out)

    def _read_direct_meter_entry(self, pb: p4runtime_pb2.DirectMeterEntry,
                                 ) -> Iterator[Entity]:
        query = pb.table_entry
        meters = [m for m in self.state.objects("meters") if isinstance(m, DirectMeter)]
        if query.table_id:
            table = table_of(self.state, query.table_id)
            meters = [m for m in meters if m.table is table]
            if not meters:  # as the direct counter read and PI: a table without one
                raise invalid(f"table {table.name} has no direct meter")
        for meter in meters:
            table = meter.table
            try:
                entries = [find_entry(table, query)] if query.match else table.entries()
            except EntryNotFound:
                entries = []  # a read of an absent entry answers nothing
            for entry in entries:
                out = p4runtime_pb2.DirectMeterEntry()
                out.table_entry.CopyFrom(self.encode_entry(table, entry))
                if entry.meter_config is not None:
                    out.config.CopyFrom(ce.encode_meter_config(entry.meter_config))
                yield Entity(direct_meter_entry=out)

    def _read_register_entry(self, pb: p4runtime_pb2.RegisterEntry) -> Iterator[Entity]:
        if pb.register_id:
            registers = [lookup_object(self.state.registers, pb.register_id, "register")]
        else:
            registers = self.state.objects("registers")
        for register in registers:
            for index in _indexes(pb, register.info.size):
                out = p4runtime_pb2.RegisterEntry(register_id=register.info.id)
                out.index.index = index
                out.data.CopyFrom(ce.encode_register_data(register.get(index)))
                yield Entity(register_entry=out)

    # --- packet replication engine, digests, value sets
    def _read_packet_replication_engine_entry(
            self, pb: p4runtime_pb2.PacketReplicationEngineEntry) -> Iterator[Entity]:
        pre = self.state.pre
        kind = pb.WhichOneof("type")
        if kind == "multicast_group_entry":
            wanted = pb.multicast_group_entry.multicast_group_id
            for gid in sorted(pre.groups):
                if wanted and gid != wanted:
                    continue
                group = p4runtime_pb2.MulticastGroupEntry(multicast_group_id=gid)
                form = self.forms.get(("mcast", gid), "port")
                group.replicas.extend(ce.encode_replica(rid, port, form)
                                      for rid, port in pre.group_replicas(gid))
                yield Entity(packet_replication_engine_entry=p4runtime_pb2
                             .PacketReplicationEngineEntry(multicast_group_entry=group))
        elif kind == "clone_session_entry":
            wanted = pb.clone_session_entry.session_id
            for sid in sorted(pre.clone_sessions):
                if wanted and sid != wanted:
                    continue
                session = pre.clone_sessions[sid]
                out = p4runtime_pb2.CloneSessionEntry(session_id=sid)
                form = self.forms.get(("clone", sid), "port")
                out.replicas.extend(ce.encode_replica(rid, port, form)
                                    for rid, port in session.targets())
                yield Entity(packet_replication_engine_entry=p4runtime_pb2
                             .PacketReplicationEngineEntry(clone_session_entry=out))
        else:
            raise invalid("packet replication engine entry has no type")

    def _read_digest_entry(self, pb: p4runtime_pb2.DigestEntry) -> Iterator[Entity]:
        ids = [pb.digest_id] if pb.digest_id else sorted(self.info.digests)
        for digest_id in ids:
            if digest_id not in self.info.digests:
                raise invalid(f"no digest with id {digest_id}")
            config = self.state.digest_queue.get_config(digest_id)
            if config is None:
                continue
            out = p4runtime_pb2.DigestEntry(digest_id=digest_id,
                                            config=ce.encode_digest_config(config))
            yield Entity(digest_entry=out)

    def _read_value_set_entry(self, pb: p4runtime_pb2.ValueSetEntry) -> Iterator[Entity]:
        if pb.value_set_id:
            sets = [lookup_object(self.state.value_sets, pb.value_set_id, "value set")]
        else:
            sets = self.state.objects("value_sets")
        for value_set in sets:
            out = p4runtime_pb2.ValueSetEntry(value_set_id=value_set.info.id)
            pseudo = _Keys(value_set.info.fields)
            for member in value_set.members:
                out.members.add().match.extend(ct.encode_match(pseudo, member))  # type: ignore[arg-type]
            yield Entity(value_set_entry=out)


class _Keys:
    def __init__(self, fields) -> None:
        self.keys = fields
