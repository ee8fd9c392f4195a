"""The student's P4 program: compiled for the target (one-line error with the compiler's
message), and run against the exercise's STF files on p4emu."""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from functools import partial
from pathlib import Path

from mrclab.exercises.catalog import Check, ExerciseError
from mrclab.exercises.results import CheckResult, result_for
from mrclab.exercises.workspace import Workspace

# mrc.p4 sends ACKs, trimmed headers and probes at priority 1, as the fabric switches run.
PRIORITY_QUEUES = 2
COMPILE_TIMEOUT = 180.0


def first_error(text: str) -> str:
    """The compiler's line that says what is wrong (p4emu and p4c put file:line on it)."""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    return next((ln for ln in lines if "error" in ln.lower()), lines[0] if lines else "no output")


def compile_commands(program: Path, out: Path, target: str) -> list[list[str]]:
    """p4emu always (the STF checks run on it); p4c-bm2-ss as well for --target bmv2, so a
    construct only p4emu accepts fails there as it would on the VM's switches."""
    cmds = [[sys.executable, "-m", "p4emu", "compile", str(program),
             "--p4runtime-files", str(out / "p4emu.p4info.txtpb"), "-o", str(out / "p4emu.json")]]
    if target == "bmv2":
        cmds.append(["p4c-bm2-ss", "--arch", "v1model", "-o", str(out / "bmv2.json"),
                     "--p4runtime-files", str(out / "bmv2.p4info.txtpb"), str(program)])
    return cmds


def compile_student_program(ws: Workspace, target: str) -> None:
    """ExerciseError (one line, with the compiler's message) unless the program compiles."""
    program = ws.program
    with tempfile.TemporaryDirectory(prefix="mrclab-exercise-") as tmp:
        for cmd in compile_commands(program, Path(tmp), target):
            try:
                proc = subprocess.run(cmd, capture_output=True, text=True,
                                      timeout=COMPILE_TIMEOUT)
            except subprocess.TimeoutExpired:
                raise ExerciseError(f"{program}: {Path(cmd[0]).name} did not finish in "
                                    f"{COMPILE_TIMEOUT:.0f} s") from None
            except FileNotFoundError:
                raise ExerciseError(f"{cmd[0]} not found: --target bmv2 needs p4c "
                                    "(the Vagrant VM has it)") from None
            if proc.returncode != 0:
                raise ExerciseError(f"{program.name} does not compile: "
                                    f"{first_error(proc.stderr or proc.stdout)}")


def run_stf_checks(ws: Workspace, checks: list[Check]) -> list[CheckResult]:
    """Every STF check on one compile of the student's program (a fresh switch per file)."""
    from p4emu.stf.cli import build_device, run_files

    fresh = build_device(str(ws.program), [], {}, priority_queues=PRIORITY_QUEUES)
    results = []
    for check in checks:
        started = time.monotonic()
        queued: list = []  # the egress jobs, as the traffic manager would queue them
        outcomes, errors = run_files(partial(fresh, on_enqueue=queued.append,
                                             queue_depth=check.queue_depth),
                                     [str(ws.exercise.folder / check.stf)])
        if errors or not outcomes:
            detail = errors[0] if errors else "no result"
            results.append(result_for(check, False, detail, time.monotonic() - started))
            continue
        outcome = outcomes[0]
        ok, detail = outcome.ok, f"{outcome.passed} expectations met"
        if check.priority is not None:
            # judged on the queue alone: the packets' contents are other checks' (and
            # other steps') business, so each failure points at one step
            ok, detail = queue_verdict(queued, check.priority)
        elif not outcome.ok:
            detail = (f"{outcome.failed} of {outcome.passed + outcome.failed} expectations "
                      f"not met; first: {first_failure(outcome, check.stf)}")
        results.append(result_for(check, ok, detail, time.monotonic() - started))
    return results


def queue_verdict(queued: list, priority: int | tuple[int, ...]) -> tuple[bool, str]:
    """Every packet the pipeline sent towards a port joined egress priority queue
    `priority`; with a tuple, the n-th packet to reach egress joined `priority[n]`."""
    if not queued:
        return False, "no packet reached an egress queue"
    if isinstance(priority, tuple):
        got = tuple(job.priority for job in queued)
        if got == priority:
            return True, f"{len(queued)} packet(s), each in its queue {list(got)}"
        n = next((i for i, (a, b) in enumerate(zip(got, priority, strict=False)) if a != b),
                 min(len(got), len(priority)))
        if n >= len(got) or n >= len(priority):
            return False, (f"{len(got)} packet(s) reached an egress queue, {len(priority)} "
                           "expected")
        return False, (f"packet {n + 1} to reach egress (port {queued[n].port}) joined "
                       f"priority queue {got[n]}, not {priority[n]}")
    wrong = next((job for job in queued if job.priority != priority), None)
    if wrong is not None:
        return False, (f"a packet to port {wrong.port} joined priority queue {wrong.priority}, "
                       f"not {priority}")
    return True, f"{len(queued)} packet(s), all in priority queue {priority}"


def first_failure(outcome, stf: str) -> str:
    """The first unmet expectation of an STF run, short enough for one line, as stf:line."""
    if not outcome.verdict.mismatches:
        return outcome.counter_failures[0] if outcome.counter_failures else "?"
    m = outcome.verdict.mismatches[0]
    if m.expected is None:
        return f"{stf}: a packet nobody expected left port {m.port}"
    if m.got is None:
        return f"{stf}:{m.expected.line}: no packet left port {m.port}"
    want, got = m.expected.pattern or "", m.got.hex().upper()
    nibble = next((i for i, (w, g) in enumerate(zip(want, got, strict=False))
                   if w not in ("*", g)), min(len(want), len(got)))
    return (f"{stf}:{m.expected.line}: the packet on port {m.port} differs from byte "
            f"{nibble // 2} on (got ...{got[nibble // 2 * 2:nibble // 2 * 2 + 16]}...)")
