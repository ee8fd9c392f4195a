"""Discrete-event multipath network that drives the transport core (tests, experiments)."""

from endpoint.sim.events import EventLoop
from endpoint.sim.harness import TransferResult, ev_path_index, payload_capacity, run_transfer
from endpoint.sim.incast import IncastResult, run_incast
from endpoint.sim.links import Path, PathCounters, PathSpec, SimPacket
from endpoint.sim.permutation import PermutationResult, PermutationSpec, run_permutation

__all__ = ["EventLoop", "IncastResult", "Path", "PathCounters", "PathSpec", "PermutationResult",
           "PermutationSpec", "SimPacket", "TransferResult", "ev_path_index", "payload_capacity",
           "run_incast", "run_permutation", "run_transfer"]
