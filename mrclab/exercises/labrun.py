"""A lab for fabric checks: fat-tree k=4 with the student's program or policy, and the
traffic the checks measure (paced blasts, MRC transfers, core counters)."""

from __future__ import annotations

import contextlib
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from mrclab.endpoint.report import BlastStats, ReceiverReport, SenderReport
from mrclab.exercises.worker import CheckFailed
from mrclab.exercises.workspace import Workspace
from mrclab.fabric.generators import PortBases
from mrclab.lab import transfers
from mrclab.lab.counters import switch_counters
from mrclab.lab.lab import Lab, LabConfig, LabError
from mrclab.lab.target import DEFAULT_PROGRAM, CompileError
from mrclab.lab.transfers import ENDPOINT, TransferError
from mrclab.places import default_build_dir

SPEC = "fattree:k=4"
# ports of their own, so a check never meets the sockets of a lab the tests left behind
BASES = PortBases(grpc=53100, thrift=12100)


@contextlib.contextmanager
def exercise_lab(ws: Workspace, target: str, spec: str = SPEC, **config: object) -> Iterator[Lab]:
    """A running fabric (a fat-tree k=4 unless `spec` says otherwise) with the student's P4
    program (P4 exercises) or the project's; `config` adds LabConfig fields (spray,
    controller_args, controller_module)."""
    from mininet.log import setLogLevel

    setLogLevel("warning")
    program = ws.program or DEFAULT_PROGRAM
    # One build directory for every check, so a start cleans what a killed check left
    # (its topology and pid files). The lab reuses compiled outputs newer than the source:
    # remove them, or one student's program could run for another's.
    build = default_build_dir() / "exercise-lab"
    for stale in build.glob(f"{program.stem}.*"):
        stale.unlink()
    lab = Lab(LabConfig(spec=spec, target=target, build_dir=build, bases=BASES,
                        program=program, **config))
    try:
        try:
            lab.start()
        except (LabError, CompileError) as exc:
            raise CheckFailed(f"the lab did not come up: {exc}") from None
        yield lab
    finally:
        lab.stop()


def core_tx(lab: Lab) -> dict[str, int]:
    """Packets each core switch has transmitted, all ports."""
    out = {}
    for name, sw in lab.fabric.switches.items():
        if sw.role == "core":
            out[name] = switch_counters(lab, name).tx_packets()
    return out


def core_packets_during(lab: Lab, run: Callable[[], object]) -> dict[str, int]:
    """Packets each core carried while `run()` ran, less its link probes (their rate is
    measured over a quiet second first)."""
    quiet_from, t0 = core_tx(lab), time.monotonic()
    time.sleep(1.0)
    quiet, quiet_s = core_tx(lab), time.monotonic() - t0
    before, t1 = core_tx(lab), time.monotonic()
    run()
    time.sleep(0.5)
    after, run_s = core_tx(lab), time.monotonic() - t1
    return {c: after[c] - before[c] - round((quiet[c] - quiet_from[c]) * run_s / quiet_s)
            for c in after}


def endpoint_cmd(policy: Path | None = None, window: Path | None = None,
                 planes: Path | None = None) -> tuple[str, ...]:
    """The endpoint CLI; its sender uses the student's recovery.py (`policy`), window.py
    (`window`) or planes.py (`planes`) where given."""
    from mrclab.exercises.student_endpoint import PLANES_FLAG, POLICY_FLAG, WINDOW_FLAG

    flags = [(flag, str(path)) for flag, path in ((POLICY_FLAG, policy), (WINDOW_FLAG, window),
                                                  (PLANES_FLAG, planes)) if path is not None]
    if not flags:
        return ENDPOINT
    return (sys.executable, "-m", "mrclab.exercises.student_endpoint",
            *(x for pair in flags for x in pair))


def blast(lab: Lab, src: str, dst: str, *args: str) -> BlastStats:
    try:
        return transfers.blast(lab, src, dst, *args)
    except TransferError as exc:
        raise CheckFailed(str(exc)) from None


def transfer(lab: Lab, senders: list[str], dst: str, size: str, policy: Path | None = None,
             during: Callable[[], object] | None = None, timeout: float = 90.0,
             send_args: tuple[str, ...] = (), window: Path | None = None,
             planes: Path | None = None) -> tuple[ReceiverReport, list[SenderReport]]:
    """One MRC message from each sender to `dst`: (the receiver's report, the senders');
    `policy`, `window`, `planes`: the student's files the senders use (endpoint_cmd)."""
    with tempfile.TemporaryDirectory(prefix="mrclab-transfer-") as tmp:
        try:
            result = transfers.transfer(lab, senders, dst, size, Path(tmp),
                                        endpoint=endpoint_cmd(policy, window, planes),
                                        during=during,
                                        timeout=timeout, send_args=send_args)
        except TransferError as exc:
            raise CheckFailed(str(exc)) from None
    return result.receiver, result.senders
