"""One fuzz case: a program, a seed and a number of frames, run through the Python
pipeline (the reference) and the compiled one in lockstep (`run_pipeline_case`), or
through the Python traffic manager with the Python pipeline and the compiled traffic
manager with the compiled pipeline (`run_tm_case`), every output compared.

A case starts from one of the program's STF files (its entries, defaults, members,
groups, multicast groups), adds random writes (`control`) and keeps writing now and then
between frames. Both sides have their own `DeviceState` with the same seeded rng (v1model
random()), the same watch-port liveness and the same writes. The first difference ends the
case and is reported with what reproduces it: the seed, the program, the frame (hex),
its port and the writes applied so far.
"""

from __future__ import annotations

import functools
import logging
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from p4emu.compiler import CompiledProgram, load_ir
from p4emu.frontend import compile_file
from p4emu.fuzz.control import ControlFuzzer, Op, apply
from p4emu.fuzz.frames import FrameGen
from p4emu.fuzz.layout import Path as ParserPath
from p4emu.fuzz.layout import parser_paths
from p4emu.native import load_native
from p4emu.native.cgen import check_program
from p4emu.native.pipeline import NativePipeline
from p4emu.runtime.device import DeviceState
from p4emu.runtime.port_states import BITMAP_PORTS, PortStates
from p4emu.stf import commands as c
from p4emu.stf.parser import parse_stf
from p4emu.stf.runner import StfRun
from p4emu.v1model.pipeline import Pipeline

CPU_PORT = 255
PRIORITY_QUEUES = 2
DEPTHS = (0, 0, 0, 1, 2, 5, 10, 31, 32, 63, 64, 100, 1000, 65535)


def port_states() -> PortStates:
    """Watch-port liveness both sides see: every port but 3, 8, 13, ... of v1model's 512
    (a PortStates: the compiled side selects from its bitmap)."""
    states = PortStates()
    for port in range(3, BITMAP_PORTS, 5):
        states.set_up(port, False)
    return states


@dataclass
class Target:
    """A program to fuzz and the STF files that set it up (and give seed packets)."""

    name: str
    program: Path
    stfs: tuple[Path, ...] = ()

    def to_json(self) -> dict:
        return {"name": self.name, "program": str(self.program),
                "stfs": [str(s) for s in self.stfs]}

    @classmethod
    def from_json(cls, d: dict) -> Target:
        return cls(d["name"], Path(d["program"]), tuple(Path(s) for s in d["stfs"]))


@dataclass
class Loaded:
    """A target compiled (both ways) with its STF set-ups, seed packets and parser paths."""

    target: Target
    program: CompiledProgram
    setups: list[tuple[str, list]]  # (STF file, its commands but packets and checks)
    seeds: list[tuple[int, bytes]]
    paths: list[ParserPath]

    @classmethod
    def load(cls, target: Target) -> Loaded:
        program = load_ir(compile_file(str(target.program)).ir)
        load_native(program)  # NativeUnsupported outside the subset
        setups, seeds = [], []
        for stf in target.stfs:
            commands = parse_stf(stf.read_text(), str(stf))
            setups.append((str(stf), [cmd for cmd in commands if not isinstance(
                cmd, c.Packet | c.Expect | c.NoPacket | c.CheckCounter | c.Wait)]))
            seeds += [(cmd.port, cmd.data) for cmd in commands if isinstance(cmd, c.Packet)]
        paths = parser_paths(dict(check_program(program).roles)["parser"])
        return cls(target, program, setups, seeds, paths)


@dataclass
class Finding:
    """A difference (or an internal error of one side only) and how to reproduce it."""

    kind: str  # "output", "state", "write", "tm", "sanitizer", "crash"
    target: str
    case: str  # "pipeline" or "tm"
    seed: int
    frame_index: int
    port: int | None
    frame: str  # hex
    detail: str
    writes: list[str] = field(default_factory=list)
    setup: str = ""  # the STF file the case started from

    def to_json(self) -> dict:
        return dict(self.__dict__)

    def describe(self) -> str:
        what = "report" if self.kind in ("sanitizer", "crash") else "difference"
        lines = [f"{self.kind} {what}: {self.target} {self.case} case, seed {self.seed}, "
                 f"frame {self.frame_index}" + (f" from port {self.port}"
                                                 if self.port is not None else ""),
                 f"  frame: {self.frame or '(none)'}"]
        if self.setup:
            lines.append(f"  set up by: {self.setup}")
        lines += [f"  {line}" for line in self.detail.splitlines()]
        if self.writes:
            lines.append(f"  writes ({len(self.writes)}, the last 40):")
            lines += [f"    {w}" for w in self.writes[-40:]]
        if self.target and self.frame_index >= 0:
            lines.append(f"  replay: python scripts/fuzz_native.py --replay {self.case} "
                         f"{self.target} {self.seed} {self.frame_index + 1}")
        return "\n".join(lines)


