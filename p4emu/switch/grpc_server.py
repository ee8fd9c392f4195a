"""The P4Runtime v1 gRPC service of one p4emu switch."""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from concurrent import futures

import grpc
from google.rpc import code_pb2
from p4.v1 import p4runtime_pb2, p4runtime_pb2_grpc

from p4emu.switch import packet_io
from p4emu.switch.arbitration import Arbiter, ArbitrationError, Notice
from p4emu.switch.core import SwitchCore
from p4emu.switch.entity_reads import EntityReader
from p4emu.switch.entity_writes import EntityWriter
from p4emu.switch.notifications import Notifier
from p4emu.switch.p4rt_errors import P4RTError, write_error_details
from p4emu.switch.program import LoadedProgram, Loader, build_program
from p4emu.switch.reconcile_and_commit import replay_state
from p4emu.switch.sessions import End, StreamSession

log = logging.getLogger(__name__)

API_VERSION = "1.4.1"
STATUS_CODES = {sc.value[0]: sc for sc in grpc.StatusCode}
Req = p4runtime_pb2.SetForwardingPipelineConfigRequest
GetReq = p4runtime_pb2.GetForwardingPipelineConfigRequest
READ_BATCH = 256
# how long a reconnecting client waits for its old stream (same election id) to end
STALE_GRACE_S = 0.5


def election_int(eid: p4runtime_pb2.Uint128) -> int:
    return (eid.high << 64) | eid.low


def _abort(context: grpc.ServicerContext, code: int, message: str):
    log.info("P4Runtime request refused (%s): %s", code_pb2.Code.Name(code), message)
    context.abort(STATUS_CODES.get(code, grpc.StatusCode.UNKNOWN), message)


