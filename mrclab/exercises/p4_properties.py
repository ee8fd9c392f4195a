"""Property checks of the P4 exercises: the student's program and the reference solution
(the project's mrc.p4) get the same seeded random packet sequences, on switches set up
alike, and must agree packet by packet: the frames out and their ports, the egress queue
each joins, and the counters. State carries from one packet to the next within a case (the
queue estimate, counters), as on a switch. The first disagreement is reported with its
case, the packets before it and the packet itself (never what the reference sent)."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from mrclab.exercises.p4 import PRIORITY_QUEUES
from mrclab.exercises.packets import describe, first_difference
from mrclab.exercises.worker import CheckFailed
from mrclab.exercises.workspace import Workspace


@dataclass
class Sent:
    """One packet of a case: in on `port`, meeting an egress queue `depth` deep. With
    `again`, `frame` is ignored: what the switch sent for the packet before comes in
    again, as at the next hop (skipped when it sent nothing)."""

    port: int
    frame: bytes = b""
    depth: int = 0
    again: bool = False


@dataclass
class Case:
    situation: str  # the mode and setup, as the student reads it
    setup: str  # STF table and register commands
    packets: list[Sent] = field(default_factory=list)


def _compile(path: Path):
    from p4emu.compiler import load_ir
    from p4emu.frontend import compile_file
    from p4emu.lang.errors import P4CompileError

    try:
        return load_ir(compile_file(str(path)).ir)
    except P4CompileError as exc:  # the runner compiled it already: should not happen
        raise CheckFailed(f"{path.name} does not compile: {str(exc).splitlines()[0]}") from None


class _Switch:
    """One switch of a case: the program, its tables and registers as `setup` says."""

    def __init__(self, program, setup: str, seed: int) -> None:
        from p4emu.runtime.device import DeviceState
        from p4emu.stf.parser import parse_stf
        from p4emu.stf.runner import StfRun
        from p4emu.v1model.pipeline import Pipeline

        self.now = 0
        self.state = DeviceState.from_program(program.info, clock_us=lambda: self.now,
                                              rng=random.Random(seed))
        self.pipeline = Pipeline(program, self.state, priority_queues=PRIORITY_QUEUES)
        self.queued: list = []
        self.pipeline.on_enqueue = self.queued.append
        run = StfRun(self.state, lambda *_: [], "setup")
        for cmd in parse_stf(setup, "setup"):
            run.execute(cmd)
        if run.rejected:
            raise RuntimeError(f"property setup refused: {run.rejected[0]}")

    def send(self, sent: Sent) -> tuple[list[tuple[int, bytes]], list[int]]:
        self.now += 1
        self.queued.clear()
        self.pipeline.queue_depth = sent.depth
        out = self.pipeline.process(sent.port, sent.frame, self.now)
        return out, [job.priority for job in self.queued]

    def counters(self) -> dict[str, list[int]]:
        from p4emu.runtime.counters import CounterArray

        return {c.info.name: [cell.packets for cell in c.cells]
                for c in self.state.objects("counters") if isinstance(c, CounterArray)}


def _difference(mine: tuple, ref: tuple) -> str:
    """What the student's switch did otherwise with one packet ('' when nothing)."""
    (out, queues), (want, want_queues) = mine, ref
    if len(out) != len(want):
        if not out:
            return "your switch dropped it"
        if not want:
            return f"your switch sent it out (port {out[0][0]}); it must not leave"
        return f"your switch sent {len(out)} copies, not {len(want)}"
    for (port, data), (want_port, want_data) in zip(out, want, strict=True):
        if port != want_port:
            return f"it left on port {port}, which is not the port it must take"
        diff = first_difference(data, want_data)
        if diff:
            return f"it left on port {port}, but {diff}, which is wrong"
    if queues != want_queues:
        return f"it joined egress priority queue {queues}, which is not its queue"
    return ""


def _counter_difference(mine: dict[str, list[int]], ref: dict[str, list[int]]) -> str:
    for name, cells in ref.items():
        got = mine.get(name, [])
        for i, n in enumerate(cells):
            if i >= len(got) or got[i] != n:
                return f"then counter {name}[{i}] reads {got[i] if i < len(got) else '?'}"
    return ""


def differential(ws: Workspace, cases: list[Case], seed: int) -> tuple[bool, str]:
    """The student's program against the reference on `cases`, packet by packet."""
    mine = _compile(ws.program)
    ref = _compile(ws.exercise.solution_file(ws.exercise.program))
    total = 0
    for k, case in enumerate(cases, start=1):
        a, b = _Switch(mine, case.setup, seed), _Switch(ref, case.setup, seed)
        last: list[tuple[int, bytes]] = []
        packets: list[Sent] = []
        for sent in case.packets:
            if sent.again:
                if not last:
                    continue
                sent = Sent(sent.port, last[0][1], sent.depth)
            packets.append(sent)
            i = len(packets)
            total += 1
            got, want = a.send(sent), b.send(sent)
            last = want[0]
            problem = _difference(got, want) or _counter_difference(a.counters(), b.counters())
            if problem:
                before = "; ".join(f"{n}. {describe(p.frame)}" + (f" at depth {p.depth}"
                                                                    if p.depth else "")
                                   for n, p in enumerate(packets[:i - 1], start=1))
                depth = f", meeting a queue {sent.depth} deep" if sent.depth else ""
                return False, (f"case {k} of {len(cases)} (seed {seed}): {case.situation}; "
                               + (f"after {before}; " if before else "")
                               + f"packet {i} in on port {sent.port}{depth}: "
                               f"{describe(sent.frame)}: {problem}")
    return True, f"{len(cases)} random cases, {total} packets: every one as the reference"


Generator = Callable[[random.Random], list[Case]]


def check(ws: Workspace, generate: Generator, seed: int) -> tuple[bool, str]:
    return differential(ws, generate(random.Random(seed)), seed)
