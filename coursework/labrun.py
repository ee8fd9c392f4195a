"""A lab for fabric checks: fat-tree k=4 with the student's program or policy, and the
traffic the checks measure (paced blasts, MRC transfers, core counters)."""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from coursework.catalog import REPO_ROOT
from coursework.worker import CheckFailed
from coursework.workspace import Workspace
from fabric_model.generators import PortBases
from lab.lab import Lab, LabConfig, LabError, default_build_dir
from lab.target import DEFAULT_PROGRAM, CompileError

SPEC = "fattree:k=4"
# ports of their own, so a check never meets the sockets of a lab the tests left behind
BASES = PortBases(grpc=53100, thrift=12100)


@contextlib.contextmanager
def exercise_lab(ws: Workspace, target: str, **config: object) -> Iterator[Lab]:
    """A running fat-tree k=4 with the student's P4 program (P4 exercises) or the project's;
    `config` adds LabConfig fields (spray, controller_args, controller_module)."""
    from mininet.log import setLogLevel

    setLogLevel("warning")
    program = ws.program or DEFAULT_PROGRAM
    # One build directory for every check, so a start cleans what a killed check left
    # (its topology and pid files). The lab reuses compiled outputs newer than the source:
    # remove them, or one student's program could run for another's.
    build = default_build_dir() / "exercise-lab"
    for stale in build.glob(f"{program.stem}.*"):
        stale.unlink()
    lab = Lab(LabConfig(spec=SPEC, target=target, build_dir=build, bases=BASES,
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
            ports = lab.ask("counters", switch=name)["ports"]
            out[name] = sum(row.get("tx_packets", 0) for row in ports.values())
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


def endpoint_cmd(*args: str, policy: Path | None = None) -> list[str]:
    """The endpoint CLI; with `policy`, its sender uses the student's recovery.py."""
    if policy is None:
        return [sys.executable, "-m", "endpoint", *args]
    return [sys.executable, "-m", "coursework.student_endpoint",
            "--exercise-policy", str(policy), *args]


def blast(lab: Lab, src: str, dst: str, *args: str) -> dict:
    out = lab.net.net.get(src).cmd(" ".join(endpoint_cmd(
        "blast", "--dst", lab.fabric.hosts[dst].nics[0].ip, *args)))
    try:
        return json.loads(out.strip().splitlines()[-1])
    except (ValueError, IndexError):
        raise CheckFailed(f"blast from {src} failed: {out.strip()[-160:]}") from None


def transfer(lab: Lab, senders: list[str], dst: str, size: str, policy: Path | None = None,
             during: Callable[[], object] | None = None, timeout: float = 90.0,
             send_args: tuple[str, ...] = ()) -> tuple[dict, list[dict]]:
    """One MRC message from each sender to `dst`: (receiver stats, sender stats)."""
    with tempfile.TemporaryDirectory(prefix="mrclab-transfer-") as tmp:
        work = Path(tmp)
        _run_transfer(lab, senders, dst, size, policy, during, timeout, work, send_args)
        try:
            sent = [json.loads((work / f"send-{src}.json").read_text()) for src in senders]
            return json.loads((work / "recv.json").read_text()), sent
        except (OSError, ValueError):
            raise CheckFailed("a sender or the receiver wrote no summary (crashed?)") from None


def _run_transfer(lab: Lab, senders: list[str], dst: str, size: str, policy: Path | None,
                  during: Callable[[], object] | None, timeout: float, work: Path,
                  send_args: tuple[str, ...]) -> None:
    net = lab.net.net
    receiver = net.get(dst).popen(endpoint_cmd(
        "recv", "--count", str(len(senders)), "--json", str(work / "recv.json"),
        "--timeout", str(timeout)), cwd=REPO_ROOT, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True)
    procs = []
    try:
        if "listening" not in (receiver.stdout.readline() or ""):
            raise CheckFailed(f"receiver on {dst} did not start")
        for i, src in enumerate(senders):
            cmd = endpoint_cmd("send", "--dst", lab.fabric.hosts[dst].nics[0].ip,
                               "--size", size, "--seed", str(i + 1), "--timeout", str(timeout),
                               "--json", str(work / f"send-{src}.json"), *send_args,
                               policy=policy)
            procs.append(net.get(src).popen(cmd, cwd=REPO_ROOT, stdout=subprocess.PIPE,
                                            stderr=subprocess.PIPE, text=True))
        if during is not None:
            during()
        for proc in procs:
            proc.communicate(timeout=timeout + 15)
        receiver.wait(timeout=30)
    except subprocess.TimeoutExpired:
        raise CheckFailed(f"the transfer did not finish within {timeout:.0f} s") from None
    finally:
        for proc in [*procs, receiver]:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
