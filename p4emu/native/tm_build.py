"""The compiled traffic manager's C module, built once (`p4emu.native.build`'s cache).

Apart from `p4emu.native.tm` so that `p4emu.switch.dataplane_loop`, which runs the
module's EventLoop, needs nothing of the traffic manager classes.
"""

from __future__ import annotations

from pathlib import Path

from p4emu.native.build import build
from p4emu.switch.queues import Dequeued, DropReason, Enqueued

_RT = Path(__file__).parent / "rt"
# queues, port sockets, per-packet loops, Server, EventLoop and the module
_SOURCES = ("tm.c", "tm_ports.c", "tm_serve.c", "tm_server.c", "tm_loop.c", "tm_module.c")
_module = None


def tm_module():
    """The built C module (gcc once per source, `p4emu.native.build`'s cache)."""
    global _module
    if _module is None:
        source = "".join((_RT / name).read_text() for name in _SOURCES)
        module = build(source)
        module.setup(Enqueued, Dequeued, DropReason.QUEUE_FULL, DropReason.BAD_PRIORITY)
        _module = module
    return _module
