"""The simulator's records are the same with the compiled traffic manager as with the
Python one: a k=4 fat-tree's permutation phase over 100 us in every spray mode."""

from __future__ import annotations

import dataclasses
import hashlib
from pathlib import Path

import pytest

from mrclab.experiments import permutation, runner
from mrclab.experiments.config import Options
from mrclab.experiments.sim_engine.session import SimSession
from mrclab.fabric.spec import parse_spec
from p4emu.switch.native_traffic_manager import NativeTrafficManager
from p4emu.switch.traffic_manager import TrafficManager

SPEC = "fattree:k=4"


class _Session(SimSession):
    traffic_manager = "auto"

    def settings(self):
        return dataclasses.replace(super().settings(), traffic_manager=self.traffic_manager)


def _phase(mode: str, traffic_manager: str) -> tuple[str, int, set[type]]:
    """(hash of the phase record without its wall time, packet-hops, TM classes used)."""
    _, setup = runner.plan(Options("permutation", engine="sim", spec=SPEC))
    fabric = parse_spec(SPEC)
    session = _Session(fabric, setup, Path("."), lambda name: None)
    session.traffic_manager = traffic_manager
    session.set_spray(mode)
    record = session.run_flows(mode, permutation.traffic(setup, fabric, 100e-6), timeout=1.0)
    data = dataclasses.asdict(record)
    assert data["machine"].pop("wall_s") >= 0
    kinds = {type(s.tm) for s in session._net.switches.values()}
    return hashlib.sha256(repr(data).encode()).hexdigest(), session.packet_hops, kinds


@pytest.mark.parametrize("mode", ["ev", "random", "source", "ecmp"])
def test_phase_records_are_identical_with_either_traffic_manager(mode):
    python_hash, python_hops, python_kinds = _phase(mode, "python")
    native_hash, native_hops, native_kinds = _phase(mode, "auto")
    assert python_kinds == {TrafficManager} and native_kinds == {NativeTrafficManager}
    assert python_hops > 10_000  # real traffic, not an empty run
    assert (native_hash, native_hops) == (python_hash, python_hops)


def test_the_choice_is_by_name_and_auto_needs_a_compiled_pipeline():
    from mrclab.sim.network import SimSettings
    from p4emu.switch.native_traffic_manager import traffic_manager_class

    assert traffic_manager_class("python", object()) is TrafficManager
    assert traffic_manager_class("auto", object()) is TrafficManager  # not a NativePipeline
    assert traffic_manager_class("native") is NativeTrafficManager
    with pytest.raises(ValueError, match="traffic manager 'c'"):
        SimSettings(traffic_manager="c")
