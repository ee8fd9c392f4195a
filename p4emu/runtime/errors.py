"""Typed errors raised by the run-time state.

The P4Runtime server maps them to gRPC codes (see `grpc_code`); the STF runner reports
them as bad test lines.
"""

from __future__ import annotations


class RuntimeStateError(Exception):
    """Base class; `grpc_code` names the P4Runtime status code it maps to."""

    grpc_code = "UNKNOWN"


class EntryExists(RuntimeStateError):
    grpc_code = "ALREADY_EXISTS"


class EntryNotFound(RuntimeStateError):
    grpc_code = "NOT_FOUND"


class InvalidEntry(RuntimeStateError):
    grpc_code = "INVALID_ARGUMENT"


class IndexOutOfRange(InvalidEntry):
    """An index past a counter, meter or register array (the P4Runtime spec's code for
    it; still an invalid entry to the STF runner)."""

    grpc_code = "OUT_OF_RANGE"


class TableFull(RuntimeStateError):
    grpc_code = "RESOURCE_EXHAUSTED"


class ReadOnly(RuntimeStateError):
    """A const table or const default action."""

    grpc_code = "PERMISSION_DENIED"


class InUse(RuntimeStateError):
    """A member or group still referenced by a table entry or a group."""

    grpc_code = "FAILED_PRECONDITION"
