"""Fabric checks (root + Mininet): a fat-tree k=4 running the student's work, measured as
the project's integration tests measure the reference."""

from __future__ import annotations

import time

from mrclab.control.command import controller_args
from mrclab.endpoint.report import ReceiverReport, SenderReport
from mrclab.exercises.labrun import blast, core_packets_during, exercise_lab, transfer
from mrclab.exercises.workspace import Workspace
from mrclab.lab.counters import switch_counters
from mrclab.lab.lab import Lab
from mrclab.lab.transfers import once_delivering
from mrclab.mininet.traffic import BackgroundPing

BLAST_PACKETS, BLAST_PPS = 2000, 1000  # well within what p4emu's fabric forwards whole
CORE_SHARE = 0.10  # ev spraying gives each of 4 cores ~25 %; ECMP gives 3 of them 0
TRIM_THRESHOLD, ECN_THRESHOLD = 8, 4
# the incast bottleneck must be the shaped port, not the switches' own speed: BMv2 shapes
# packets (5 Mb/s = 417 packets/s), p4emu bits (a trimmed header costs its own bytes)
BOTTLENECK_BPS = {"p4emu": 20_000_000, "bmv2": 5_000_000}
# 10 s of pings: the loss a correct policy costs (~5 pings) stays well under the 5 % limit
PING_COUNT, PING_INTERVAL, MAX_PING_LOSS = 200, 0.05, 5.0


def spray_uses_every_core(ws: Workspace, target: str) -> tuple[bool, str]:
    with exercise_lab(ws, target, spray="ev") as lab:
        moved = core_packets_during(lab, lambda: blast(
            lab, "h1", "h16", "--count", str(BLAST_PACKETS), "--ev", "cycle", "--evs", "256",
            "--payload", "200", "--rate", str(BLAST_PPS)))
    low = min(moved.values())
    detail = (f"one 5-tuple h1->h16, {BLAST_PACKETS} packets over 256 EVs; per core: "
              + ", ".join(f"{c}={n}" for c, n in sorted(moved.items())))
    return low >= CORE_SHARE * BLAST_PACKETS, detail


def _incast(ws: Workspace, target: str) -> tuple[ReceiverReport, list[SenderReport], int]:
    """4-to-1 incast through a rate-limited edge port: (receiver, senders, trimmed there)."""
    args = controller_args(trim_threshold=TRIM_THRESHOLD, ecn_threshold=ECN_THRESHOLD)
    with exercise_lab(ws, target, spray="ev", controller_args=args) as lab:
        nic = lab.fabric.hosts["h16"].nics[0]
        lab.set_port_rate(nic.switch, nic.switch_port, BOTTLENECK_BPS[lab.target])
        before = _trimmed(lab, nic.switch, nic.switch_port)
        # a 200 ms RTO floor, as the incast experiment uses: with 20 Python switches and 5
        # endpoints on 2 cores, a CPU stall can outlast the CLI's 100 ms floor and fire a
        # timeout that says nothing about the student's trimming
        received, sent = transfer(lab, ["h1", "h5", "h9", "h13"], "h16", "512K",
                                  send_args=("--min-rto", "0.2"))
        return received, sent, _trimmed(lab, nic.switch, nic.switch_port) - before


def _trimmed(lab: Lab, switch: str, port: int) -> int:
    return switch_counters(lab, switch).port(port).trimmed


def trim_incast_without_timeouts(ws: Workspace, target: str) -> tuple[bool, str]:
    received, sent, trimmed = _incast(ws, target)
    timeouts = [s.counters.timeouts for s in sent]
    # a spurious timeout (all its packets arrived after all) is the emulation's: a switch
    # process held them past the timer; a loss timeout is what trimming must prevent
    lost = [s.counters.timeouts - s.counters.timeouts_spurious for s in sent]
    detail = (f"4x512K into one port: {received.stats.messages_ok}/4 messages, switch "
              f"trimmed {trimmed}, receiver NACKed {received.stats.trimmed}, "
              f"timeouts per sender {timeouts} ({sum(lost)} on losses)")
    ok = received.stats.messages_ok == 4 and trimmed > 0 and not any(lost)
    return ok, detail


