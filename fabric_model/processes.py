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

STOP_GRACE_S = 2.0


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
