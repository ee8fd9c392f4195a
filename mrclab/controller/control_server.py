"""Local control endpoint: JSON lines over a Unix socket.

Lets the lab CLI (a different process) query and steer the running controller without
opening competing P4Runtime sessions. One request per line, one reply per line:
  {"cmd": "status"}
  {"cmd": "counters", "switch": "e1"}
  {"cmd": "paths", "src": "h1", "dst": "h16"}
  {"cmd": "spray", "mode": "ev"}
  {"cmd": "link_command", "a": "c1", "b": "a1", "time": <unix time>}
  {"cmd": "reconvergence"}
Replies: {"ok": true, "result": ...} or {"ok": false, "error": "one line"}.
"""

from __future__ import annotations

import json
import logging
import os
import socketserver
import threading
from pathlib import Path

from mrclab.controller.fabric import FabricController
from mrclab.controller.switch_session import SessionError
from mrclab.fabric.spray import SPRAY_MODES

log = logging.getLogger(__name__)


class ControlError(Exception):
    """A request the controller cannot serve; the message is sent back as is."""


def dispatch(controller: FabricController, request: dict) -> object:
    cmd = request.get("cmd")
    if cmd == "status":
        return controller.status().to_json()
    if cmd == "counters":
        name = request.get("switch")
        if name not in controller.fabric.switches:
            raise ControlError(f"unknown switch {name!r}")
        return controller.counters(name)
    if cmd == "paths":
        try:
            return controller.paths(str(request.get("src")), str(request.get("dst")))
        except KeyError as exc:
            raise ControlError(exc.args[0]) from None
    if cmd == "spray":
        mode = request.get("mode")
        if mode not in SPRAY_MODES:
            raise ControlError(f"unknown spray mode {mode!r} (known: {', '.join(SPRAY_MODES)})")
        return {"updates": controller.set_spray_mode(SPRAY_MODES[mode])}
    if cmd == "link_command":
        controller.note_link_command(str(request.get("a")), str(request.get("b")),
                                     float(request.get("time", 0.0)))
        return None
    if cmd == "reconvergence":
        return [r.to_json() for r in controller.core.reconvergences]
    raise ControlError(f"unknown command {cmd!r}")


class _Handler(socketserver.StreamRequestHandler):
    server: ControlServer

    def handle(self) -> None:
        for line in self.rfile:
            try:
                request = json.loads(line)
                if not isinstance(request, dict):
                    raise ControlError("request must be a JSON object")
                reply = {"ok": True, "result": dispatch(self.server.controller, request)}
            except (ControlError, SessionError) as exc:
                reply = {"ok": False, "error": str(exc)}
            except json.JSONDecodeError:
                reply = {"ok": False, "error": "request is not JSON"}
            except Exception as exc:  # keep serving; report the failure to the caller
                log.exception("control request failed")
                reply = {"ok": False, "error": f"internal error: {exc}"}
            self.wfile.write((json.dumps(reply) + "\n").encode())
            self.wfile.flush()


class ControlServer(socketserver.ThreadingUnixStreamServer):
    daemon_threads = True
    # socketserver's default backlog is 5: a plane failing tells the controller about its
    # 8 links at once, and a client with a timeout connecting to a full Unix-socket backlog
    # is refused at once (EAGAIN), not queued
    request_queue_size = 64

    def __init__(self, path: str | Path, controller: FabricController) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if self.path.exists():
            self.path.unlink()
        self.controller = controller
        super().__init__(str(self.path), _Handler)
        os.chmod(self.path, 0o600)

    def start(self) -> None:
        threading.Thread(target=self.serve_forever, name="control", daemon=True).start()

    def close(self) -> None:
        self.shutdown()
        self.server_close()
        self.path.unlink(missing_ok=True)
