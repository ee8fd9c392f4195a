"""Primary/backup arbitration of P4Runtime stream clients (pure, no gRPC).

As PI/simple_switch_grpc: per (device, role) the connected client with the highest
election id is primary. A client's arbitration update is answered to that client alone,
unless it changes the primary, in which case every client of the role is told. Answers
carry the primary's election id and OK (to the primary) or ALREADY_EXISTS (to a backup).
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass

from google.rpc import code_pb2


class ArbitrationError(Exception):
    """The update is refused; the stream must end with `code`."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True)
class Notice:
    """What one client must be told."""

    client: Hashable
    role: str
    primary_election_id: int | None  # None: no client left in the role
    is_primary: bool

    @property
    def code(self) -> int:
        return code_pb2.OK if self.is_primary else code_pb2.ALREADY_EXISTS


@dataclass
class _Client:
    device_id: int
    role: str
    election_id: int


class Arbiter:
    """Tracks stream clients of one device and who is primary for each role."""

    def __init__(self, device_id: int) -> None:
        self.device_id = device_id
        self._clients: dict[Hashable, _Client] = {}

    def primary(self, role: str = "") -> tuple[Hashable, int] | None:
        """(client, election id) of the role's primary, or None."""
        best: tuple[Hashable, int] | None = None
        for key, client in self._clients.items():
            if client.role == role and (best is None or client.election_id > best[1]):
                best = (key, client.election_id)
        return best

    def primaries(self) -> list[Hashable]:
        """The primary client of every role that has clients."""
        roles = {client.role for client in self._clients.values()}
        found = (self.primary(role) for role in sorted(roles))
        return [p[0] for p in found if p is not None]

    def is_primary_request(self, role: str, election_id: int) -> bool:
        """Whether a Write/SetPipeline carrying `election_id` comes from the primary.

        As PI, with no stream client connected at all a request without an election id
        is accepted (debugging and tests without a stream). Once any client is connected
        the request must come from the primary of its role, so naming a role nobody
        holds does not get around arbitration.
        """
        if not self._clients:
            return election_id == 0
        primary = self.primary(role)
        return primary is not None and primary[1] == election_id

    def is_client_primary(self, client: Hashable) -> bool:
        state = self._clients.get(client)
        if state is None:
            return False
        primary = self.primary(state.role)
        return primary is not None and primary[0] == client

    def _notices(self, role: str, only: Hashable | None) -> list[Notice]:
        primary = self.primary(role)
        primary_key = primary[0] if primary else None
        primary_id = primary[1] if primary else None
        return [
            Notice(key, role, primary_id, key == primary_key)
            for key, client in self._clients.items()
            if client.role == role and (only is None or key == only)
        ]

    def update(self, client: Hashable, device_id: int, role: str,
               election_id: int) -> list[Notice]:
        """Apply an arbitration update from `client`; raise ArbitrationError to refuse."""
        current = self._clients.get(client)
        if current is not None and device_id != current.device_id:
            raise ArbitrationError(code_pb2.FAILED_PRECONDITION,
                                   f"device id changed from {current.device_id} to {device_id}")
        if current is not None and role != current.role:
            # spec 5.4 (2.2): a live stream keeps its role; a new role needs a new stream
            raise ArbitrationError(code_pb2.FAILED_PRECONDITION,
                                   f"role changed from {current.role!r} to {role!r}")
        if device_id != self.device_id:
            raise ArbitrationError(code_pb2.NOT_FOUND, f"no device with id {device_id}")
        for key, other in self._clients.items():
            if key != client and other.role == role and other.election_id == election_id:
                raise ArbitrationError(code_pb2.INVALID_ARGUMENT,
                                       f"election id {election_id} is already used in role "
                                       f"{role!r}")
        was = self.primary(role)
        self._clients[client] = _Client(device_id, role, election_id)
        now = self.primary(role)
        if (was[0] if was else None) != (now[0] if now else None):
            return self._notices(role, None)  # a new primary: every client of the role
        return self._notices(role, client)

    def remove(self, client: Hashable) -> list[Notice]:
        """Forget a client whose stream ended; notices for the rest if the primary changed."""
        state = self._clients.pop(client, None)
        if state is None:
            return []
        remaining = self.primary(state.role)
        if remaining is None:
            return []
        was_primary = state.election_id > remaining[1]
        return self._notices(state.role, None) if was_primary else []

    def holder(self, role: str, election_id: int) -> Hashable | None:
        """The client that holds `election_id` in `role`, or None."""
        for key, client in self._clients.items():
            if client.role == role and client.election_id == election_id:
                return key
        return None
