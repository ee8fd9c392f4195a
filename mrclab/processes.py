"""Stopping a process group: SIGTERM, a grace period, then SIGKILL.

Every long-running child of the lab (switches, the controller, endpoints, exercise
workers) runs in its own session, so that it and whatever it started stop as one group.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Iterable
from pathlib import Path

from mrclab.places import child_env

STOP_GRACE_S = 2.0


def start_recorded(cmd: list[str], log_file: Path, pid_file: Path) -> subprocess.Popen[bytes]:
    """Start a long-running child in a session of its own (a group to stop whole, out of
    reach of the terminal's ^C), its output appended to `log_file` and its pid written to
    `pid_file` (mrclab.lab.cleanup kills what a killed run left from such records)."""
    log_file.parent.mkdir(parents=True, exist_ok=True)
    pid_file.parent.mkdir(parents=True, exist_ok=True)
    with open(log_file, "ab") as out:
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=out,
                                stderr=subprocess.STDOUT, start_new_session=True,
                                env=child_env())
    pid_file.write_text(f"{proc.pid}\n")
    return proc


def signal_group(pgid: int, sig: int) -> bool:
    """Send `sig` to the group; False when no such group is left."""
    try:
        os.killpg(pgid, sig)
    except ProcessLookupError:
        return False
    except PermissionError:  # the group id went to another user's process
        return False
    return True


def kill_process_group(pgid: int, grace: float = STOP_GRACE_S) -> None:
    """SIGTERM the group `pgid`, SIGKILL it if any member is alive after `grace` seconds.

    For groups led by a process that is not our child (one recorded in a pid file); a
    child of ours is stopped with `stop_process_group`, which also reaps it."""
    if not signal_group(pgid, signal.SIGTERM):
        return
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline:
        if not signal_group(pgid, 0):
            return
        time.sleep(0.05)
    signal_group(pgid, signal.SIGKILL)


def stop_process_groups(procs: Iterable[subprocess.Popen], grace: float = STOP_GRACE_S
                        ) -> None:
    """Stop the groups led by these children: SIGTERM all, wait for their leaders `grace`
    seconds in all (not each), SIGKILL the groups of those still running; reaps them."""
    procs = list(procs)
    for proc in procs:
        if proc.poll() is None:
            signal_group(proc.pid, signal.SIGTERM)
    deadline = time.monotonic() + grace
    for proc in procs:
        try:
            proc.wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            signal_group(proc.pid, signal.SIGKILL)
            proc.wait()


def stop_process_group(proc: subprocess.Popen, grace: float = STOP_GRACE_S) -> None:
    """`stop_process_groups` for one child."""
    stop_process_groups([proc], grace)


def stop_and_collect(proc: subprocess.Popen, grace: float = STOP_GRACE_S
                     ) -> tuple[str, str]:
    """Stop a child whose output is piped, reading the pipes while it stops (a child
    blocked on a full pipe could not exit); returns (stdout, stderr)."""
    signal_group(proc.pid, signal.SIGTERM)
    try:
        return proc.communicate(timeout=grace)
    except subprocess.TimeoutExpired:
        signal_group(proc.pid, signal.SIGKILL)
        return proc.communicate()
