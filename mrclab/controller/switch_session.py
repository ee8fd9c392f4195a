"""One P4Runtime session to one switch: stream channel, primary arbitration, reconnects.

Every session's StreamChannel runs on one asyncio loop in one thread (`StreamLoop`): a
fabric's probes are hundreds of packet-outs and packet-ins a second, and with gRPC's
blocking API each message crossed three threads, so the controller spent its CPU on
context switches. When arbitration makes us primary the session calls `on_primary(session)`
from a fresh thread (so packet-ins keep flowing while the owner programs the switch); when
the stream breaks it calls `on_lost(session)` and retries with exponential backoff.
`on_packet_in` runs on the loop thread and must not block. Unary RPCs (Write, Read,
pipeline config) are plain blocking methods on a channel of their own.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable

import grpc
import grpc.aio
from google.rpc import code_pb2, status_pb2
from p4.v1 import p4runtime_pb2, p4runtime_pb2_grpc

log = logging.getLogger(__name__)

RPC_TIMEOUT = 20.0
BACKOFF_MIN = 0.2
BACKOFF_MAX = 2.0


class SessionError(Exception):
    """A P4Runtime RPC failed; the message names the switch."""


class StreamLoop:
    """The event loop, in a daemon thread, that carries every session's stream."""

    _shared: StreamLoop | None = None
    _shared_lock = threading.Lock()

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, name="p4rt-streams",
                                        daemon=True)
        self._thread.start()

    @classmethod
    def shared(cls) -> StreamLoop:
        with cls._shared_lock:
            if cls._shared is None:
                cls._shared = StreamLoop()
            return cls._shared


def _update_errors(exc: grpc.RpcError) -> list[str]:
    """Per-update error messages from a failed Write (google.rpc.Status details)."""
    messages: list[str] = []
    for key, value in (exc.trailing_metadata() or ()):
        if key != "grpc-status-details-bin":
            continue
        status = status_pb2.Status.FromString(value)
        for detail in status.details:
            error = p4runtime_pb2.Error()
            if detail.Unpack(error) and error.canonical_code != code_pb2.OK:
                messages.append(f"{code_pb2.Code.Name(error.canonical_code)}: {error.message}")
    return messages or [f"{exc.code().name}: {exc.details()}"]


