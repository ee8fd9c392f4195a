"""Differential test: random packets through the Python and the native pipeline of every
program inside the subset (mrclab/p4src/mrc.p4 and the accepted corpus), with each STF file's
set-up. The packets are the STF's own, mutated (bytes flipped, cut short, grown) and sent
to random ports; every output, then every register and counter, must be the same."""

from __future__ import annotations

import random
import zlib

import pytest

from p4emu.compiler import load_ir
from p4emu.frontend import compile_file
from p4emu.native import load_native
from p4emu.native.pipeline import NativePipeline
from p4emu.runtime.device import DeviceState
from p4emu.stf import commands as c
from p4emu.stf.parser import parse_stf
from p4emu.stf.runner import StfRun
from p4emu.v1model.pipeline import Pipeline
from tests.unit.native.compare import P4_DIR, ROOT, stf_files
from tests.unit.native.refusals import REFUSED
from tests.unit.native.test_native_corpus import PROGRAMS

ACCEPTED = [p for p in PROGRAMS if str(p.relative_to(P4_DIR)) not in REFUSED]
CASES = [(ROOT / "mrclab" / "p4src" / "mrc.p4", stf) for stf in sorted((P4_DIR / "mrc").glob("*.stf"))]
CASES += [(p, stf) for p in ACCEPTED for stf in stf_files(p)]
PACKETS = 150


def mutate(rng: random.Random, data: bytes) -> bytes:
    b = bytearray(data)
    for _ in range(rng.choice((0, 1, 1, 2, 4))):
        if b:
            b[rng.randrange(len(b))] = rng.randrange(256)
    r = rng.random()
    if r < 0.15 and b:
        del b[rng.randrange(len(b) + 1):]
    elif r < 0.25:
        b += bytes(rng.randrange(256) for _ in range(rng.randrange(1, 40)))
    return bytes(b)


def _state(program, seed: int) -> DeviceState:
    return DeviceState.from_program(program.info, port_up=lambda p: p % 5 != 3,
                                    clock_us=lambda: 0, rng=random.Random(seed))


@pytest.mark.parametrize("program_path,stf", CASES,
                         ids=[str(s.relative_to(P4_DIR)) for _, s in CASES])
def test_random_packets_same_as_python(program_path, stf):
    program = load_ir(compile_file(str(program_path)).ir)
    load_native(program)
    commands = parse_stf(stf.read_text(), str(stf))
    packets = [(cmd.port, cmd.data) for cmd in commands if isinstance(cmd, c.Packet)]
    ports = sorted({p for p, _ in packets} | {0, 1, 2, 255})
    sides = []
    for make in (Pipeline, NativePipeline):
        state = _state(program, 11)
        pipe = make(program, state, priority_queues=2)
        run = StfRun(state, lambda port, data, now: [], str(stf))
        for cmd in commands:
            if not isinstance(cmd, c.Packet | c.Expect | c.NoPacket | c.CheckCounter):
                run.execute(cmd)
        sides.append((state, pipe))
    assert packets, "an STF file without packets"
    rng = random.Random(zlib.crc32(stf.name.encode()))
    (py_state, py), (nat_state, nat) = sides
    for i in range(PACKETS):
        port, data = rng.choice(packets)
        frame = mutate(rng, data)
        port = port if rng.random() < 0.7 else rng.choice(ports)
        a, b = py.process(port, frame, i), nat.process(port, frame, i)
        assert b == a, f"packet {i} ({frame.hex()}) from port {port}"
    for name, reg in py_state.registers.items():
        if isinstance(name, str):
            other = nat_state.registers[name]
            assert [other.get(i) for i in range(reg.info.size)] == \
                [reg.get(i) for i in range(reg.info.size)], name
    for name, cnt in py_state.counters.items():
        if isinstance(name, str) and hasattr(cnt, "cells"):
            other = nat_state.counters[name]
            got = [(other.read(i).packets, other.read(i).bytes) for i in range(cnt.info.size)]
            want = [(cnt.read(i).packets, cnt.read(i).bytes) for i in range(cnt.info.size)]
            assert got == want, name
