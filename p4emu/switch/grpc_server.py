"""The P4Runtime v1 gRPC service of one p4emu switch: the unary RPCs here, the
StreamChannel in `stream_channel`.

Every switch of a process serves on the process's one RPC loop (`rpc_loop`); the unary
RPCs run in the server's thread pool, where they may block on the data plane's lock.
"""

from __future__ import annotations

import inspect
import logging
import threading
from collections.abc import Callable, Iterator
from concurrent import futures

import grpc
import grpc.aio
from google.rpc import code_pb2
from p4.v1 import p4runtime_pb2, p4runtime_pb2_grpc

from p4emu.switch.core import SwitchCore
from p4emu.switch.entity_reads import EntityReader
from p4emu.switch.entity_writes import EntityWriter
from p4emu.switch.notifications import Notifier
from p4emu.switch.p4rt_errors import P4RTError, write_error_details
from p4emu.switch.program import LoadedProgram, Loader, build_program
from p4emu.switch.reconcile_and_commit import replay_state
from p4emu.switch.rpc_loop import RpcLoop
from p4emu.switch.stream_channel import (
    StreamChannelService,
    Undecodable,
    election_int,
    grpc_status,
    tolerant_parser,
)

log = logging.getLogger(__name__)

API_VERSION = "1.4.1"
Req = p4runtime_pb2.SetForwardingPipelineConfigRequest
GetReq = p4runtime_pb2.GetForwardingPipelineConfigRequest
READ_BATCH = 256
SERVER_OPTIONS = [("grpc.max_receive_message_length", 256 * 1024 * 1024),
                  ("grpc.max_send_message_length", 256 * 1024 * 1024),
                  ("grpc.so_reuseport", 0)]

def _abort(context: grpc.ServicerContext, code: int, message: str):
    log.info("P4Runtime request refused (%s): %s", code_pb2.Code.Name(code), message)
    context.abort(grpc_status(code), message)


class P4RuntimeService(StreamChannelService, p4runtime_pb2_grpc.P4RuntimeServicer):
    def __init__(self, core: SwitchCore, loader: Loader) -> None:
        StreamChannelService.__init__(self, core)
        self.loader = loader
        self.saved: LoadedProgram | None = None
        self._config_lock = threading.Lock()
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


def _refusing_undecodable(method: Callable) -> Callable:
    """`method`, answering INVALID_ARGUMENT to a request that did not parse."""
    def check(request, context) -> None:
        if isinstance(request, Undecodable):
            _abort(context, code_pb2.INVALID_ARGUMENT, request.describe())

    if inspect.isgeneratorfunction(method):
        def stream_method(request, context):
            check(request, context)
            yield from method(request, context)
        return stream_method

    def unary_method(request, context):
        check(request, context)
        return method(request, context)
    return unary_method


def method_handlers(service: P4RuntimeService) -> grpc.GenericRpcHandler:
    """The P4Runtime service's handlers, as `p4runtime_pb2_grpc` makes them, except that
    a request that does not parse reaches the handler as `Undecodable`: the generated
    handlers leave it to gRPC, whose asyncio server answers UNKNOWN with a traceback."""
    handlers = {}
    for method in p4runtime_pb2.DESCRIPTOR.services_by_name["P4Runtime"].methods:
        request_type = getattr(p4runtime_pb2, method.input_type.name)
        response_type = getattr(p4runtime_pb2, method.output_type.name)
        behaviour = getattr(service, method.name)
        if method.name == "StreamChannel":  # answers on the stream (stream_channel)
            make = grpc.stream_stream_rpc_method_handler
        else:
            behaviour = _refusing_undecodable(behaviour)
            make = (grpc.unary_stream_rpc_method_handler if method.name == "Read"
                    else grpc.unary_unary_rpc_method_handler)
        handlers[method.name] = make(behaviour,
                                     request_deserializer=tolerant_parser(request_type),
                                     response_serializer=response_type.SerializeToString)
    return grpc.method_handlers_generic_handler("p4.v1.P4Runtime", handlers)


class P4RuntimeServer:
    """A switch's gRPC server on `rpc_loop`; `stop()` blocks until it has stopped."""

    def __init__(self, server: grpc.aio.Server, rpc_loop: RpcLoop) -> None:
        self._server = server
        self._rpc_loop = rpc_loop

    def stop(self, grace: float | None = None) -> None:
        """Refuse new RPCs, let those running finish for up to `grace` s, then end them."""
        self._rpc_loop.run(self._server.stop(grace), timeout=(grace or 0) + 10)


def serve(core: SwitchCore, loader: Loader, address: str, workers: int = 32,
          rpc_loop: RpcLoop | None = None) -> tuple[P4RuntimeServer, P4RuntimeService, int]:
    """Start the P4Runtime server on `address`; returns (server, service, bound port).

    `workers` threads run the unary RPCs; the streams run on `rpc_loop` (the process's
    shared loop by default)."""
    rpc_loop = rpc_loop or RpcLoop.shared()
    service = P4RuntimeService(core, loader)

    async def start() -> tuple[grpc.aio.Server, int]:
        server = grpc.aio.server(futures.ThreadPoolExecutor(max_workers=workers),
                                 options=SERVER_OPTIONS)
        server.add_generic_rpc_handlers((method_handlers(service),))
        try:
            port = server.add_insecure_port(address)
        except RuntimeError:  # grpc.aio raises where the sync server returned 0
            port = 0
        if port:
            await server.start()
        return server, port

    server, port = rpc_loop.run(start())
    if port == 0:
        service.stop()
        raise OSError(f"cannot listen on {address}")
    log.info("P4Runtime server listening on %s (device id %d)", address, core.device_id)
    return P4RuntimeServer(server, rpc_loop), service, port
