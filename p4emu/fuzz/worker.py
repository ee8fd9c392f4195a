"""A fuzz worker: `python -m p4emu.fuzz.worker` reads a plan (JSON) on stdin and runs its
cases, one JSON line per event on stdout (flushed, so that the driver knows which case
a sanitizer stopped):

    {"event": "start", "index": i}            before case i
    {"event": "done", "index": i, "result": {...}}   after it (cases.CaseResult)
    {"event": "frame", "index": i, "i": n, "port": p, "frame": hex}   with "trace"
    {"event": "end"}

Plan: {"targets": [Target JSON], "cases": [[kind, target name, seed, frames], ...],
"deadline": time.time() after which no case starts (or null), "trace": bool}. Sanitizer
reports (and Python tracebacks) go to stderr.
"""

from __future__ import annotations

import json
import sys
import time

from p4emu.fuzz.cases import Loaded, Target, run_pipeline_case, run_tm_case

RUNNERS = {"pipeline": run_pipeline_case, "tm": run_tm_case}


def _emit(event: dict) -> None:
    sys.stdout.write(json.dumps(event) + "\n")
    sys.stdout.flush()


def run_plan(plan: dict) -> None:
    targets = {d["name"]: Target.from_json(d) for d in plan["targets"]}
    loaded: dict[str, Loaded] = {}
    deadline = plan.get("deadline")
    trace = plan.get("trace", False)
    for index, (kind, name, seed, frames) in enumerate(plan["cases"]):
        if deadline is not None and time.time() >= deadline:
            break
        _emit({"event": "start", "index": index})
        if name not in loaded:
            loaded[name] = Loaded.load(targets[name])
        tracer = None
        if trace:
            def tracer(i, port, frame, index=index):
                _emit({"event": "frame", "index": index, "i": i, "port": port,
                       "frame": frame.hex()})
        result = RUNNERS[kind](loaded[name], seed, frames, tracer)
        _emit({"event": "done", "index": index, "result": result.to_json()})
    _emit({"event": "end"})


def main() -> int:
    run_plan(json.loads(sys.stdin.read()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
