"""RECONCILE_AND_COMMIT with a different program: carry the forwarding state across.

The spec asks the server to preserve the forwarding state, or refuse with
INVALID_ARGUMENT when it cannot. As PI (DeviceMgr::pipeline_config_set) the state is
read from the running program and replayed as INSERTs into the new one; here a replay
failure refuses the whole change and the running program stays.
"""

from __future__ import annotations

from p4.v1 import p4runtime_pb2

from p4emu.runtime.actions import ActionCall
from p4emu.switch.entity_reads import EntityReader
from p4emu.switch.entity_writes import EntityWriter
from p4emu.switch.p4rt_errors import P4RTError, invalid
from p4emu.switch.program import LoadedProgram

Entity = p4runtime_pb2.Entity
Update = p4runtime_pb2.Update


def _queries() -> list[Entity]:
    """What to carry, in dependency order: members before groups before entries."""
    tables = p4runtime_pb2.TableEntry()
    tables.counter_data.SetInParent()  # direct counters and meters travel with entries
    tables.meter_config.SetInParent()
    pre = p4runtime_pb2.PacketReplicationEngineEntry
    return [
        Entity(action_profile_member=p4runtime_pb2.ActionProfileMember()),
        Entity(action_profile_group=p4runtime_pb2.ActionProfileGroup()),
        Entity(table_entry=tables),
        Entity(packet_replication_engine_entry=pre(
            multicast_group_entry=p4runtime_pb2.MulticastGroupEntry())),
        Entity(packet_replication_engine_entry=pre(
            clone_session_entry=p4runtime_pb2.CloneSessionEntry())),
        Entity(digest_entry=p4runtime_pb2.DigestEntry()),
    ]


def _updates(old: LoadedProgram) -> list[Update]:
    reader = EntityReader(old.state, old.encodings)
    updates = []
    for query in _queries():
        for entity in reader.read(query):
            te = entity.table_entry if entity.HasField("table_entry") else None
            if te is not None and te.is_const:
                continue  # the new program brings its own const entries
            updates.append(Update(type=Update.INSERT, entity=entity))
    for table in old.state.objects("tables"):
        # a default action changed by the controller is replayed as a MODIFY
        info = table.info
        program_default = (ActionCall(info.default_action_id, info.default_action_args)
                           if info.default_action_id is not None else None)
        if table.default is not None and table.default != program_default \
                and table.profile is None:
            default = reader.read(Entity(table_entry=p4runtime_pb2.TableEntry(
                table_id=table.info.id, is_default_action=True)))
            updates.extend(Update(type=Update.MODIFY, entity=e) for e in default)
    return updates


def replay_state(old: LoadedProgram, new: LoadedProgram) -> int:
    """Write `old`'s forwarding state into `new`; INVALID_ARGUMENT if it does not fit."""
    updates = _updates(old)
    writer = EntityWriter(new.state, new.encodings)
    for update in updates:
        try:
            writer.apply(update)
        except P4RTError as exc:
            kind = update.entity.WhichOneof("entity")
            raise invalid(f"the forwarding state cannot be preserved: {kind}: "
                          f"{exc.message}") from None
    return len(updates)