class SwitchSession:
    def __init__(
        self,
        name: str,
        device_id: int,
        address: str,
        election_id: int,
        on_primary: Callable[[SwitchSession], None],
        on_lost: Callable[[SwitchSession], None],
        on_packet_in: Callable[[SwitchSession, bytes, dict[int, bytes]], None],
    ) -> None:
        self.name = name
        self.device_id = device_id
        self.address = address
        self.election_id = election_id
        self._on_primary = on_primary
        self._on_lost = on_lost
        self._on_packet_in = on_packet_in
        self._stopped = threading.Event()
        self.primary = threading.Event()
        self._streams = StreamLoop.shared()
        # the current stream's outgoing messages; touched only on the loop thread
        self._outgoing: asyncio.Queue[p4runtime_pb2.StreamMessageRequest] | None = None
        self._task: asyncio.Future[None] | None = None
        self._was_primary = False  # the current stream made us primary at some point
        self._channel: grpc.Channel | None = None
        self._stub: p4runtime_pb2_grpc.P4RuntimeStub | None = None
        self.connect_count = 0

    # --- lifecycle ------------------------------------------------------------------------
    def start(self) -> None:
        self._task = asyncio.run_coroutine_threadsafe(self._run(), self._streams.loop)

    def stop(self) -> None:
        self._stopped.set()
        if self._task is not None:
            self._task.cancel()
            try:
                self._task.result(timeout=3)
            except (asyncio.CancelledError, TimeoutError, Exception):  # noqa: BLE001
                pass  # cancelled, as asked; a failure was logged by _run
        if self._channel is not None:
            self._channel.close()

    def _election(self) -> p4runtime_pb2.Uint128:
        return p4runtime_pb2.Uint128(high=0, low=self.election_id)

    async def _run(self) -> None:
        backoff = BACKOFF_MIN
        while not self._stopped.is_set():
            if self._channel is not None:
                self._channel.close()  # in-flight unary RPCs of a lost stream fail now
            self._channel = grpc.insecure_channel(self.address)
            self._stub = p4runtime_pb2_grpc.P4RuntimeStub(self._channel)
            self._was_primary = False
            try:
                async with grpc.aio.insecure_channel(self.address) as channel:
                    await self._stream(channel)
            except grpc.aio.AioRpcError as exc:
                if not self._stopped.is_set():
                    log.debug("%s: stream ended: %s", self.name, exc.code().name)
            except asyncio.CancelledError:
                self.primary.clear()
                raise
            except Exception:  # a callback bug must not kill the session
                log.exception("%s: stream handler failed", self.name)
            finally:
                self.primary.clear()
                self._outgoing = None
            if self._stopped.is_set():
                return
            if self._was_primary:
                log.warning("%s: P4Runtime stream lost, reconnecting", self.name)
                self._on_lost(self)
                backoff = BACKOFF_MIN
            await asyncio.sleep(backoff)
            # until a first connection, every BACKOFF_MIN: the lab starts the controller
            # beside its switches, which open their ports a second later
            if self.connect_count:
                backoff = min(BACKOFF_MAX, backoff * 2)

    async def _stream(self, channel: grpc.aio.Channel) -> None:
        """Run one StreamChannel until it ends; `_was_primary` says if it made us primary."""
        call = p4runtime_pb2_grpc.P4RuntimeStub(channel).StreamChannel()
        outgoing: asyncio.Queue[p4runtime_pb2.StreamMessageRequest] = asyncio.Queue()
        arbitration = p4runtime_pb2.StreamMessageRequest()
        arbitration.arbitration.device_id = self.device_id
        arbitration.arbitration.election_id.CopyFrom(self._election())
        outgoing.put_nowait(arbitration)
        self._outgoing = outgoing

        async def send() -> None:
            while True:
                await call.write(await outgoing.get())

        sender = asyncio.ensure_future(send())
        try:
            while True:
                response = await call.read()
                if response is grpc.aio.EOF:
                    return
                kind = response.WhichOneof("update")
                if kind == "arbitration":
                    if self._handle_arbitration(response.arbitration):
                        self._was_primary = True
                elif kind == "packet":
                    metadata = {m.metadata_id: m.value for m in response.packet.metadata}
                    self._on_packet_in(self, response.packet.payload, metadata)
                elif kind == "error":
                    log.warning("%s: stream error %s", self.name, response.error.message)
        finally:
            sender.cancel()
            call.cancel()

    def _handle_arbitration(self, update: p4runtime_pb2.MasterArbitrationUpdate) -> bool:
        if update.status.code == code_pb2.OK:
            if not self.primary.is_set():
                self.primary.set()
                self.connect_count += 1
                log.info("%s: primary (device %d, %s)", self.name, self.device_id, self.address)
                threading.Thread(target=self._on_primary, args=(self,),
                                 name=f"sync-{self.name}", daemon=True).start()
            return True
        if self.primary.is_set():
            self.primary.clear()
            log.warning("%s: lost primary role to election id %s", self.name,
                        update.election_id.low)
        return False

    # --- RPCs -----------------------------------------------------------------------------
    def _stub_or_raise(self) -> p4runtime_pb2_grpc.P4RuntimeStub:
        if self._stub is None or not self.primary.is_set():
            raise SessionError(f"{self.name}: not connected as primary")
        return self._stub

    def get_pipeline_cookie(self) -> int | None:
        """The installed pipeline's cookie; None when no pipeline is set."""
        request = p4runtime_pb2.GetForwardingPipelineConfigRequest(
            device_id=self.device_id,
            response_type=p4runtime_pb2.GetForwardingPipelineConfigRequest.COOKIE_ONLY)
        try:
            response = self._stub_or_raise().GetForwardingPipelineConfig(
                request, timeout=RPC_TIMEOUT)
        except grpc.RpcError as exc:
            if exc.code() in (grpc.StatusCode.FAILED_PRECONDITION, grpc.StatusCode.NOT_FOUND):
                return None
            raise SessionError(f"{self.name}: GetForwardingPipelineConfig: "
                               f"{exc.code().name} {exc.details()}") from None
        if not response.config.HasField("cookie"):
            return None
        return response.config.cookie.cookie

    def set_pipeline(self, p4info: object, device_config: bytes, cookie: int) -> None:
        request = p4runtime_pb2.SetForwardingPipelineConfigRequest(
            device_id=self.device_id,
            election_id=self._election(),
            action=p4runtime_pb2.SetForwardingPipelineConfigRequest.VERIFY_AND_COMMIT)
        request.config.p4info.CopyFrom(p4info)
        request.config.p4_device_config = device_config
        request.config.cookie.cookie = cookie
        try:
            self._stub_or_raise().SetForwardingPipelineConfig(request, timeout=RPC_TIMEOUT * 3)
        except grpc.RpcError as exc:
            raise SessionError(f"{self.name}: SetForwardingPipelineConfig: "
                               f"{exc.code().name} {exc.details()}") from None

    def write(self, updates: list[p4runtime_pb2.Update]) -> list[str]:
        """Write one batch; returns per-update error messages (empty on success)."""
        if not updates:
            return []
        request = p4runtime_pb2.WriteRequest(
            device_id=self.device_id, election_id=self._election(), updates=updates)
        try:
            self._stub_or_raise().Write(request, timeout=RPC_TIMEOUT)
        except grpc.RpcError as exc:
            return _update_errors(exc)
        return []

    def read(self, entities: list[p4runtime_pb2.Entity]) -> list[p4runtime_pb2.Entity]:
        request = p4runtime_pb2.ReadRequest(device_id=self.device_id, entities=entities)
        result: list[p4runtime_pb2.Entity] = []
        try:
            for response in self._stub_or_raise().Read(request, timeout=RPC_TIMEOUT):
                result.extend(response.entities)
        except grpc.RpcError as exc:
            raise SessionError(f"{self.name}: Read: {exc.code().name} {exc.details()}") from None
        return result

    def packet_outs(self, packets: list[tuple[bytes, dict[int, bytes]]]) -> None:
        """Send PacketOuts of (payload, metadata by id); the loop is woken once for all."""
        if not self.primary.is_set() or not packets:
            return
        messages = []
        for payload, metadata in packets:
            message = p4runtime_pb2.StreamMessageRequest()
            message.packet.payload = payload
            for metadata_id, value in metadata.items():
                message.packet.metadata.add(metadata_id=metadata_id, value=value)
            messages.append(message)
        self._streams.loop.call_soon_threadsafe(self._enqueue, messages)

    def _enqueue(self, messages: list[p4runtime_pb2.StreamMessageRequest]) -> None:
        if self._outgoing is not None:  # no stream: lost, as on a dead link
            for message in messages:
                self._outgoing.put_nowait(message)
