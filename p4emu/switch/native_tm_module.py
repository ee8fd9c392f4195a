"""The compiled traffic manager's C module (`p4emu.native.tm_build`), set up once with this
package's queue records, and its `PortQueues`.

Apart from `native_traffic_manager` so that `dataplane_loop`, which runs the module's
EventLoop, needs nothing of the traffic manager classes.
"""

from __future__ import annotations

from p4emu.native.tm_build import tm_module as _built_module
from p4emu.switch.queues import Dequeued, DropReason, Enqueued, QueueConfig

_module = None


def tm_module():
    """The C module, built (gcc once per source, p4emu.native's cache) and set up to return
    the Python queue model's records; RuntimeError or OSError when it does not build."""
    global _module
    if _module is None:
        module = _built_module()
        module.setup(Enqueued, Dequeued, DropReason.QUEUE_FULL, DropReason.BAD_PRIORITY)
        _module = module
    return _module


def compiled_port_queues(config: QueueConfig | None = None, priorities: int = 1,
                         port: int = -1):
    """`PortQueues(config, priorities)` compiled (`port`: the number its errors name)."""
    return tm_module().PortQueues(config or QueueConfig(), priorities, port)
