"""The compiled traffic manager's C module (rt/tm*.c), built once (`build`'s cache).

The module is the C half of `p4emu.switch.native_traffic_manager`: queues, port I/O,
per-packet loops and the data-plane event loop; and a simulator's event loop that drives
switches' compiled servers and the wires between them (`SimLoop`, rt/sim_*.c). Its Python face, and the `setup()` that
hands it the queue model's records, are the switch's (`p4emu.switch.native_tm_module`):
this package knows nothing of the switch.
"""

from __future__ import annotations

from pathlib import Path

from p4emu.native.build import build

_RT = Path(__file__).parent / "rt"
# growing arrays, queues, a compiled pipeline's C entry points, port sockets, per-packet loops, Server,
# EventLoop, a simulator's SimLoop (its heap, wires, switches and host NICs) and the module
_SOURCES = ("grow.h", "tm.c", "pipeline_api.h", "tm_ports.c", "tm_serve.c", "tm_server.c", "tm_loop.c",
            "sim_loop.c", "sim_fabric.c", "sim_nic.c", "sim_run.c", "tm_module.c")


def tm_module():
    """The built C module (once per source and compiler, `build`'s cache); the caller sets
    it up (its `setup(Enqueued, Dequeued, QUEUE_FULL, BAD_PRIORITY)`) before use."""
    return build("".join((_RT / name).read_text() for name in _SOURCES))
