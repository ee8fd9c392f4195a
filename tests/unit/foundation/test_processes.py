"""Stopping process groups: SIGTERM first, SIGKILL after the grace period, children reaped."""

from __future__ import annotations

import subprocess
import sys
import time

from mrclab.processes import (
    kill_process_group,
    stop_and_collect,
    stop_process_group,
    stop_process_groups,
)

STUBBORN = "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); " \
           "print('up', flush=True); time.sleep(60)"
POLITE = "import time; print('up', flush=True); time.sleep(60)"


def _start(code: str) -> subprocess.Popen:
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True,
                            start_new_session=True)
    assert proc.stdout.readline() == "up\n"  # its SIGTERM handler is in place
    return proc


def test_a_group_that_stops_on_sigterm_is_not_waited_for():
    procs = [_start(POLITE) for _ in range(3)]
    started = time.monotonic()
    stop_process_groups(procs, grace=10)
    assert time.monotonic() - started < 5
    assert all(p.returncode == -15 for p in procs)


def test_a_group_ignoring_sigterm_is_killed_after_the_grace():
    proc = _start(STUBBORN)
    started = time.monotonic()
    stop_process_group(proc, grace=0.3)
    assert proc.returncode == -9 and time.monotonic() - started >= 0.3


def test_stop_and_collect_reads_what_the_child_printed():
    code = ("import sys, time; print('bye', flush=True); print('up', file=sys.stderr, "
            "flush=True); time.sleep(60)")
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    assert proc.stderr.readline() == "up\n"
    out, _ = stop_and_collect(proc, grace=5)
    assert out == "bye\n" and proc.returncode == -15


def test_a_group_known_only_by_its_id():
    proc = _start(STUBBORN)
    kill_process_group(proc.pid, grace=0.2)
    assert proc.wait(timeout=5) == -9
    kill_process_group(proc.pid)  # gone: nothing to do
