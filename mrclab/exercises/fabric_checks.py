"""Fabric checks (root + Mininet): a fat-tree k=4 running the student's work, measured as
the project's integration tests measure the reference."""

from __future__ import annotations

import time

from mrclab.control.command import controller_args
from mrclab.endpoint.report import ReceiverReport, SenderReport
from mrclab.exercises.labrun import blast, core_packets_during, exercise_lab, transfer
from mrclab.exercises.worker import CheckFailed
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


# --- source routes -------------------------------------------------------------------------
SOURCE_SIZE = "2M"
SOURCE_FRAMES, SOURCE_CONN = 20, 0x5EC0
HOP_SHARE, OTHER_SHARE = 0.9, 0.1  # of the DATA packets sent: every hop, the other uplink


def _peers(lab: Lab, switch: str, role: str) -> list[str]:
    nodes = {p.node for p in lab.fabric.switches[switch].ports.values()}
    return sorted(n for n in nodes if n in lab.fabric.switches
                  and lab.fabric.switches[n].role == role)


def _port_to(lab: Lab, a: str, b: str) -> int:
    return next(port for port, peer in sorted(lab.fabric.switches[a].ports.items())
                if peer.node == b)


def source_hops(lab: Lab, src: str, dst: str) -> list[tuple[str, int]]:
    """(switch, egress port) of each hop of a path src -> dst in another pod, through the
    second aggregation switch and its second core (not the first ones a sorted table or a
    default hash would pick): the egress ports are the route's labels."""
    nic, dst_nic = lab.fabric.hosts[src].nics[0], lab.fabric.hosts[dst].nics[0]
    edge, dst_edge = nic.switch, dst_nic.switch
    agg = _peers(lab, edge, "agg")[1]
    core = _peers(lab, agg, "core")[1]
    dst_agg = next(a for a in _peers(lab, core, "agg") if dst_edge in _peers(lab, a, "edge"))
    return [(edge, _port_to(lab, edge, agg)), (agg, _port_to(lab, agg, core)),
            (core, _port_to(lab, core, dst_agg)), (dst_agg, _port_to(lab, dst_agg, dst_edge)),
            (dst_edge, dst_nic.switch_port)]


def route_word(labels: list[int]) -> int:
    return int.from_bytes(bytes(labels + [0] * (8 - len(labels))), "big")


def _tx(lab: Lab, watched: list[tuple[str, int]]) -> dict[tuple[str, int], int]:
    counters = {name: switch_counters(lab, name) for name in {sw for sw, _ in watched}}
    return {(sw, port): counters[sw].port(port).tx_packets for sw, port in watched}


class _PortCounts:
    """Packets the watched ports sent between marks, less the controller's link probes
    (their rate is measured over a quiet second first)."""

    def __init__(self, lab: Lab, watched: list[tuple[str, int]]) -> None:
        self.lab, self.watched = lab, watched
        first, t0 = _tx(lab, watched), time.monotonic()
        time.sleep(1.0)
        self.marks = {"start": (_tx(lab, watched), time.monotonic())}
        quiet_s = self.marks["start"][1] - t0
        self.probe_rate = {k: (self.marks["start"][0][k] - first[k]) / quiet_s
                           for k in watched}

    def mark(self, name: str) -> None:
        self.marks[name] = (_tx(self.lab, self.watched), time.monotonic())

    def between(self, a: str, b: str) -> dict[tuple[str, int], int]:
        (x, ta), (y, tb) = self.marks[a], self.marks[b]
        return {k: max(0, y[k] - x[k] - round(self.probe_rate[k] * (tb - ta)))
                for k in self.watched}


