"""Discrete-event multipath network that drives the transport core (tests, experiments)."""

from endpoint.sim.events import EventLoop
from endpoint.sim.harness import TransferResult, ev_path_index, payload_capacity, run_transfer
from endpoint.sim.incast import IncastResult, run_incast
from endpoint.sim.links import Path, PathCounters, PathSpec, SimPacket

__all__ = ["EventLoop", "IncastResult", "Path", "PathCounters", "PathSpec", "SimPacket",
           "TransferResult", "ev_path_index", "payload_capacity", "run_incast", "run_transfer"]
