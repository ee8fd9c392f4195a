"""The v1model pipeline as BMv2 simple_switch runs it (docs/v1model.md §1–§3).

parse → verifyChecksum → ingress → (I2E clone, digest, resubmit, multicast / drop /
unicast) → egress → (E2E clone, drop) → computeChecksum → deparse → (recirculate) →
transmit (truncated). The P4 blocks are generated Python functions (see
`p4emu.compiler`); this module only does the traffic-manager logic between them.
Not thread-safe: one packet at a time per Pipeline.

Any exception other than a failed v1model assert/assume propagates to the caller: it is
an internal error of p4emu (or a fault BMv2 aborts on, such as a division by zero), and
swallowing it here would turn a broken emulator into a dropped packet that a test
expecting a drop would accept. `p4emu stf` makes it fatal; the switch counts it.
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Callable
from functools import partial

from p4emu.compiler import CompiledProgram
from p4emu.v1model.support import (
    AssertionFailed,
    ExitSignal,
    Packet,
    PacketState,
    ParserError,
    generated_globals,
    random_value,
)

log = logging.getLogger(__name__)

DROP_PORT = 511
NORMAL, INGRESS_CLONE, EGRESS_CLONE, RECIRC, REPLICATION, RESUBMIT = 0, 1, 2, 4, 5, 6
MAX_PASSES = 64  # resubmit/recirculate loops per received packet


class EgressJob:
    """A packet between the traffic manager and egress."""

    __slots__ = ("port", "priority", "hdr", "meta", "sm", "payload", "length", "now_us", "truncate",
                 "pkt_length", "recirculate")

    def __init__(self, port, hdr, meta, sm, payload: bytes, length: int, now_us: int):
        self.port = port
        self.priority = sm.f_priority
        self.hdr = hdr
        self.meta = meta
        self.sm = sm
        self.payload = payload
        self.length = length
        self.now_us = now_us
        self.truncate = None  # set by ingress truncate() on the unicast path
        self.pkt_length = length  # standard_metadata.packet_length seen by egress
        self.recirculate = None  # recirculate requested in ingress (acted on after egress)


class Pipeline:
    def __init__(self, program: CompiledProgram, state, cpu_port: int | None = None,
                 priority_queues: int | None = None):
        self.program = program
        self.state = state
        self.cpu_port = cpu_port
        # process() models simple_switch's enqueue check: priority >= this count is dropped
        # (simple_switch --priority-queues N; plain simple_switch, as p4c's STF driver
        # starts it, has 1). None: no check (the switch layer owns the queues)
        self.priority_queues = priority_queues
        # process() tells it every packet it hands to egress, as a traffic manager would
        # queue it (port, priority): what STF's expectations cannot see
        self.on_enqueue: Callable[[EgressJob], None] | None = None
        # the egress queue depth process() reports (enq_qdepth, deq_qdepth), as if that many
        # packets waited ahead: checks reach depth-driven code that STF's empty queues cannot
        self.queue_depth = 0
        ns = generated_globals()
        self.ps = PacketState()
        ns["PS"] = self.ps
        ns["AID"] = program.action_ids
        ns["DIGEST_IDS"] = program.digest_ids
        ns["random_value"] = partial(random_value, rng=state.rng)
        stores = {"table": state.tables, "register": state.registers, "counter": state.counters,
                  "meter": state.meters, "value_set": state.value_sets}
        for py, (kind, name) in program.bindings.items():
            ns[py] = stores[kind][name]
        exec(program.code, ns)  # noqa: S102 -- code generated locally by p4emu.compiler
        self.ns = ns
        self._parse = ns["PARSE"]
        self._verify = ns["VERIFY"]
        self._ingress = ns["INGRESS"]
        self._egress = ns["EGRESS"]
        self._compute = ns["COMPUTE"]
        self._deparse = ns["DEPARSE"]
        self._new_h = ns["NEW_H"]
        self._new_m = ns["NEW_M"]
        self._new_sm = ns["NEW_SM"]

    # -- public API --------------------------------------------------------------------
    def process(self, port: int, data: bytes, now_us: int = 0) -> list[tuple[int, bytes]]:
        """Run one received packet to completion (no queueing)."""
        out: list[tuple[int, bytes]] = []
        jobs: deque = deque(self.ingress(port, data, now_us))
        passes = 0
        while jobs:
            job = jobs.popleft()
            passes += 1
            if passes > MAX_PASSES * 16:
                log.error("packet from port %d: too many copies, dropped", port)
                break
            if self.priority_queues is not None and job.priority >= self.priority_queues:
                log.error("priority %d out of range, dropping packet", job.priority)
                continue
            if self.on_enqueue is not None:
                self.on_enqueue(job)
            depth = self.queue_depth
            out.extend(self._egress_job(job, 0, depth, 0, depth, now_us, jobs))
        return out

    def ingress(self, port: int, data: bytes, now_us: int = 0) -> list[EgressJob]:
        jobs: list[EgressJob] = []
        todo: deque = deque()  # resubmitted packets
        # the received packet's own pass, called directly (once per packet and hop)
        try:
            self._ingress_pass(port, data, NORMAL, None, None, None, now_us, jobs, todo)
        except AssertionFailed:  # BMv2 aborts; p4emu drops the packet (logged already)
            pass
        passes = 1
        while todo:
            passes += 1
            if passes > MAX_PASSES:
                log.error("packet from port %d: resubmit loop, dropped", port)
                break
            p, d, itype, fl, old_m, old_sm = todo.popleft()
            try:
                self._ingress_pass(p, d, itype, fl, old_m, old_sm, now_us, jobs, todo)
            except AssertionFailed:  # BMv2 aborts; p4emu drops the packet (logged already)
                pass
        return jobs

    def egress(self, job: EgressJob, *, enq_timestamp: int = 0, enq_qdepth: int = 0,
               deq_timedelta: int = 0, deq_qdepth: int = 0, now_us: int = 0) -> list[tuple[int, bytes]]:
        jobs: deque = deque()
        # _egress_job, inlined (once per packet and hop); `out` is a new list, which the
        # clones' outputs join
        try:
            out = self._egress_pass(job, enq_timestamp, enq_qdepth, deq_timedelta, deq_qdepth, now_us, jobs)
        except AssertionFailed:  # BMv2 aborts; p4emu drops the packet (logged already)
            out = []
        passes = 0
        while jobs:  # E2E clones and recirculated packets, run to completion
            passes += 1
            if passes > MAX_PASSES * 16:
                break
            out.extend(self._egress_job(jobs.popleft(), 0, 0, 0, 0, now_us, jobs))
        return out

    # -- ingress -----------------------------------------------------------------------
    def _new_packet(self, port: int, data: bytes, itype: int, now_us: int):
        hdr, meta, sm = self._new_h(), self._new_m(), self._new_sm()
        sm.f_ingress_port = port
        sm.f_packet_length = len(data)
        sm.f_instance_type = itype
        sm.f_ingress_global_timestamp = now_us
        return hdr, meta, sm

    def _run_parser(self, data: bytes, hdr, meta, sm) -> bytes:
        ps = self.ps
        pk = Packet(data)
        try:
            self._parse(pk, hdr, meta, sm)
        except ParserError as e:
            sm.f_parser_error = e.code
        ps.payload = data[pk.pos:]
        ps.checksum_error = 0
        self._verify(hdr, meta)
        sm.f_checksum_error = ps.checksum_error
        return ps.payload

    def _ingress_pass(self, port, data, itype, fl, old_m, old_sm, now_us, jobs, todo) -> None:
        ps = self.ps
        # _new_packet and _run_parser, inlined (the per-packet path)
        hdr, meta, sm = self._new_h(), self._new_m(), self._new_sm()
        n = len(data)
        if itype == NORMAL:
            sm.f_ingress_port = port
            sm.f_ingress_global_timestamp = now_us
        else:
            # resubmitted/recirculated: metadata zeroed except preserved fields
            sm.f_ingress_port = 0 if fl is not None else port
            if callable(fl):
                fl(old_m, old_sm, meta, sm)
            sm.f_instance_type = itype
        sm.f_packet_length = n
        ps.reset(sm, n, now_us)
        pk = Packet(data)
        try:
            self._parse(pk, hdr, meta, sm)
        except ParserError as e:
            sm.f_parser_error = e.code
        payload = ps.payload = data[pk.pos:]
        ps.checksum_error = 0
        self._verify(hdr, meta)
        sm.f_checksum_error = ps.checksum_error
        ps.length = sm.f_packet_length
        try:
            self._ingress(hdr, meta, sm)
        except ExitSignal:
            pass
        length = ps.length
        pkt_length = (length + ps.len_delta) & 0xFFFFFFFF
        clone, digest, resubmit = ps.clone, ps.digest, ps.resubmit
        # BMv2's clone primitives only set the mirror-session register, whatever the
        # CloneType: a request pending at the end of ingress is an ingress clone
        if clone is not None:
            self._i2e_clone(data, clone, meta, sm, now_us, jobs)
        if digest is not None:
            self.state.digest_queue.push(digest[0], digest[1], now_us * 1000)
        if resubmit is not None:
            todo.append((sm.f_ingress_port, data, RESUBMIT, resubmit, meta, sm))
            return
        if sm.f_mcast_grp != 0:
            for rid, eport in self.state.pre.replicas(sm.f_mcast_grp):
                c_sm = sm.copy()
                c_sm.f_instance_type = REPLICATION
                c_sm.f_egress_rid = rid
                job = EgressJob(eport, hdr.copy(), meta.copy(), c_sm, payload, length, now_us)
                job.pkt_length = pkt_length
                jobs.append(job)
            return
        if sm.f_egress_spec == DROP_PORT:
            return
        sm.f_instance_type = NORMAL
        job = EgressJob(sm.f_egress_spec, hdr, meta, sm, payload, length, now_us)
        job.truncate = ps.truncate
        job.pkt_length = pkt_length
        job.recirculate = ps.recirculate  # the flag survives to the end of egress (unicast only)
        jobs.append(job)

    def _i2e_clone(self, data, clone, meta, sm, now_us, jobs) -> None:
        _, session, fl = clone
        for rid, eport in self.state.pre.clone_targets(session):
            c_hdr, c_meta, c_sm = self._new_h(), self._new_m(), self._new_sm()
            saved = (self.ps.payload, self.ps.checksum_error)
            # the clone is re-parsed with the packet's own intrinsic metadata (its
            # ingress_port), then starts egress with all metadata zeroed
            payload = self._run_parser(data, c_hdr, self._new_m(), sm.copy())
            self.ps.payload, self.ps.checksum_error = saved
            if callable(fl):
                fl(meta, sm, c_meta, c_sm)
            c_sm.f_instance_type = INGRESS_CLONE
            c_sm.f_egress_rid = rid
            jobs.append(EgressJob(eport, c_hdr, c_meta, c_sm, payload, len(data), now_us))

    # -- egress ------------------------------------------------------------------------
    def _egress_job(self, job: EgressJob, enq_ts, enq_qdepth, deq_td, deq_qdepth, now_us, jobs) -> list[tuple[int, bytes]]:
        try:
            return self._egress_pass(job, enq_ts, enq_qdepth, deq_td, deq_qdepth, now_us, jobs)
        except AssertionFailed:  # BMv2 aborts; p4emu drops the packet (logged already)
            return []

    def _egress_pass(self, job: EgressJob, enq_ts, enq_qdepth, deq_td, deq_qdepth, now_us, jobs):
        ps = self.ps
        hdr, meta, sm = job.hdr, job.meta, job.sm
        sm.f_egress_port = job.port
        sm.f_egress_spec = 0  # drop_port + 1 wraps in bit<9>
        sm.f_packet_length = job.pkt_length
        sm.f_egress_global_timestamp = now_us
        sm.f_enq_timestamp = enq_ts & 0xFFFFFFFF
        sm.f_enq_qdepth = enq_qdepth
        sm.f_deq_timedelta = deq_td & 0xFFFFFFFF
        sm.f_deq_qdepth = deq_qdepth
        ps.reset(sm, job.length, now_us)
        ps.payload = job.payload
        try:
            self._egress(hdr, meta, sm)
        except ExitSignal:
            pass
        clone, recirc, trunc = ps.clone, ps.recirculate, ps.truncate
        if recirc is None:
            recirc = job.recirculate
        if job.truncate is not None:
            trunc = job.truncate if trunc is None else min(trunc, job.truncate)
        if clone is not None:  # any pending clone request at the end of egress
            _, session, fl = clone
            for rid, eport in self.state.pre.clone_targets(session):
                c_meta, c_sm = self._new_m(), self._new_sm()
                if callable(fl):
                    fl(meta, sm, c_meta, c_sm)
                c_sm.f_instance_type = EGRESS_CLONE
                c_sm.f_egress_rid = rid
                c_job = EgressJob(eport, hdr.copy(), c_meta, c_sm, job.payload, job.length, now_us)
                # BMv2 hands the clone the original's length register, which includes
                # the setValid/setInvalid adjustments of ingress and of this egress
                c_job.pkt_length = (job.pkt_length + ps.len_delta) & 0xFFFFFFFF
                jobs.append(c_job)
        if sm.f_egress_spec == DROP_PORT:
            return []
        ps.payload = job.payload
        self._compute(hdr, meta)
        out = bytearray()
        self._deparse(out, hdr)
        out += job.payload
        if recirc is not None:
            data = bytes(out)
            more: deque = deque()
            new_jobs: list[EgressJob] = []
            self._ingress_pass(0, data, RECIRC, recirc, meta, sm, now_us, new_jobs, more)
            while more:
                p, d, it, fl, om, osm = more.popleft()
                self._ingress_pass(p, d, it, fl, om, osm, now_us, new_jobs, more)
            jobs.extend(new_jobs)
            return []
        if trunc is not None and trunc < len(out):
            del out[trunc:]
        return [(job.port, bytes(out))]
