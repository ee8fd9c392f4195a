"""An in-memory stand-in for a P4Runtime switch session (unit tests only)."""

from __future__ import annotations

import threading

from p4.v1 import p4runtime_pb2


def entity_key(entity: p4runtime_pb2.Entity) -> tuple:
    which = entity.WhichOneof("entity")
    if which == "table_entry":
        e = entity.table_entry
        return (which, e.table_id, e.is_default_action,
                tuple(m.SerializeToString(deterministic=True) for m in e.match))
    if which == "action_profile_member":
        return (which, entity.action_profile_member.member_id)
    if which == "action_profile_group":
        return (which, entity.action_profile_group.group_id)
    if which == "packet_replication_engine_entry":
        return (which, entity.packet_replication_engine_entry.multicast_group_entry
                .multicast_group_id)
    raise ValueError(which)


class FakeSession:
    """Stores written entities; Read returns those matching the requested kinds/tables."""

    def __init__(self, name, device_id, address, election_id, on_primary, on_lost,
                 on_packet_in):
        self.name = name
        self.device_id = device_id
        self.on_primary = on_primary
        self.on_lost = on_lost
        self.on_packet_in = on_packet_in
        self.primary = threading.Event()
        self.connect_count = 0
        self.cookie = None
        self.store: dict[tuple, p4runtime_pb2.Entity] = {}
        self.writes: list[list[p4runtime_pb2.Update]] = []
        self.pipeline_pushes = 0
        self.packets_out: list[tuple[bytes, dict[int, bytes]]] = []

    def start(self):
        self.primary.set()
        self.connect_count += 1
        self.on_primary(self)

    def stop(self):
        self.primary.clear()

    def get_pipeline_cookie(self):
        return self.cookie

    def set_pipeline(self, p4info, device_config, cookie):
        self.cookie = cookie
        self.store.clear()
        self.pipeline_pushes += 1

    def write(self, updates):
        self.writes.append(list(updates))
        errors = []
        for update in updates:
            key = entity_key(update.entity)
            exists = key in self.store
            if update.type == p4runtime_pb2.Update.INSERT and exists:
                errors.append(f"ALREADY_EXISTS {key}")
            elif update.type == p4runtime_pb2.Update.DELETE:
                if not exists:
                    errors.append(f"NOT_FOUND {key}")
                self.store.pop(key, None)
            elif update.type == p4runtime_pb2.Update.MODIFY and not exists and not (
                    update.entity.table_entry.is_default_action):
                errors.append(f"NOT_FOUND {key}")
            else:
                self.store[key] = update.entity
        return errors

    def read(self, entities):
        result = []
        for request in entities:
            which = request.WhichOneof("entity")
            for stored in self.store.values():
                if stored.WhichOneof("entity") != which:
                    continue
                if which == "table_entry" and (
                        stored.table_entry.table_id != request.table_entry.table_id
                        or stored.table_entry.is_default_action
                        != request.table_entry.is_default_action):
                    continue
                result.append(stored)
        return result

    def packet_outs(self, packets):
        self.packets_out.extend(packets)