def _frames_along(lab: Lab, src: str, dst: str, route: int) -> list[bytes]:
    """SOURCE_FRAMES DATA frames with UDP checksums (which the endpoint never sets) sent
    src -> dst along `route`, as dst's first NIC received them."""
    import subprocess
    import sys

    nic, dst_nic = lab.fabric.hosts[src].nics[0], lab.fabric.hosts[dst].nics[0]
    tool = [sys.executable, "-m", "mrclab.exercises.frames"]
    capture = lab.net.net.get(dst).popen(
        [*tool, "capture", "--iface", lab.fabric.hosts[dst].interface(0), "--conn",
         str(SOURCE_CONN), "--count", str(SOURCE_FRAMES), "--timeout", "10"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        if "listening" not in (capture.stdout.readline() or ""):
            raise CheckFailed(f"the capture on {dst} did not start: "
                              f"{capture.stderr.read().strip()[-160:]}")
        lab.net.net.get(src).cmd(" ".join(
            [*tool, "send", "--iface", lab.fabric.hosts[src].interface(0), "--src-mac",
             nic.mac, "--dst-mac", dst_nic.mac, "--src", nic.ip, "--dst", dst_nic.ip,
             "--conn", str(SOURCE_CONN), "--count", str(SOURCE_FRAMES), "--route",
             f"{route:x}"]))
        out, _ = capture.communicate(timeout=20)
    finally:
        if capture.poll() is None:
            capture.kill()
            capture.wait()
    return [bytes.fromhex(line) for line in out.split() if line and line != "listening"]


def source_route_transfer(ws: Workspace, target: str) -> tuple[bool, str]:
    """A transfer h1 -> h16 along one source route in source mode, with the student's
    program: it arrives intact, every hop of the route carries it, the other uplink of
    h1's edge switch almost nothing; and frames with UDP checksums arrive along the same
    route with their checksum right and the route used up."""
    from mrclab.exercises.frames import udp_checksum_ok

    with exercise_lab(ws, target, spray="source") as lab:
        hops = source_hops(lab, "h1", "h16")
        labels = [port for _, port in hops]
        edge, agg = hops[0][0], hops[1][0]
        other = next(a for a in _peers(lab, edge, "agg") if a != agg)
        watched = [*hops, (edge, _port_to(lab, edge, other))]
        counts = _PortCounts(lab, watched)
        received, (sent,) = transfer(lab, ["h1"], "h16", SOURCE_SIZE,
                                     send_args=("--route", ",".join(map(str, labels))))
        time.sleep(0.5)
        counts.mark("end")
        frames = _frames_along(lab, "h1", "h16", route_word(labels))
    moved = counts.between("start", "end")
    packets = sent.counters.data_packets_sent
    intact = received.stats.messages_ok == 1
    short = [f"{sw}:{port}" for sw, port in hops if moved[(sw, port)] < HOP_SHARE * packets]
    stray = moved[watched[-1]]
    bad_sum = sum(not udp_checksum_ok(f) for f in frames)
    left = sum(f[70:78] != bytes(8) for f in frames)
    detail = (f"{SOURCE_SIZE} h1->h16 along route {','.join(map(str, labels))} via "
              f"{' '.join(sw for sw, _ in hops)}: "
              + ("intact" if intact else f"NOT delivered ({sent.error or 'incomplete'})")
              + f", {packets} DATA packets; per hop {[moved[h] for h in hops]}, {edge}'s "
              f"other uplink {stray}; {len(frames)}/{SOURCE_FRAMES} checksummed frames "
              f"arrived, {bad_sum} with a wrong UDP checksum, {left} with route left")
    ok = (intact and not short and stray < OTHER_SHARE * packets
          and len(frames) == SOURCE_FRAMES and not bad_sum and not left)
    return ok, detail


# --- congestion: three senders with the student's window into one port ----------------------
CONGESTION_SENDERS, CONGESTION_SIZE = ["h1", "h5", "h9"], "512K"
CONGESTION_TRIM, CONGESTION_ECN = 32, 4
MIN_JAIN = 0.8


def congestion_shares_a_port(ws: Workspace, target: str) -> tuple[bool, str]:
    """Three senders from three pods with the student's window into h16's rate-limited port
    (ECN at 4 packets, trims above 32): every message intact, no timeout for a lost
    packet, ECN echoes seen, every window cut below where it started, goodputs fair."""
    args = controller_args(trim_threshold=CONGESTION_TRIM, ecn_threshold=CONGESTION_ECN)
    with exercise_lab(ws, target, spray="ev", controller_args=args) as lab:
        nic = lab.fabric.hosts["h16"].nics[0]
        lab.set_port_rate(nic.switch, nic.switch_port, BOTTLENECK_BPS[lab.target])
        before = _trimmed(lab, nic.switch, nic.switch_port)
        received, sent = transfer(lab, CONGESTION_SENDERS, "h16", CONGESTION_SIZE,
                                  window=ws.path("window.py"), send_args=("--min-rto", "0.2"))
        trimmed = _trimmed(lab, nic.switch, nic.switch_port) - before
    lost = [s.counters.timeouts - s.counters.timeouts_spurious for s in sent]
    goodput = [s.goodput_mbps for s in sent]
    squares = sum(g * g for g in goodput)
    jain = sum(goodput) ** 2 / (len(goodput) * squares) if squares else 0.0
    echoes = sum(s.counters.ecn_echoes for s in sent)
    cut = all(0 < s.cwnd < s.config.init_cwnd for s in sent)
    detail = (f"3x{CONGESTION_SIZE} into h16's port (ECN at {CONGESTION_ECN}, trims above "
              f"{CONGESTION_TRIM}): {received.stats.messages_ok}/3 messages, goodputs "
              + ", ".join(f"{g:.1f}" for g in goodput) + f" Mb/s (Jain {jain:.2f}, >= "
              f"{MIN_JAIN}), {echoes} ECN echoes, windows at the end "
              + ", ".join(f"{s.cwnd:.1f}" for s in sent)
              + f" (first {sent[0].config.init_cwnd:g}), {trimmed} trimmed, timeouts on "
              f"losses {lost}")
    ok = (received.stats.messages_ok == len(CONGESTION_SENDERS) and not any(lost)
          and echoes > 0 and cut and jain >= MIN_JAIN)
    return ok, detail


# --- planes: a transfer over two planes, one failing ----------------------------------------
PLANES_SPEC = "multiplane:planes=2,base=leafspine:leaves=2,spines=2,hosts=2"
PLANES_SIZE = "8M"
PLANE_SHARE, DEAD_PLANE_SHARE = 0.3, 0.05
DEAD_PLANE_FLOOR = 20  # packets: the pool's probes of retired EVs, and a few resends
SETTLE_S = 0.5  # after the cut, before plane 1 must be left: the sender finds the loss


def _plane_uplinks(lab: Lab, host: str) -> dict[int, list[tuple[str, int]]]:
    """Per plane, the (leaf, port) uplinks of `host`'s leaf switch on that plane."""
    out: dict[int, list[tuple[str, int]]] = {}
    for nic in lab.fabric.hosts[host].nics:
        leaf = nic.switch
        out[nic.plane] = [(leaf, _port_to(lab, leaf, spine))
                          for spine in _peers(lab, leaf, "spine")]
    return out


def _per_plane(uplinks: dict[int, list[tuple[str, int]]], counts: dict) -> dict[int, int]:
    return {plane: sum(counts[k] for k in ports) for plane, ports in uplinks.items()}


def planes_transfer_with_plane_failure(ws: Workspace, target: str) -> tuple[bool, str]:
    """8 MB h1 -> h3 over a two-plane leaf-spine with the student's plane rules; every link
    of plane 1 is cut once 1000 packets have arrived: both planes carry a fair share before,
    plane 1 next to nothing after, and the message arrives intact."""
    from mrclab.lab.transfers import once_delivering

    with exercise_lab(ws, target, spec=PLANES_SPEC, spray="ev") as lab:
        uplinks = _plane_uplinks(lab, "h1")
        watched = [k for ports in uplinks.values() for k in ports]
        dead = [(lk.a, lk.b) for lk in lab.fabric.fabric_links() if lk.a.startswith("p1")]
        counts = _PortCounts(lab, watched)

        def fail_plane_1() -> None:
            counts.mark("cut")
            for a, b in dead:
                lab.set_link(a, b, up=False)
            time.sleep(SETTLE_S)
            counts.mark("settled")

        cut = once_delivering(lab, "h3", 1000, fail_plane_1)
        received, (sent,) = transfer(lab, ["h1"], "h3", PLANES_SIZE,
                                     planes=ws.path("planes.py"), during=cut)
        counts.mark("end")
    if "settled" not in counts.marks:
        raise CheckFailed("the transfer ended before plane 1 was cut")
    before = _per_plane(uplinks, counts.between("start", "cut"))
    finding = _per_plane(uplinks, counts.between("cut", "settled"))
    after = _per_plane(uplinks, counts.between("settled", "end"))
    intact = received.stats.messages_ok == 1
    retired = [r for r in sent.pool.evs_retired if r.plane == 1]
    detail = (f"{PLANES_SIZE} h1->h3 over 2 planes, every plane-1 link cut after 1000 "
              f"packets: " + ("intact" if intact else f"NOT delivered ({sent.error or 'incomplete'})")
              + f"; packets up h1's leaves per plane before the cut {[before[0], before[1]]}, "
              f"in the {SETTLE_S:g} s after it {[finding[0], finding[1]]}, from then on "
              f"{[after[0], after[1]]}; {len(retired)} plane-1 EVs retired, "
              f"{sent.counters.timeouts} timeouts")
    total = sum(before.values())
    ok = (intact and total > 0 and min(before.values()) >= PLANE_SHARE * total
          and after[1] <= max(DEAD_PLANE_FLOOR, DEAD_PLANE_SHARE * after[0]))
    return ok, detail
