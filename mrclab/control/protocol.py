"""Client side of the controller's control endpoint (see mrclab/controller/control_server.py)."""

from __future__ import annotations

import json
import socket
from pathlib import Path

from mrclab.places import default_build_dir, runtime_dir

SOCKET_NAME = "controller.sock"


def socket_path(build_dir: Path | None = None) -> Path:
    """The control socket of the lab using `build_dir` (default: the default build
    directory): in its runtime directory, where the lab starts the controller."""
    return runtime_dir(build_dir or default_build_dir()) / SOCKET_NAME


class ControlClientError(Exception):
    """The controller could not be reached or refused the request (one-line message)."""


def request(socket_path: str | Path, cmd: str, timeout: float = 30.0, **args: object) -> object:
    payload = json.dumps({"cmd": cmd, **args}) + "\n"
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(timeout)
            sock.connect(str(socket_path))
            sock.sendall(payload.encode())
            data = b""
            while not data.endswith(b"\n"):
                chunk = sock.recv(65536)
                if not chunk:
                    break
                data += chunk
    except OSError as exc:
        raise ControlClientError(f"controller at {socket_path} unreachable: {exc}") from None
    try:
        reply = json.loads(data)
    except json.JSONDecodeError:
        raise ControlClientError(f"controller at {socket_path} sent a bad reply") from None
    if not reply.get("ok"):
        raise ControlClientError(str(reply.get("error")))
    return reply.get("result")