@dataclass
class CaseResult:
    target: str
    case: str
    seed: int
    frames: int  # frames run (both sides)
    seconds: float
    forwarded: int = 0  # frames the reference sent somewhere
    cpu_seconds: float = 0.0  # of this process: the rate on a shared machine
    findings: list[Finding] = field(default_factory=list)
    strategies: dict[str, int] = field(default_factory=dict)

    def to_json(self) -> dict:
        d = dict(self.__dict__)
        d["findings"] = [f.to_json() for f in self.findings]
        return d


def _outcome(fn: Callable, *args):
    try:
        return ("ok", fn(*args))
    except Exception as exc:  # an internal error: the switch drops the packet
        return ("error", type(exc).__name__)


Setup = tuple[str, list] | None  # an STF file and its set-up commands


def _device(loaded: Loaded, make: Callable[..., Pipeline | NativePipeline], seed: int,
            setup: Setup, clock_us: Callable[[], int],
            **options: int) -> tuple[DeviceState, Pipeline | NativePipeline]:
    """A device state and its pipeline (`make`) as every side of a case starts them: the
    same rng, liveness and STF set-up."""
    state = DeviceState.from_program(loaded.program.info, port_up=port_states(),
                                     clock_us=clock_us, rng=random.Random(seed))
    pipe = make(loaded.program, state, cpu_port=CPU_PORT, **options)
    if setup is not None:
        name, commands = setup
        run = StfRun(state, lambda port, data, now: [], name)
        for cmd in commands:
            run.execute(cmd)
    return state, pipe


class _Side:
    """A pipeline of a pipeline case, on a clock that stays at 0."""

    def __init__(self, loaded: Loaded, make: Callable[..., Pipeline | NativePipeline],
                 seed: int, setup: Setup) -> None:
        self.state, self.pipe = _device(loaded, make, seed, setup, lambda: 0,
                                        priority_queues=PRIORITY_QUEUES)


def _write(sides, fuzzer: ControlFuzzer, writes: list[str]) -> str | None:
    """Generate one write from side 0's state and apply it to every side; the outcomes
    (None when they agree)."""
    op: Op = fuzzer.next(sides[0].state)
    outcomes = [apply(s.state, op) for s in sides]
    writes.append(f"{op.describe()} -> {outcomes[0]}")
    if len(set(outcomes)) > 1:
        return f"write {op.describe()}: outcomes {outcomes}"
    return None


def _state_difference(py: DeviceState, nat: DeviceState, native: NativePipeline) -> str | None:
    """Registers, counters and table entries' hit counters, side by side."""
    native.sync()
    for name, reg in py.registers.items():
        if isinstance(name, str):
            other = nat.registers[name]
            a = [reg.values[i] for i in range(len(reg.values))]
            b = [other.values[i] for i in range(len(other.values))]
            if a != b:
                return f"register {name}: python {a[:16]} native {b[:16]}"
    for name, cnt in py.counters.items():
        if isinstance(name, str) and hasattr(cnt, "cells"):
            other = nat.counters[name]
            a = [(cnt.read(i).packets, cnt.read(i).bytes) for i in range(cnt.info.size)]
            b = [(other.read(i).packets, other.read(i).bytes) for i in range(cnt.info.size)]
            if a != b:
                return f"counter {name}: python {a[:8]} native {b[:8]}"
    for name, table in py.tables.items():
        if isinstance(name, str):
            a = [(e.counter.packets, e.counter.bytes) for e in table.entries()]
            b = [(e.counter.packets, e.counter.bytes) for e in nat.tables[name].entries()]
            if a != b:
                return f"table {name} entry hit counters: python {a[:8]} native {b[:8]}"
    return None


def _quietly(run: Callable[..., CaseResult]) -> Callable[..., CaseResult]:
    """`run` with the pipelines' per-packet error logs (out-of-range registers, faults)
    silenced."""

    @functools.wraps(run)
    def quiet(*args, **kwargs) -> CaseResult:
        previous = logging.root.manager.disable
        logging.disable(logging.CRITICAL)
        try:
            return run(*args, **kwargs)
        finally:
            logging.disable(previous)
    return quiet


