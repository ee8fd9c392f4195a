"""The StreamChannel half of a switch's P4Runtime service: arbitration, PacketOut,
PacketIn and stream errors.

It runs as a coroutine on the process's RPC loop (`rpc_loop`): reading the client's
messages, writing what the session queued. A PacketOut goes from the loop straight to
the data plane's inject queue; a PacketIn from the data-plane thread to the session's
queue, with at most one loop wake-up per burst. The synchronous gRPC server handed every
message across two or three threads instead, which made a fabric's probes its main cost.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable

import grpc
from google.protobuf.message import DecodeError
from google.rpc import code_pb2
from p4.v1 import p4runtime_pb2

from p4emu.switch import packet_io
from p4emu.switch.arbitration import Arbiter, ArbitrationError, Notice
from p4emu.switch.core import SwitchCore
from p4emu.switch.p4rt_errors import P4RTError
from p4emu.switch.sessions import End, StreamSession

log = logging.getLogger(__name__)

_STATUS_CODES = {sc.value[0]: sc for sc in grpc.StatusCode}
# how long a reconnecting client waits for its old stream (same election id) to end
STALE_GRACE_S = 0.5


def grpc_status(code: int) -> grpc.StatusCode:
    """The gRPC status of a google.rpc code (UNKNOWN for one gRPC does not have)."""
    return _STATUS_CODES.get(code, grpc.StatusCode.UNKNOWN)


def election_int(eid: p4runtime_pb2.Uint128) -> int:
    return (eid.high << 64) | eid.low


class Undecodable:
    """A request whose bytes do not parse as the message its method takes."""

    def __init__(self, type_name: str, reason: str) -> None:
        self.type_name = type_name
        self.reason = reason

    def describe(self) -> str:
        return f"the request is not a valid {self.type_name}: {self.reason}"


def tolerant_parser(message_type) -> Callable[[bytes], object]:
    """`message_type.FromString`, returning `Undecodable` instead of raising."""
    def parse(data: bytes) -> object:
        try:
            return message_type.FromString(data)
        except DecodeError as exc:
            return Undecodable(message_type.DESCRIPTOR.full_name, str(exc) or "bad encoding")
    return parse


def stream_error(code: int, message: str, packet_out=None,
                 ) -> p4runtime_pb2.StreamMessageResponse:
    """A StreamError message (spec: errors of stream messages are reported on the stream)."""
    msg = p4runtime_pb2.StreamMessageResponse()
    msg.error.canonical_code = code
    msg.error.message = message
    if packet_out is not None:
        msg.error.packet_out.packet_out.CopyFrom(packet_out)
    return msg


class StreamChannelService:
    """Mixed into the P4Runtime servicer: everything about its streams' clients."""

    core: SwitchCore

    def __init__(self, core: SwitchCore) -> None:
        self.core = core
        self.arbiter = Arbiter(core.device_id)
        self.arb_lock = threading.Lock()  # the notification thread reads the primaries
        core.packet_in = self.send_packet_in

    async def StreamChannel(self, request_iterator, context):  # noqa: N802 (gRPC's name)
        session = StreamSession(context.peer(), asyncio.get_running_loop())
        reader = asyncio.ensure_future(self._read_stream(request_iterator, session))
        try:
            while True:
                item = await session.next_out()
                if item is None:
                    return
                if isinstance(item, End):
                    log.info("stream %s ended: %s", session.peer, item.message)
                    await context.abort(grpc_status(item.code), item.message)
                await context.write(item)
        finally:  # also when the client cancels: the RPC's task is cancelled
            reader.cancel()
            self._stream_ended(session)

    async def _read_stream(self, request_iterator, session: StreamSession) -> None:
        try:
            async for request in request_iterator:
                try:
                    await self._on_stream_message(session, request)
                except Exception:
                    log.exception("stream %s: message handling failed", session.peer)
                    session.send(stream_error(code_pb2.INTERNAL, "internal error"))
        except (grpc.RpcError, asyncio.CancelledError):
            pass  # the client went away, or the stream ended
        except Exception:
            log.exception("stream %s: reading failed", session.peer)
        finally:
            # the client closed its side: release its arbitration now, so that a client
            # reconnecting with the same election id finds it free
            self._stream_ended(session)

    def _stream_ended(self, session: StreamSession) -> None:
        session.close()
        self._forget(session)

    def _forget(self, session: StreamSession) -> None:
        with self.arb_lock:
            was_primary = self.arbiter.is_client_primary(session)
            notices = self.arbiter.remove(session)
            if was_primary:
                promoted = next((n for n in notices if n.is_primary), None)
                log.info("primary client %s left; primary is now %s", session.peer,
                         promoted.client.peer if promoted else None)  # type: ignore[attr-defined]
            self._deliver(notices)

    def _deliver(self, notices: list[Notice]) -> None:
        for notice in notices:
            msg = p4runtime_pb2.StreamMessageResponse()
            arb = msg.arbitration
            arb.device_id = self.core.device_id
            if notice.role:
                arb.role.name = notice.role
            if notice.primary_election_id is not None:
                arb.election_id.high = notice.primary_election_id >> 64
                arb.election_id.low = notice.primary_election_id & ((1 << 64) - 1)
            arb.status.code = notice.code
            arb.status.message = "primary" if notice.is_primary else "backup"
            notice.client.send(msg)  # type: ignore[attr-defined]

    async def _on_stream_message(self, session: StreamSession, request) -> None:
        if isinstance(request, Undecodable):
            session.send(stream_error(code_pb2.INVALID_ARGUMENT, request.describe()))
            return
        kind = request.WhichOneof("update")
        if kind == "arbitration":
            await self._arbitrate(session, request.arbitration)
            return
        if not session.arbitrated:
            session.send(stream_error(code_pb2.FAILED_PRECONDITION,
                                      "send a MasterArbitrationUpdate first"))
            return
        with self.arb_lock:
            primary = self.arbiter.is_client_primary(session)
        if kind == "packet":
            self._packet_out(session, request.packet, primary)
        elif kind == "digest_ack":
            program = self.core.program
            ack = request.digest_ack
            if program is not None and ack.digest_id not in program.info.digests:
                # spec (stream error reporting): an unknown digest id is INVALID_ARGUMENT
                msg = stream_error(code_pb2.INVALID_ARGUMENT,
                                   f"no digest with id {ack.digest_id}")
                msg.error.digest_list_ack.digest_list_ack.CopyFrom(ack)
                session.send(msg)
            elif primary and program is not None:
                with self.core.lock:
                    program.state.digest_queue.ack(ack.digest_id, ack.list_id)
        else:
            session.send(stream_error(code_pb2.UNIMPLEMENTED,
                                      f"stream message {kind} is not supported"))

    async def _arbitrate(self, session: StreamSession, arb) -> None:
        role = arb.role.name
        eid = election_int(arb.election_id)
        with self.arb_lock:
            holder = self.arbiter.holder(role, eid)
        if (holder is not None and holder is not session
                and await holder.wait_done(STALE_GRACE_S)):  # type: ignore[attr-defined]
            # the same client reconnecting: its old stream ended but may not have been
            # released yet (the new stream's first message can come first); BMv2 accepts it
            log.info("stream %s: election id %d taken over from the ended stream %s",
                     session.peer, eid, holder.peer)  # type: ignore[attr-defined]
            self._forget(holder)  # type: ignore[arg-type]
        with self.arb_lock:
            before = self.arbiter.primary(role)
            try:
                notices = self.arbiter.update(session, arb.device_id, role, eid)
            except ArbitrationError as exc:
                log.info("stream %s: arbitration refused: %s", session.peer, exc)
                session.end(exc.code, str(exc))
                return
            session.arbitrated = True
            after = self.arbiter.primary(role)
            if (before[0] if before else None) != (after[0] if after else None):
                log.info("primary of role %r is now %s (election id %d)", role,
                         after[0].peer if after else None,  # type: ignore[attr-defined]
                         after[1] if after else 0)
            self._deliver(notices)

    def _packet_out(self, session: StreamSession, packet, primary: bool) -> None:
        program = self.core.program
        problem: tuple[int, str] | None = None
        if not primary:
            problem = (code_pb2.PERMISSION_DENIED, "only the primary may send PacketOut")
        elif program is None:
            problem = (code_pb2.FAILED_PRECONDITION, "no forwarding pipeline is set")
        elif self.core.cpu_port is None:
            problem = (code_pb2.FAILED_PRECONDITION, "the switch has no --cpu-port")
        if problem is None:
            assert program is not None and self.core.cpu_port is not None
            header = packet_io.controller_header(program.info, "packet_out")
            try:
                frame = packet_io.build_packet_out(header, packet.metadata, packet.payload)
            except P4RTError as exc:
                problem = (exc.code, exc.message)
            else:
                self.core.inject(self.core.cpu_port, frame)
                return
        log.info("stream %s: PacketOut refused: %s", session.peer, problem[1])
        session.send(stream_error(problem[0], problem[1], packet))

    # --- switch -> controller
    def _primary_sessions(self) -> list[StreamSession]:
        """The primary of each role (roles carry no config here: all see everything)."""
        with self.arb_lock:
            return self.arbiter.primaries()  # type: ignore[return-value]

    def send_packet_in(self, frame: bytes) -> None:
        """The pipeline sent `frame` to the CPU port (data-plane thread)."""
        program = self.core.program
        if program is None:
            return
        header = packet_io.controller_header(program.info, "packet_in")
        split = packet_io.split_packet_in(header, frame)
        if split is None:
            log.debug("packet to the CPU port shorter than packet_in header: dropped")
            return
        sessions = self._primary_sessions()
        if not sessions:
            log.debug("PacketIn dropped: no primary client")
            return
        metadata, payload = split
        msg = p4runtime_pb2.StreamMessageResponse()
        msg.packet.payload = payload
        msg.packet.metadata.extend(metadata)
        for session in sessions:
            session.send(msg)