class P4RuntimeService(p4runtime_pb2_grpc.P4RuntimeServicer):
    def __init__(self, core: SwitchCore, loader: Loader) -> None:
        self.core = core
        self.loader = loader
        self.arbiter = Arbiter(core.device_id)
        self.arb_lock = threading.Lock()
        self.saved: LoadedProgram | None = None
        self._config_lock = threading.Lock()
        core.packet_in = self.send_packet_in
        self.notifier = Notifier(core, self._primary_sessions)

    def stop(self) -> None:
        self.notifier.stop()

    # --- helpers
    def _check_device(self, device_id: int, context) -> None:
        if device_id != self.core.device_id:
            _abort(context, code_pb2.NOT_FOUND, f"no device with id {device_id}")

    def _check_primary(self, role: str, election_id: int, context) -> None:
        with self.arb_lock:
            ok = self.arbiter.is_primary_request(role, election_id)
        if not ok:
            _abort(context, code_pb2.PERMISSION_DENIED,
                   f"election id {election_id} is not the primary of role {role!r}")

    def _program(self, context) -> LoadedProgram:
        """The program Read/Write/Get refer to: a saved (VERIFY_AND_SAVE) config first.

        Spec: after VERIFY_AND_SAVE "subsequent Read / Write requests must refer to
        fields in the new config", and COMMIT realizes the writes made since; writing
        into the saved program's (not yet running) state does both. PI likewise switches
        its P4Info at save time.
        """
        program = self.saved or self.core.program
        if program is None:
            _abort(context, code_pb2.FAILED_PRECONDITION, "no forwarding pipeline is set")
        return program  # type: ignore[return-value]

    # --- unary RPCs
    def Capabilities(self, request, context):
        return p4runtime_pb2.CapabilitiesResponse(p4runtime_api_version=API_VERSION)

    def SetForwardingPipelineConfig(self, request, context):
        self._check_device(request.device_id, context)
        self._check_primary(request.role, election_int(request.election_id), context)
        with self._config_lock:  # one pipeline change at a time (saved config included)
            return self._set_pipeline(request, context)

    def _set_pipeline(self, request, context):
        action = request.action
        config = request.config
        cookie = config.cookie.cookie if config.HasField("cookie") else 0
        try:
            if action == Req.COMMIT:
                # spec (SetForwardingPipelineConfig RPC): COMMIT takes no config, and
                # without a preceding VERIFY_AND_SAVE there is nothing to commit
                if request.HasField("config"):
                    _abort(context, code_pb2.INVALID_ARGUMENT, "COMMIT takes no config")
                if self.saved is None:
                    _abort(context, code_pb2.NOT_FOUND, "no saved config to commit")
                self.core.install(self.saved)  # type: ignore[arg-type]
                self.saved = None
                return p4runtime_pb2.SetForwardingPipelineConfigResponse()
            if action not in (Req.VERIFY, Req.VERIFY_AND_SAVE, Req.VERIFY_AND_COMMIT,
                              Req.RECONCILE_AND_COMMIT):
                _abort(context, code_pb2.INVALID_ARGUMENT, f"unsupported action {action}")
            current = self.core.program
            if (action == Req.RECONCILE_AND_COMMIT and current is not None
                    and current.device_config == config.p4_device_config
                    and current.p4info == config.p4info):
                current.cookie = cookie  # same program: keep every entry and counter
                log.info("pipeline reconciled: same program, state kept, cookie %d", cookie)
                return p4runtime_pb2.SetForwardingPipelineConfigResponse()
            program = build_program(self.loader, config.p4info, config.p4_device_config,
                                    cookie, port_up=lambda port: self.core.port_up(port),
                                    clock_us=self.core.clock_us)
            if action == Req.RECONCILE_AND_COMMIT and current is not None:
                with self.core.lock:  # a consistent snapshot of the running state
                    carried = replay_state(current, program)
                log.info("pipeline reconciled: %d entities carried to the new program",
                         carried)
        except P4RTError as exc:
            _abort(context, exc.code, exc.message)
        if action == Req.VERIFY_AND_SAVE:
            self.saved = program
        elif action in (Req.VERIFY_AND_COMMIT, Req.RECONCILE_AND_COMMIT):
            self.saved = None
            self.core.install(program)
        return p4runtime_pb2.SetForwardingPipelineConfigResponse()

    def GetForwardingPipelineConfig(self, request, context):
        self._check_device(request.device_id, context)
        response = p4runtime_pb2.GetForwardingPipelineConfigResponse()
        program = self.saved or self.core.program
        if program is None:
            return response  # as PI: no pipeline, empty config
        kind = request.response_type
        if kind in (GetReq.ALL, GetReq.P4INFO_AND_COOKIE):
            response.config.p4info.CopyFrom(program.p4info)
        if kind in (GetReq.ALL, GetReq.DEVICE_CONFIG_AND_COOKIE):
            response.config.p4_device_config = program.device_config
        response.config.cookie.cookie = program.cookie
        return response

    def Write(self, request, context):
        self._check_device(request.device_id, context)
        self._check_primary(request.role, election_int(request.election_id), context)
        self._program(context)
        if request.atomicity != p4runtime_pb2.WriteRequest.CONTINUE_ON_ERROR:
            _abort(context, code_pb2.UNIMPLEMENTED, "only CONTINUE_ON_ERROR atomicity")
        errors: list[p4runtime_pb2.Error] = []
        failed = 0
        with self.core.lock:
            # taken under the lock: a concurrent pipeline change cannot split the batch
            program = self._program(context)
            writer = EntityWriter(program.state, program.encodings)
            for update in request.updates:
                try:
                    writer.apply(update)
                    errors.append(p4runtime_pb2.Error(canonical_code=code_pb2.OK))
                except P4RTError as exc:
                    failed += 1
                    errors.append(p4runtime_pb2.Error(canonical_code=exc.code,
                                                      message=exc.message))
                except Exception as exc:  # a bug must cost one update, not the server
                    log.exception("write update failed unexpectedly")
                    failed += 1
                    errors.append(p4runtime_pb2.Error(canonical_code=code_pb2.INTERNAL,
                                                      message=str(exc)))
        if failed:
            first = next(e for e in errors if e.canonical_code != code_pb2.OK)
            log.info("write: %d of %d updates failed, first: %s", failed, len(errors),
                     first.message)
            message = f"{failed} of {len(errors)} updates failed; first: {first.message}"
            context.set_trailing_metadata((("grpc-status-details-bin",
                                            write_error_details(errors, message)),))
            context.abort(grpc.StatusCode.UNKNOWN, message)
        return p4runtime_pb2.WriteResponse()

    def Read(self, request, context) -> Iterator[p4runtime_pb2.ReadResponse]:
        self._check_device(request.device_id, context)
        self._program(context)
        found: list[p4runtime_pb2.Entity] = []
        try:
            with self.core.lock:
                program = self._program(context)
                reader = EntityReader(program.state, program.encodings)
                for entity in request.entities:
                    found.extend(reader.read(entity))
        except P4RTError as exc:
            _abort(context, exc.code, exc.message)
        for start in range(0, max(1, len(found)), READ_BATCH):
            yield p4runtime_pb2.ReadResponse(entities=found[start:start + READ_BATCH])

    # --- stream
    def StreamChannel(self, request_iterator, context):
        session = StreamSession(context.peer(), context.is_active)
        context.add_callback(lambda: self._stream_ended(session))
        reader = threading.Thread(target=self._consume, args=(request_iterator, session),
                                  name="stream-reader", daemon=True)
        reader.start()
        try:
            while True:
                item = session.out.get()
                if item is None:
                    return
                if isinstance(item, End):
                    _abort(context, item.code, item.message)
                yield item
        finally:
            self._forget(session)

    def _consume(self, request_iterator, session: StreamSession) -> None:
        try:
            for request in request_iterator:
                try:
                    self._on_stream_message(session, request)
                except Exception:
                    log.exception("stream %s: message handling failed", session.peer)
                    session.send(self._stream_error(code_pb2.INTERNAL, "internal error"))
        except grpc.RpcError:
            pass  # the client went away
        except Exception:
            log.exception("stream %s: reading failed", session.peer)
        finally:
            self._stream_ended(session)

    def _stream_ended(self, session: StreamSession) -> None:
        """The client closed or cancelled the stream: release its arbitration now.

        Waiting for the response generator to notice would leave the election id taken
        while a client that closed its stream reconnects with the same id.
        """
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

    @staticmethod
    def _stream_error(code: int, message: str, packet_out=None,
                      ) -> p4runtime_pb2.StreamMessageResponse:
        msg = p4runtime_pb2.StreamMessageResponse()
        msg.error.canonical_code = code
        msg.error.message = message
        if packet_out is not None:
            msg.error.packet_out.packet_out.CopyFrom(packet_out)
        return msg

    def _on_stream_message(self, session: StreamSession, request) -> None:
        kind = request.WhichOneof("update")
        if kind == "arbitration":
            self._arbitrate(session, request.arbitration)
            return
        if not session.arbitrated:
            session.send(self._stream_error(code_pb2.FAILED_PRECONDITION,
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
                msg = self._stream_error(code_pb2.INVALID_ARGUMENT,
                                         f"no digest with id {ack.digest_id}")
                msg.error.digest_list_ack.digest_list_ack.CopyFrom(ack)
                session.send(msg)
            elif primary and program is not None:
                with self.core.lock:
                    program.state.digest_queue.ack(ack.digest_id, ack.list_id)
        else:
            session.send(self._stream_error(code_pb2.UNIMPLEMENTED,
                                            f"stream message {kind} is not supported"))

    def _arbitrate(self, session: StreamSession, arb) -> None:
        role = arb.role.name
        eid = election_int(arb.election_id)
        with self.arb_lock:
            holder = self.arbiter.holder(role, eid)
        if (holder is not None and holder is not session
                and holder.wait_done(STALE_GRACE_S)):  # type: ignore[attr-defined]
            # the same client reconnecting: its old stream ended but may not have been
            # released yet (a half-close is seen by another thread); BMv2 accepts this
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
        session.send(self._stream_error(problem[0], problem[1], packet))

    # --- switch -> controller
    def _primary_sessions(self) -> list[StreamSession]:
        """The primary of each role (roles carry no config here: all see everything)."""
        with self.arb_lock:
            return self.arbiter.primaries()  # type: ignore[return-value]

    def send_packet_in(self, frame: bytes) -> None:
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


def serve(core: SwitchCore, loader: Loader, address: str,
          workers: int = 32) -> tuple[grpc.Server, P4RuntimeService, int]:
    """Start the P4Runtime server on `address`; returns (server, service, bound port)."""
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=workers),
                         options=[("grpc.max_receive_message_length", 256 * 1024 * 1024),
                                  ("grpc.max_send_message_length", 256 * 1024 * 1024),
                                  ("grpc.so_reuseport", 0)])
    service = P4RuntimeService(core, loader)
    p4runtime_pb2_grpc.add_P4RuntimeServicer_to_server(service, server)
    port = server.add_insecure_port(address)
    if port == 0:
        service.stop()
        raise OSError(f"cannot listen on {address}")
    server.start()
    log.info("P4Runtime server listening on %s (device id %d)", address, core.device_id)
    return server, service, port
