"""The error type of the P4Runtime translation layer and its mapping to status codes."""

from __future__ import annotations

import logging

from google.rpc import code_pb2, status_pb2
from p4.v1 import p4runtime_pb2

from p4emu.runtime.errors import RuntimeStateError

log = logging.getLogger(__name__)

MAX_DETAILS_BYTES = 5500  # base64 grows it by 4/3: under gRPC's 8 KiB soft metadata limit


class P4RTError(Exception):
    """A request the server refuses with google.rpc `code`."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def invalid(message: str) -> P4RTError:
    return P4RTError(code_pb2.INVALID_ARGUMENT, message)


def from_runtime(exc: RuntimeStateError) -> P4RTError:
    """Translate a typed run-time state error into the code it names."""
    code = code_pb2.Code.Value(exc.grpc_code) if exc.grpc_code in code_pb2.Code.keys() \
        else code_pb2.UNKNOWN
    return P4RTError(code, str(exc))


def write_error_details(errors: list[p4runtime_pb2.Error], message: str) -> bytes:
    """google.rpc.Status with one p4.v1.Error per update, as the spec asks.

    gRPC clients may refuse trailing metadata over 8 KiB by default, so a large batch first
    loses the per-update messages (codes stay), then, if still too big, the details.
    """
    for keep_messages in (True, False):
        status = status_pb2.Status(code=code_pb2.UNKNOWN, message=message)
        for error in errors:
            if not keep_messages:
                error = p4runtime_pb2.Error(canonical_code=error.canonical_code)
            status.details.add().Pack(error)
        data = status.SerializeToString()
        if len(data) <= MAX_DETAILS_BYTES:
            return data
    log.warning("write error details for %d updates exceed %d bytes: sent without details",
                len(errors), MAX_DETAILS_BYTES)
    return status_pb2.Status(code=code_pb2.UNKNOWN, message=message).SerializeToString()
