"""JSON messages, one a line, over a stream socket: how a lab job's coordinator and its
rank agents talk (`job`, `rank_agent`)."""

from __future__ import annotations

import json
import socket


class JsonLines:
    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self._buffer = b""

    def fileno(self) -> int:
        return self.sock.fileno()

    def send(self, message: dict) -> None:
        self.sock.sendall(json.dumps(message).encode() + b"\n")

    def receive(self) -> list[dict] | None:
        """The whole messages that have come (call it when the socket is readable); None
        when the peer has closed."""
        data = self.sock.recv(65536)
        if not data:
            return None
        self._buffer += data
        out = []
        while b"\n" in self._buffer:
            line, self._buffer = self._buffer.split(b"\n", 1)
            out.append(json.loads(line))
        return out

    def close(self) -> None:
        self.sock.close()
