"""Run fuzz cases in child processes (`p4emu.fuzz.worker`), sanitized or not, and collect
frames tried, differences and sanitizer reports.

A sanitized child builds its modules with `$P4EMU_NATIVE_SANITIZE` (another cache key
than the normal build) and runs with the ASan runtime preloaded
(`p4emu.native.build.sanitizer_env`); every report is fatal, so a report ends the child:
its stderr names the fault, the last "start" event the case. The driver then replays
that case alone with frame tracing to name the frame it stopped at, and goes on with the
cases after it in a new child.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from p4emu.fuzz.cases import Finding, Target
from p4emu.native.build import sanitizer_env

MARKERS = ("ERROR: AddressSanitizer", "runtime error:", "SUMMARY: AddressSanitizer",
           "SUMMARY: UndefinedBehaviorSanitizer", "ERROR: LeakSanitizer")
DIFFERENCES = ("output", "state", "write", "tm")

Case = tuple[str, str, int, int]  # (kind, target name, seed, frames)


@dataclass
class Summary:
    sanitized: bool
    seconds: float = 0.0
    cases: int = 0
    frames: int = 0
    forwarded: int = 0  # frames the reference sent out (the rest: dropped, queued)
    frames_by_target: dict[str, int] = field(default_factory=dict)
    frames_by_kind: dict[str, int] = field(default_factory=dict)
    case_seconds: float = 0.0  # inside the cases, summed over the children
    cpu_seconds: float = 0.0  # the children's CPU time inside the cases
    findings: list[Finding] = field(default_factory=list)

    @property
    def differences(self) -> int:
        return sum(f.kind in DIFFERENCES for f in self.findings)

    @property
    def sanitizer_reports(self) -> int:
        return sum(f.kind == "sanitizer" for f in self.findings)

    @property
    def crashes(self) -> int:
        return sum(f.kind == "crash" for f in self.findings)

    def lines(self) -> list[str]:
        rate = self.frames / self.case_seconds if self.case_seconds else 0.0
        cpu = self.frames / self.cpu_seconds if self.cpu_seconds else 0.0
        wall = self.frames / self.seconds if self.seconds else 0.0
        out = [f"{'sanitized (address,undefined)' if self.sanitized else 'normal'} build: "
               f"{self.frames} frames tried in {self.cases} cases over "
               f"{len(self.frames_by_target)} programs, {self.seconds:.1f} s wall; "
               f"{self.forwarded} of them sent out by the reference",
               f"  frames per second (both sides of each frame): {cpu:.0f} per CPU-second, "
               f"{rate:.0f} per worker, {wall:.0f} overall",
               "  by case kind: " + ", ".join(f"{k} {v}" for k, v in
                                              sorted(self.frames_by_kind.items())),
               f"  differences: {self.differences}, sanitizer reports: "
               f"{self.sanitizer_reports}, crashes: {self.crashes}"]
        for f in self.findings:
            out.append(f.describe())
        return out

    def to_json(self) -> dict:
        return {"sanitized": self.sanitized, "seconds": self.seconds, "cases": self.cases,
                "frames": self.frames, "forwarded": self.forwarded, "frames_by_target": self.frames_by_target,
                "frames_by_kind": self.frames_by_kind, "case_seconds": self.case_seconds,
                "cpu_seconds": self.cpu_seconds,
                "differences": self.differences, "sanitizer_reports": self.sanitizer_reports,
                "crashes": self.crashes, "findings": [f.to_json() for f in self.findings]}


def plan_cases(targets: list[Target], frames: int, seed: int, case_frames: int = 2000,
               tm_every: int = 5, shares: dict[str, float] | None = None) -> list[Case]:
    """`frames` split over `targets` (`shares`: a target's fraction, the rest evenly), in
    cases of `case_frames`; the second case of a target (and every `tm_every`-th after)
    drives the traffic managers. Targets take turns, so a run cut short by its time
    covers all of them. Seeds follow from `seed`: the same arguments give the same
    cases."""
    shares = dict(shares or {})
    rest = [t for t in targets if t.name not in shares]
    left = max(0.0, 1.0 - sum(shares.values()))
    per: dict[str, int] = {}
    for t in targets:
        share = shares.get(t.name, left / len(rest) if rest else 0.0)
        per[t.name] = int(frames * share)
    if targets and sum(shares.values()) + (left if rest else 0.0) >= 1.0:
        per[targets[0].name] += frames - sum(per.values())  # the rounding: all frames
    lanes: list[list[Case]] = []
    for t in targets:
        n, lane, k = per[t.name], [], 0
        while n > 0:
            size = min(case_frames, n)
            kind = "tm" if tm_every and k % tm_every == 1 else "pipeline"
            lane.append((kind, t.name, 0, size))
            n -= size
            k += 1
        lanes.append(lane)
    ordered: list[Case] = []
    for i in range(max((len(lane) for lane in lanes), default=0)):
        ordered += [lane[i] for lane in lanes if i < len(lane)]
    return [(kind, name, seed * 1_000_003 + i, size)
            for i, (kind, name, _, size) in enumerate(ordered)]


def sanitizer_report(stderr: str) -> str | None:
    """The sanitizer report in a child's stderr (from its first line on), or None."""
    lines = stderr.splitlines()
    for i, line in enumerate(lines):
        if any(m in line for m in MARKERS):
            return "\n".join(lines[max(0, i - 2):i + 40])
    return None


class Runner:
    """Starts children with one environment (sanitized or not)."""

    def __init__(self, sanitize: bool, python: str = sys.executable) -> None:
        self.sanitize = sanitize
        env = sanitizer_env() if sanitize else dict(os.environ)
        env["PYTHONHASHSEED"] = "0"
        self.env = env
        self.python = python

    def start(self, plan: dict, stderr) -> subprocess.Popen:
        proc = subprocess.Popen([self.python, "-m", "p4emu.fuzz.worker"], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=stderr, env=self.env, text=True)
        assert proc.stdin is not None
        proc.stdin.write(json.dumps(plan))
        proc.stdin.close()
        return proc


def run(targets: list[Target], cases: list[Case], *, sanitize: bool, jobs: int = 1,
        seconds: float | None = None, progress: Callable[[Summary], None] | None = None,
        progress_every: float = 30.0) -> Summary:
    """Run `cases` in `jobs` children at a time (each child takes every jobs-th case);
    no case starts after `seconds`."""
    summary = Summary(sanitize)
    runner = Runner(sanitize)
    t0 = time.time()
    deadline = t0 + seconds if seconds is not None else None
    lock = threading.Lock()
    plans = [cases[j::jobs] for j in range(jobs)]
    target_json = [t.to_json() for t in targets]
    last = [t0]

    def record(result: dict) -> None:
        with lock:
            summary.cases += 1
            summary.frames += result["frames"]
            summary.forwarded += result.get("forwarded", 0)
            name, kind = result["target"], result["case"]
            summary.frames_by_target[name] = summary.frames_by_target.get(name, 0) + result["frames"]
            summary.frames_by_kind[kind] = summary.frames_by_kind.get(kind, 0) + result["frames"]
            summary.case_seconds += result["seconds"]
            summary.cpu_seconds += result.get("cpu_seconds", 0.0)
            summary.findings += [Finding(**f) for f in result["findings"]]
            summary.seconds = time.time() - t0
            if progress is not None and time.time() - last[0] >= progress_every:
                last[0] = time.time()
                progress(summary)

    def lane(pending: list[Case]) -> None:
        while pending:
            plan = {"targets": target_json, "cases": pending, "deadline": deadline}
            with tempfile.TemporaryFile("w+") as err:
                proc = runner.start(plan, err)
                started = None
                assert proc.stdout is not None
                for line in proc.stdout:
                    event = json.loads(line)
                    if event["event"] == "start":
                        started = event["index"]
                    elif event["event"] == "done":
                        record(event["result"])
                        started = None
                code = proc.wait()
                err.seek(0)
                stderr = err.read()
            report = sanitizer_report(stderr)
            if code == 0 and report is None:
                return
            if started is None:  # outside a case: nothing to go on with
                with lock:
                    summary.findings.append(Finding(
                        "sanitizer" if report else "crash", "", "", 0, -1, None, "",
                        (report or stderr[-3000:]) + f"\n(exit status {code})"))
                return
            kind, name, seed, frames = pending[started]
            finding = _replay(runner, target_json, pending[started], report, stderr, code)
            with lock:
                summary.findings.append(finding)
                summary.cases += 1
            pending = pending[started + 1:]

    threads = [threading.Thread(target=lane, args=(plan,), daemon=True) for plan in plans if plan]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    summary.seconds = time.time() - t0
    return summary


def _replay(runner: Runner, target_json, case: Case, report, stderr: str, code: int) -> Finding:
    """A finding for `case`, which ended its child: replayed alone with frame tracing,
    the frame it stopped at."""
    kind, name, seed, frames = case
    last = None
    with tempfile.TemporaryFile("w+") as err:
        proc = runner.start({"targets": target_json, "cases": [case], "trace": True}, err)
        assert proc.stdout is not None
        for line in proc.stdout:
            event = json.loads(line)
            if event["event"] == "frame":
                last = event
        replay_code = proc.wait()
    detail = (report or stderr[-3000:]) + f"\n(exit status {code}; replayed: exit status " \
                                          f"{replay_code})"
    return Finding("sanitizer" if report else "crash", name, kind, seed,
                   last["i"] if last else -1, last["port"] if last else None,
                   last["frame"] if last else "", detail)