class _Case:
    """What a pipeline case and a traffic-manager case share: the seeded rng, the STF
    set-up drawn from it, the writes to every side, the findings and the timing."""

    def __init__(self, loaded: Loaded, case: str, seed: int) -> None:
        self.t0, self.c0 = time.perf_counter(), time.process_time()
        self.loaded = loaded
        self.rng = random.Random(seed)
        self.setup = self.rng.choice(loaded.setups) if loaded.setups else None
        self.result = CaseResult(loaded.target.name, case, seed, 0, 0.0)
        self.writes: list[str] = []

    def start(self, sides: list[_Side] | list[_Switch]) -> None:
        """The write and frame generators for `sides`, then 0-29 writes before the first
        frame. Not in __init__: a traffic-manager case draws its queue settings from the
        rng in between, and keeping the draws in order keeps what each seed reproduces."""
        self.sides = sides
        planted: dict = {}
        self.fuzzer = ControlFuzzer(self.rng, sides[0].state, planted)
        self.gen = FrameGen(self.rng, self.loaded.paths, self.loaded.seeds, planted)
        for _ in range(self.rng.randrange(0, 30)):
            if self.write(-1):
                break

    def next_frame(self) -> tuple[int, bytes]:
        """The next generated frame and its port; its strategy counted."""
        port, frame, how = self.gen.next()
        self.result.strategies[how] = self.result.strategies.get(how, 0) + 1
        return port, frame

    def frames(self, frames: int) -> range:
        """The frame numbers to run: none after a finding."""
        return range(frames if not self.result.findings else 0)

    def write(self, i: int) -> bool:
        """One write to every side before frame `i`; True (and a finding) when their
        outcomes differ."""
        bad = _write(self.sides, self.fuzzer, self.writes)
        if bad:
            self.finding("write", i, None, None, bad)
        return bool(bad)

    def finding(self, kind: str, i: int, port: int | None, frame: bytes | None,
                detail: str) -> None:
        r = self.result
        r.findings.append(Finding(kind, r.target, r.case, r.seed, i, port,
                                  frame.hex() if frame is not None else "", detail,
                                  list(self.writes), self.setup[0] if self.setup else ""))

    def end(self, native: NativePipeline) -> CaseResult:
        """Close the compiled pipeline; the result with its timing."""
        native.close()
        self.result.seconds = time.perf_counter() - self.t0
        self.result.cpu_seconds = time.process_time() - self.c0
        return self.result


@_quietly
def run_pipeline_case(loaded: Loaded, seed: int, frames: int,
                      trace: Callable[[int, int, bytes], None] | None = None) -> CaseResult:
    """`frames` generated frames through both pipelines in lockstep (`trace(i, port,
    frame)` is told each frame before it runs: a replay names the frame a sanitizer
    stopped at)."""
    case = _Case(loaded, "pipeline", seed)
    rng, result = case.rng, case.result
    py, nat = (_Side(loaded, Pipeline, seed, case.setup),
               _Side(loaded, NativePipeline, seed, case.setup))
    case.start([py, nat])
    now = 0
    for i in case.frames(frames):
        if rng.random() < 0.02 and case.write(i):
            break
        port, frame = case.next_frame()
        depth = rng.choice(DEPTHS)
        now += rng.choice((0, 1, 1, 7, 1000, 1 << 20))
        py.pipe.queue_depth = nat.pipe.queue_depth = depth
        if trace is not None:
            trace(i, port, frame)
        a = _outcome(py.pipe.process, port, frame, now)
        b = _outcome(nat.pipe.process, port, frame, now)
        result.frames += 1
        result.forwarded += a[0] == "ok" and bool(a[1])
        if a != b:
            case.finding("output", i, port, frame,
                         f"queue depth {depth}, now {now} us: python {_short(a)} != native "
                         f"{_short(b)}")
            break
    if not result.findings:
        bad = _state_difference(py.state, nat.state, nat.pipe)
        if bad:
            case.finding("state", result.frames, None, None, bad)
    return case.end(nat.pipe)


def _short(outcome) -> str:
    kind, value = outcome
    if kind == "error":
        return f"raised {value}"
    return "[" + ", ".join(f"({p}, {d.hex()})" for p, d in value) + "]"


# -- the traffic managers ------------------------------------------------------------------
class _Ports:
    """A switch's ports as the traffic manager sees them: sends recorded."""

    def __init__(self, numbers) -> None:
        self.ports = dict.fromkeys(numbers)
        self.sent: list[tuple[int, bytes, float]] = []

    def send(self, number, frame, start_us=None):
        self.sent.append((number, frame, start_us))
        return True


class _Program:
    def __init__(self, pipeline, info) -> None:
        self.pipeline = pipeline
        self.info = info
        self.cookie = 0


