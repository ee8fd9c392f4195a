"""A loaded forwarding pipeline: P4Info, device config, cookie, run-time state, pipeline."""

from __future__ import annotations

import functools
import logging
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from p4.config.v1 import p4info_pb2

from p4emu.runtime.device import DeviceState
from p4emu.runtime.meters import Clock
from p4emu.runtime.model import ProgramInfo
from p4emu.switch.device_config import device_data, foreign_config_reason
from p4emu.switch.p4rt_errors import invalid

log = logging.getLogger(__name__)


class DataplanePipeline(Protocol):
    """What the traffic manager needs of p4emu.v1model.pipeline.Pipeline."""

    def ingress(self, port: int, data: bytes, now_us: int) -> list[Any]: ...

    def egress(self, job: Any, *, enq_timestamp: int, enq_qdepth: int, deq_timedelta: int,
               deq_qdepth: int, now_us: int) -> list[tuple[int, bytes]]: ...


@dataclass
class LoadedProgram:
    p4info: p4info_pb2.P4Info
    device_config: bytes
    cookie: int
    info: ProgramInfo
    state: DeviceState
    pipeline: DataplanePipeline
    # how clients encoded ports in PRE entries and groups, echoed back on reads
    encodings: dict = field(default_factory=dict)


# device config bytes -> (ProgramInfo, factory(state) -> pipeline); raises on bad bytes
Loader = Callable[[bytes], tuple[ProgramInfo, Callable[[DeviceState], DataplanePipeline]]]


# which P4 pipeline runs a loaded program: p4emu.native's compiled C one, the generated
# Python one, or (auto) the C one where the program is inside its subset and it builds
PIPELINES = ("auto", "native", "python")


def ir_loader(cpu_port: int | None, pipeline: str = "auto") -> Loader:
    """The real loader: device config = the IR `p4emu compile -o` writes; `pipeline` one
    of PIPELINES. "native" refuses a program it cannot compile (the reason goes back to
    the client that pushed it); "auto" then warns why and runs the Python pipeline."""
    if pipeline not in PIPELINES:
        raise ValueError(f"pipeline {pipeline!r}: expected one of {', '.join(PIPELINES)}")

    def load(device_config: bytes):
        from p4emu.v1model.pipeline import Pipeline

        program = _compiled(device_config)
        if pipeline != "python":
            native = _native_program(program, required=pipeline == "native")
            if native is not None:
                from p4emu.native.pipeline import NativePipeline

                return program.info, lambda state: NativePipeline(native, state,
                                                                  cpu_port=cpu_port)
        return program.info, lambda state: Pipeline(program, state, cpu_port=cpu_port)

    return load


def _native_program(program: Any, required: bool) -> Any:
    """p4emu.native's build of `program`, or None (with a warning naming the reason) when
    it has none and is not `required`; required, a ValueError with the reason."""
    from p4emu.native import NativeUnsupported, load_native

    try:
        return load_native(program)
    except NativeUnsupported as exc:
        where = f" at {exc.where}" if exc.where else ""
        reason = f"the program is outside the compiled pipeline's subset: {exc.construct}{where}"
    except (OSError, RuntimeError) as exc:  # no compiler, no writable cache ...
        reason = f"the compiled pipeline did not build: {str(exc).splitlines()[0]}"
    if required:
        raise ValueError(reason)
    # the Python pipeline forwards some 40 times slower: a warning, not a quiet line, but
    # once per program (the switches of a simulator or a shard share it), then at INFO
    first = not program.meta.get("python_fallback_reported")
    program.meta["python_fallback_reported"] = True
    log.log(logging.WARNING if first else logging.INFO,
            "pipeline auto: %s; running the Python pipeline instead (about 40x slower)", reason)
    return None


@functools.lru_cache(maxsize=4)
def _compiled(device_config: bytes) -> Any:
    """The program of a device config, compiled once per process: the switches of a shard
    (or of the simulator) are given the same config, and compiling mrc.p4 takes 0.6 s of
    CPU, ten times over per shard at k=4. Each pipeline runs the compiled module in its
    own namespace, so sharing the compiled program shares no switch's state."""
    from p4emu.compiler import load_ir  # imported late: the compiler is heavy

    return load_ir(device_config)


def check_p4info_matches(p4info: p4info_pb2.P4Info, info: ProgramInfo) -> None:
    """The controller's P4Info must describe the program in the device config."""
    checks = [
        ("table", p4info.tables, info.tables),
        ("action", p4info.actions, info.actions),
        ("action profile", p4info.action_profiles, info.action_profiles),
        ("register", p4info.registers, info.registers),
        ("digest", p4info.digests, info.digests),
    ]
    for kind, listed, known in checks:
        for obj in listed:
            ours = known.get(obj.preamble.id)
            if ours is None or ours.name != obj.preamble.name:
                raise invalid(f"P4Info {kind} {obj.preamble.name!r} (id {obj.preamble.id}) "
                              "is not in the device config's program")
    for kind, listed in (("counter", list(p4info.counters) + list(p4info.direct_counters)),
                         ("meter", list(p4info.meters) + list(p4info.direct_meters))):
        known = info.counters if kind == "counter" else info.meters
        for obj in listed:
            if obj.preamble.id not in known:
                raise invalid(f"P4Info {kind} {obj.preamble.name!r} (id {obj.preamble.id}) "
                              "is not in the device config's program")


def build_program(loader: Loader, p4info: p4info_pb2.P4Info, device_config: bytes,
                  cookie: int, *, port_up: Callable[[int], bool],
                  clock_us: Clock, rng: random.Random | None = None) -> LoadedProgram:
    """Load and check a pipeline config; INVALID_ARGUMENT when it cannot be used.

    `device_config` is kept as sent (Get returns it); the loader gets the device data,
    unwrapped from a p4.tmp.P4DeviceConfig when the client sent one.
    """
    data = device_data(device_config)
    if not data:
        raise invalid("the pipeline config has no p4_device_config")
    foreign = foreign_config_reason(data)
    if foreign is not None:
        raise invalid(foreign)
    if p4info.ByteSize() == 0:  # spec: VERIFY* / *_COMMIT need the whole config
        raise invalid("the pipeline config has no p4info")
    try:
        info, make_pipeline = loader(data)
    except Exception as exc:  # any loader failure means bad device config bytes
        raise invalid(f"cannot load the device config: {exc}") from None
    check_p4info_matches(p4info, info)
    state = DeviceState.from_program(info, port_up=port_up, clock_us=clock_us, rng=rng)
    try:
        pipeline = make_pipeline(state)
    except Exception as exc:
        raise invalid(f"cannot build the pipeline: {exc}") from None
    return LoadedProgram(p4info, device_config, cookie, info, state, pipeline)
