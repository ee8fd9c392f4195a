"""A minimal raw StreamChannel client for tests."""

from __future__ import annotations

import queue
import threading

import grpc
from p4.v1 import p4runtime_pb2, p4runtime_pb2_grpc


class StreamClient:
    def __init__(self, addr: str) -> None:
        self.channel = grpc.insecure_channel(addr)
        self.stub = p4runtime_pb2_grpc.P4RuntimeStub(self.channel)
        self.requests: queue.Queue = queue.Queue()
        self.responses: queue.Queue = queue.Queue()
        self.error: grpc.RpcError | None = None
        self.call = self.stub.StreamChannel(iter(self.requests.get, None))
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        try:
            for msg in self.call:
                self.responses.put(msg)
        except grpc.RpcError as exc:
            self.error = exc
        self.responses.put(None)

    def arbitrate(self, election_id: int, device_id: int = 1, role: str = "") -> None:
        req = p4runtime_pb2.StreamMessageRequest()
        req.arbitration.device_id = device_id
        req.arbitration.election_id.low = election_id
        if role:
            req.arbitration.role.name = role
        self.requests.put(req)

    def send(self, req: p4runtime_pb2.StreamMessageRequest) -> None:
        self.requests.put(req)

    def next(self, kind: str | None = None, timeout: float = 3.0):
        """The next response (of `kind`, skipping others), or None when the stream ended."""
        while True:
            msg = self.responses.get(timeout=timeout)
            if msg is None or kind is None or msg.WhichOneof("update") == kind:
                return msg

    def close(self) -> None:
        self.requests.put(None)
        self.channel.close()
