"""Discrete-event multipath network that drives the transport core (tests, experiments)."""

from endpoint.sim.events import EventLoop
from endpoint.sim.harness import TransferResult, ev_path_index, payload_capacity, run_transfer
from endpoint.sim.links import Path, PathCounters, PathSpec, SimPacket

__all__ = ["EventLoop", "Path", "PathCounters", "PathSpec", "SimPacket", "TransferResult",
           "ev_path_index", "payload_capacity", "run_transfer"]
