"""Which P4 pipeline a loaded program runs on: `ir_loader(cpu_port, pipeline)`, the switch's
`-- --pipeline` and the simulator's `pipeline` setting (docs/native.md)."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from mrclab.experiments import runner
from mrclab.experiments.config import ExperimentError, Options
from mrclab.experiments.sim_engine.session import SimSession
from mrclab.fabric.spec import parse_spec
from mrclab.sim.network import SimSettings
from p4emu.cmdline import UsageError
from p4emu.frontend import compile_file
from p4emu.native.pipeline import NativePipeline
from p4emu.runtime.device import DeviceState
from p4emu.switch.options import parse_switch_args
from p4emu.switch.program import ir_loader
from p4emu.v1model.pipeline import Pipeline

REPO = Path(__file__).resolve().parents[3]
MRC = REPO / "mrclab" / "p4src" / "mrc.p4"
CLONE = REPO / "tests" / "p4" / "clone.p4"  # clone(): outside the compiled subset


def _pipeline(path: Path, pipeline: str):
    info, make = ir_loader(255, pipeline)(compile_file(str(path)).ir)
    return make(DeviceState.from_program(info, clock_us=lambda: 0))


def test_auto_and_native_run_mrc_p4_compiled_python_never_does():
    assert isinstance(_pipeline(MRC, "auto"), NativePipeline)
    assert isinstance(_pipeline(MRC, "native"), NativePipeline)
    assert type(_pipeline(MRC, "python")) is Pipeline


def test_auto_falls_back_to_python_with_the_reason_native_refuses(caplog):
    with caplog.at_level(logging.INFO, logger="p4emu.switch.program"):
        assert type(_pipeline(CLONE, "auto")) is Pipeline
    assert "outside the compiled pipeline's subset" in caplog.text
    assert "clone" in caplog.text
    with pytest.raises(ValueError, match="outside the compiled pipeline's subset.*clone"):
        _pipeline(CLONE, "native")


def test_an_unknown_pipeline_is_refused_by_name():
    with pytest.raises(ValueError, match="pipeline 'fast'"):
        ir_loader(255, "fast")
    with pytest.raises(ValueError, match="simulator: bad pipeline 'fast'"):
        SimSettings(pipeline="fast")


def test_the_switch_takes_pipeline_as_a_target_option():
    assert parse_switch_args(["--no-p4"]).pipeline == "auto"
    assert parse_switch_args(["--no-p4", "--", "--pipeline", "python"]).pipeline == "python"
    with pytest.raises(UsageError, match="--pipeline"):
        parse_switch_args(["--no-p4", "--", "--pipeline", "fast"])


def test_the_switch_takes_traffic_manager_as_a_target_option():
    from p4emu.native.tm import NativeTrafficManager, traffic_manager_class

    assert parse_switch_args(["--no-p4"]).traffic_manager == "auto"
    opts = parse_switch_args(["--no-p4", "--", "--traffic-manager", "python"])
    assert opts.traffic_manager == "python"
    with pytest.raises(UsageError, match="--traffic-manager"):
        parse_switch_args(["--no-p4", "--", "--traffic-manager", "c"])
    # a switch's program comes later over P4Runtime: auto takes the compiled one, which
    # serves a Python pipeline too
    assert traffic_manager_class("auto") is NativeTrafficManager


def test_experiments_take_pipeline_on_the_simulator_only():
    setup = runner.plan(Options("permutation", engine="sim", quick=True,
                                pipeline="python"))[1]
    assert setup.pipeline == "python"
    session = SimSession(parse_spec(setup.spec), setup, Path("."), lambda name: None)
    assert session.settings().pipeline == "python"  # what the phase's SimNetwork is built with
    assert runner.plan(Options("permutation", engine="sim", quick=True))[1].pipeline == "auto"
    with pytest.raises(ExperimentError, match="--pipeline applies to the simulator"):
        runner.plan(Options("permutation", pipeline="python"))