class _Switch:
    """A traffic manager with its pipeline, ports and clock (ns)."""

    def __init__(self, loaded: Loaded, tm_class, make, seed: int, setup, settings) -> None:
        from p4emu.switch.core import SwitchCore

        self.clock = [0]
        self.core = SwitchCore(cpu_port=CPU_PORT, clock_ns=lambda: self.clock[0])
        self.packet_ins: list[bytes] = []
        self.core.packet_in = self.packet_ins.append
        self.ports = _Ports(range(1, 5))
        self.tm = tm_class(self.core, self.ports, settings)
        self.state, self.pipe = _device(loaded, make, seed, setup, self.core.clock_us)
        self.core.program = _Program(self.pipe, loaded.program.info)

    def observe(self) -> tuple:
        drops = {n: dict(q.drops) for n, q in sorted(self.tm.queues.items())}
        depths = {n: q.depth for n, q in sorted(self.tm.queues.items())}
        return (self.ports.sent, self.packet_ins, drops, depths, self.tm.pipeline_errors)


@_quietly
def run_tm_case(loaded: Loaded, seed: int, frames: int,
                trace: Callable[[int, int, bytes], None] | None = None) -> CaseResult:
    """`frames` frames into the Python traffic manager with the Python pipeline and the
    compiled traffic manager with the compiled pipeline, on one virtual clock each: the
    frames sent (port, bytes, service start), PacketIns, drops, queue depths and
    internal errors must agree step by step."""
    from p4emu.switch.native_traffic_manager import NativeTrafficManager
    from p4emu.switch.traffic_manager import QueueSettings, TrafficManager

    case = _Case(loaded, "tm", seed)
    rng, result, writes = case.rng, case.result, case.writes
    settings = [QueueSettings(depth=d, rate_pps=r, line_rate_bps=lr, priorities=p,
                              priority_depths=pd)
                for d, r, lr, p, pd in [(rng.choice((2, 8, 64)), rng.choice((0.0, 1e5)),
                                         rng.choice((0.0, 1e8, 1e10)), rng.choice((1, 2, 2)),
                                         rng.choice(({}, {1: 4})))] * 2]
    switches = [_Switch(loaded, TrafficManager, Pipeline, seed, case.setup, settings[0]),
                _Switch(loaded, NativeTrafficManager, NativePipeline, seed, case.setup,
                        settings[1])]
    case.start(switches)
    seen = [0, 0]
    for i in case.frames(frames):
        r = rng.random()
        if r < 0.02:
            if case.write(i):
                break
        elif r < 0.03:  # run-time queue settings, as the runtime control sets them
            port = rng.choice((None, 1, 2, 3, 4, CPU_PORT))
            change = rng.randrange(3)
            if change == 0:
                method, args = "set_rate", (rng.choice((0.0, 2e5, 1e6)), port)
            elif change == 1:
                method, args = "set_line_rate", (rng.choice((0.0, 1e9, 1e10)), port)
            else:
                method, args = "set_depth", (rng.randrange(1, 9), port, rng.choice((None, 0, 1)))
            writes.append(f"{method}{args}")
            for s in switches:
                getattr(s.tm, method)(*args)
        dt = rng.choice((0, 0, 100, 1000, 7000, 250_000, 4_000_000))
        port, frame = case.next_frame()
        if trace is not None:
            trace(i, port, frame)
        mode = rng.random()
        outs = []
        for s in switches:
            s.clock[0] += dt
            if mode < 0.5:
                outs.append(_outcome(s.tm.receive_due, port, frame))
            elif mode < 0.9:
                outs.append((_outcome(s.tm.ingress, port, frame), _outcome(s.tm.serve_due)))
            else:
                outs.append(_outcome(s.tm.serve_due))
        result.frames += 1
        obs = [s.observe() for s in switches]
        result.forwarded += len(obs[0][0]) + len(obs[0][1]) > sum(seen)
        if outs[0] != outs[1] or _new(obs[0], seen) != _new(obs[1], seen) or \
                obs[0][2:] != obs[1][2:]:
            case.finding("tm", i, port, frame, _tm_difference(outs, obs, seen))
            break
        seen = [len(obs[0][0]), len(obs[0][1])]
    return case.end(switches[1].pipe)


def _new(obs, seen) -> tuple:
    return (obs[0][seen[0]:], obs[1][seen[1]:])


def _tm_difference(outs, obs, seen) -> str:
    parts = []
    if outs[0] != outs[1]:
        parts.append(f"returned python {outs[0]!r} native {outs[1]!r}")
    (sa, pa), (sb, pb) = _new(obs[0], seen), _new(obs[1], seen)
    if sa != sb:
        parts.append(f"sent python {[(p, f.hex(), t) for p, f, t in sa][:4]} "
                     f"native {[(p, f.hex(), t) for p, f, t in sb][:4]}")
    if pa != pb:
        parts.append(f"packet-ins python {[f.hex() for f in pa][:4]} "
                     f"native {[f.hex() for f in pb][:4]}")
    labels = ("drops", "queue depths", "internal errors")
    for label, a, b in zip(labels, obs[0][2:], obs[1][2:], strict=True):
        if a != b:
            parts.append(f"{label}: python {a} native {b}")
    return "; ".join(parts)
