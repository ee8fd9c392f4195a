"""The single-path-per-EV harness that the transport's unit tests drive: one sender, its
receiver and modelled paths (delay, jitter, bandwidth, loss, trimming and ECN queues,
failures). Whole fabrics running mrc.p4 are the simulator's (`mrclab/sim/`)."""

from mrclab.endpoint.clock import EventLoop
from mrclab.sim.pathmodel.harness import (
           TransferResult,
           ev_path_index,
           payload_capacity,
           run_transfer,
)
from mrclab.sim.pathmodel.paths import Path, PathCounters, PathSpec, SimPacket

__all__ = ["EventLoop", "Path", "PathCounters", "PathSpec", "SimPacket", "TransferResult",
           "ev_path_index", "payload_capacity", "run_transfer"]
