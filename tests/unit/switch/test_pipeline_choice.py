"""Which P4 pipeline a loaded program runs on: `ir_loader(cpu_port, pipeline)`, the switch's
`-- --pipeline` and the simulator's `pipeline` setting (docs/native.md)."""

from __future__ import annotations

import logging
import re
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
from tests.unit.frontend.compile_helpers import v1model_program

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


def _fallbacks(caplog) -> list[logging.LogRecord]:
    return [r for r in caplog.records
            if r.name == "p4emu.switch.program" and "running the Python pipeline" in r.message]


def test_auto_falls_back_to_python_with_a_warning_naming_the_construct_and_where(
        caplog, tmp_path):
    clone = tmp_path / "clone.p4"  # a program of its own: no earlier load has reported it
    clone.write_text(CLONE.read_text())
    with caplog.at_level(logging.INFO, logger="p4emu.switch.program"):
        assert type(_pipeline(clone, "auto")) is Pipeline
    (record,) = _fallbacks(caplog)
    assert record.levelno == logging.WARNING
    assert "outside the compiled pipeline's subset: the extern function clone" in record.message
    assert re.search(rf" at {re.escape(str(clone))}:\d+;", record.message)
    assert "40x slower" in record.message
    with pytest.raises(ValueError, match="outside the compiled pipeline's subset.*clone"):
        _pipeline(clone, "native")


def test_auto_warns_when_no_c_compiler_builds_the_pipeline_once_per_program(
        caplog, monkeypatch, tmp_path):
    monkeypatch.setenv("CC", "p4emu-test-no-such-cc")
    monkeypatch.setenv("P4EMU_NATIVE_CACHE", str(tmp_path / "cache"))
    source = tmp_path / "l3.p4"  # inside the subset, but nothing can build it
    source.write_text(v1model_program(body="sm.egress_spec = 1;"))
    with caplog.at_level(logging.INFO, logger="p4emu.switch.program"):
        assert type(_pipeline(source, "auto")) is Pipeline
        assert type(_pipeline(source, "auto")) is Pipeline  # a second switch, same program
    first, second = _fallbacks(caplog)
    assert first.levelno == logging.WARNING and second.levelno == logging.INFO
    assert "no C compiler: 'p4emu-test-no-such-cc' is not on PATH" in first.message


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
    from p4emu.switch.native_traffic_manager import NativeTrafficManager, traffic_manager_class

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