def signals_reach_the_sender(ws: Workspace, target: str) -> tuple[bool, str]:
    received, sent, _ = _incast(ws, target)
    qmax = max(s.counters.max_qmax for s in sent)
    echoes = sum(s.counters.ecn_echoes for s in sent)
    detail = (f"4x512K into one port: receiver saw {received.stats.ecn_marked} CE-marked "
              f"packets, senders {echoes} ECN echoes, largest qmax echoed {qmax} "
              f"(ECN threshold {ECN_THRESHOLD})")
    ok = received.stats.messages_ok == 4 and received.stats.ecn_marked > 0 \
        and qmax >= ECN_THRESHOLD
    return ok, detail


def _core_on_path(lab: Lab, src: str, dst_ip: str) -> tuple[str, str]:
    """The core an ICMP flow src->dst crosses, and its link's far end in dst's pod."""
    moved = core_packets_during(lab, lambda: lab.net.net.get(src).cmd(
        f"ping -n -q -c 20 -i 0.01 {dst_ip}"))
    core = max(moved, key=moved.get)
    dst_edge = next(n.switch for h in lab.fabric.hosts.values() for n in h.nics
                    if n.ip == dst_ip)
    aggs = {p.node for p in lab.fabric.switches[dst_edge].ports.values()}
    agg = next(p.node for p in lab.fabric.switches[core].ports.values() if p.node in aggs)
    return core, agg


def failover_ping_loss(ws: Workspace, target: str) -> tuple[bool, str]:
    return ping_loss_across_a_cut(ws, target, ["--exercise-policy", str(ws.path("policy.py"))])


def ping_loss_across_a_cut(ws: Workspace, target: str,
                           controller_args: list[str]) -> tuple[bool, str]:
    """Pings h1->h16 across a core link cut (gray) 1 s in, the controller running the
    student's code (`mrclab.exercises.student_controller` with `controller_args`): < 5 % lost."""
    with exercise_lab(ws, target, controller_module="mrclab.exercises.student_controller",
                      controller_args=controller_args) as lab:
        dst_ip = lab.fabric.hosts["h16"].nics[0].ip
        core, agg = _core_on_path(lab, "h1", dst_ip)
        ping = BackgroundPing(lab.net.net.get("h1"), dst_ip, count=PING_COUNT,
                              interval=PING_INTERVAL)
        time.sleep(1.0)
        lab.set_link(core, agg, up=False)
        result = ping.result()
    detail = (f"ping h1->h16 every {PING_INTERVAL * 1000:.0f} ms, link {core}-{agg} cut after "
              f"1 s: {result.lost}/{result.sent} lost ({result.loss_pct:.1f} %)")
    return result.loss_pct < MAX_PING_LOSS, detail


def endpoint_transfer_with_failure(ws: Workspace, target: str) -> tuple[bool, str]:
    with exercise_lab(ws, target, spray="ev") as lab:
        dst_ip = lab.fabric.hosts["h16"].nics[0].ip
        core, agg = _core_on_path(lab, "h1", dst_ip)
        # cut once 1,000 of the ~6,000 packets have reached h16: mid-transfer on any machine
        cut = once_delivering(lab, "h16", 1000, lambda: lab.set_link(core, agg, up=False))
        received, (sent,) = transfer(lab, ["h1"], "h16", "8M", policy=ws.path("recovery.py"),
                                     during=cut)
    done = sent.completion_time_s
    intact = received.stats.messages_ok == 1
    delivered = f"intact in {done:.1f} s" if intact and done \
        else f"NOT delivered ({sent.error or 'incomplete'})"
    retired = len(sent.pool.evs_retired)
    detail = (f"8 MB h1->h16, {core}-{agg} cut mid-transfer: {delivered}, EVs retired "
              f"{retired}, timeouts {sent.counters.timeouts}")
    ok = intact and retired > 0 and sent.counters.timeouts <= 4
    return ok, detail
