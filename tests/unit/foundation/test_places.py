"""One default control socket: the controller's equals the one the lab starts it on."""

from __future__ import annotations

from pathlib import Path

from mrclab.control.protocol import socket_path
from mrclab.controller.__main__ import parse_args
from mrclab.lab.lab import Lab, LabConfig
from mrclab.places import runtime_dir


def test_the_controller_listens_where_the_lab_asks(monkeypatch, tmp_path):
    monkeypatch.setenv("MRCLAB_RUN_DIR", str(tmp_path / "run"))
    build = tmp_path / "build"
    lab = Lab(LabConfig(spec="fattree:k=4", target="p4emu", build_dir=build))
    args = parse_args(["--topology", str(build / "topology.json")])
    assert Path(args.control_socket) == lab.socket_path == socket_path(build)
    assert lab.socket_path.parent == runtime_dir(build) != build


def test_the_default_socket_is_outside_the_checkout(monkeypatch, tmp_path):
    monkeypatch.setenv("MRCLAB_RUN_DIR", str(tmp_path / "run"))
    monkeypatch.delenv("MRCLAB_BUILD_DIR", raising=False)
    assert socket_path().is_relative_to(tmp_path / "run")
