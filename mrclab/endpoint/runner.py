"""Socket loops that drive the sans-I/O core on real interfaces (Mininet hosts, netns)."""

from __future__ import annotations

import hashlib
import logging
import select
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from mrclab.endpoint.core.ev_pool import EvStatus
from mrclab.endpoint.core.receiver import Message, MrcReceiver, ReceiverConfig
from mrclab.endpoint.core.sender import MrcSender, SenderConfig
from mrclab.endpoint.kernel_routes import Plane
from mrclab.endpoint.netio import ECT0, FrameAddress, FrameBuilder, parse_frame
from mrclab.endpoint.rawsocket import PortGuard, RawLink
from mrclab.endpoint.report import (
    EvPoolReport,
    PlaneReport,
    ReceiverReport,
    Retirement,
    RttReport,
    SenderCounters,
    SenderReport,
    SenderSettings,
)
from mrclab.endpoint.wire import TO_RECEIVER, TO_SENDER, MalformedPacket, MsgType, payload_fit

log = logging.getLogger(__name__)

PROGRESS_EVERY = 1.0
# How long a receiver that has every message keeps answering after the last packet: longer
# than a sender can go between two tries (its RTO is at most a third of its idle timeout,
# 5 s by default), so a sender whose last ACKs were lost (on a plane that just failed) is
# answered when it resends. At 1 s, planes-experiment senders with a 1.67 s RTO found their
# receiver gone and gave up with the whole message delivered.
DEFAULT_LINGER = 5.0


def mss_for(planes: list[Plane], requested: int | None) -> int:
    """Payload bytes per packet that fit every plane's MTU."""
    fit = payload_fit(min(p.mtu for p in planes))
    if requested is None:
        return fit
    if not 1 <= requested <= fit:
        raise ValueError(f"--mss {requested} does not fit the MTU (max {fit})")
    return requested


def sender_report(sender: MrcSender, planes: list[Plane], elapsed: float,
                  sha256: str) -> SenderReport:
    s, pool, cfg = sender.stats, sender.pool, sender.cfg
    done_t = (sender.finish_time - sender.start_time) if sender.finish_time else None
    return SenderReport(
        ok=sender.done, error=sender.error or "", bytes=sender.length, sha256=sha256,
        conn=sender.conn,
        planes=[PlaneReport(iface=p.iface, src=p.src_ip, dst=p.dst_ip) for p in planes],
        packets=sender.npkts,
        completion_time_s=round(done_t, 6) if done_t is not None else None,
        elapsed_s=round(elapsed, 6),
        goodput_mbps=round(sender.length * 8 / done_t / 1e6, 3) if done_t else 0.0,
        cwnd=round(sender.cc.cwnd, 2),
        config=SenderSettings(mss=cfg.mss, min_rto_ms=round(cfg.min_rto * 1e3, 6),
                              init_cwnd=cfg.init_cwnd, evs_per_plane=cfg.evs_per_plane),
        counters=SenderCounters(
            data_packets_sent=s.data_sent, retransmits=s.retransmits,
            nack_retransmits=s.nack_retransmits, loss_retransmits=s.loss_retransmits,
            timeouts=s.timeouts, timeouts_undone=s.timeouts_undone,
            timeouts_spurious=s.timeouts_spurious, tail_probes=s.tail_probes,
            nacks=s.nacks, acks=s.acks,
            ecn_echoes=s.ecn_echoes, stale_acks=s.stale_acks, ignored_packets=s.ignored,
            max_qmax=s.max_qmax, probes_sent=s.probes_sent, probe_replies=s.probe_replies,
            recovery_time_s=round(s.max_loss_recovery, 6),
            spurious_retransmits=s.spurious_retransmits,
            losses_not_blamed=s.losses_not_blamed),
        pool=EvPoolReport(
            evs_used=sorted(ev for _plane, ev in pool.used),
            evs_retired=[Retirement(time=round(r.time - sender.start_time, 6), plane=r.plane,
                                    ev=r.ev) for r in pool.retirements],
            evs_down_at_end=sorted(st.ev for st in pool.retired_now()),
            evs_reinstated=pool.reinstatements, evs_unretired=s.evs_unretired),
        rtt=RttReport(srtt_ms=round(sender.rtt.srtt * 1e3, 3),
                      min_rtt_ms=round(sender.rtt.min_rtt * 1e3, 3),
                      rtt_p99_ms=round(sender.rtt_hi.value * 1e3, 3),
                      queue_delay_counts=list(sender.queue_delay.counts),
                      reorder_window_ms=round(sender.reorder.extra * 1e3, 3),
                      rto_ms=round(sender.loss.rto() * 1e3, 3)))


def run_sender(planes: list[Plane], data: bytes, cfg: SenderConfig, timeout: float,
               progress: Callable[[str], None] | None = None,
               sender_class: Callable[..., MrcSender] = MrcSender) -> SenderReport:
    """Send `data` to the receiver behind `planes`; returns when done, failed or timed out.
    `sender_class`: makes the core to drive (a subclass that records more, for instance)."""
    links: dict[str, RawLink] = {}
    guard = PortGuard()
    try:
        for p in planes:
            if p.iface not in links:
                links[p.iface] = RawLink(p.iface, accept=TO_SENDER)
        builders = [FrameBuilder(FrameAddress.of(p.src_mac, p.next_hop_mac, p.src_ip, p.dst_ip))
                    for p in planes]
        # A reply belongs to the plane of the interface it came in on and the peer it came from.
        plane_of = {(p.iface, b.addr.dst_ip): i for i, (p, b) in enumerate(zip(planes, builders,
                                                                                 strict=True))}
        plane_link = [links[p.iface] for p in planes]
        start = time.monotonic()
        sender = sender_class(data, len(planes), cfg, now=start)
        _sender_loop(sender, links, builders, plane_of, plane_link, start, timeout, progress)
        elapsed = time.monotonic() - start
        if not sender.done and not sender.failed:
            sender.failed = True
            sender.error = f"transfer incomplete after --timeout {timeout:g} s"
        report = sender_report(sender, planes, elapsed, hashlib.sha256(data).hexdigest())
        report.counters.local_send_drops = sum(link.send_drops for link in links.values())
        return report
    finally:
        for link in links.values():
            link.close()
        guard.close()


def _sender_loop(sender: MrcSender, links: dict[str, RawLink], builders: list[FrameBuilder],
                 plane_of: dict[tuple[str, bytes], int], plane_link: list[RawLink], start: float,
                 timeout: float, progress: Callable[[str], None] | None) -> None:
    socks = list(links.values())
    next_report = start + PROGRESS_EVERY
    wait = 0.0
    while not (sender.done or sender.failed):
        # Read before every poll: on a loaded host this process may get the CPU back long
        # after a timer was due, and the ACKs that came in meanwhile must be seen before the
        # timers judge what is lost.
        ready, _, _ = select.select(socks, [], [], wait)
        now = time.monotonic()
        _read_feedback(sender, ready, plane_of, now)
        if now - start >= timeout or sender.done or sender.failed:
            return
        for out in sender.poll(now):
            tos = ECT0 if out.header.type == MsgType.DATA else 0
            plane_link[out.plane].send(builders[out.plane].build(out.header, out.payload, tos))
        if progress is not None and now >= next_report:
            next_report = now + PROGRESS_EVERY
            progress(_progress_line(sender, now))
        deadline = sender.next_deadline()
        wait = 0.05 if deadline is None else min(max(deadline - now, 0.0), 0.05)


def _read_feedback(sender: MrcSender, ready: list[RawLink],
                   plane_of: dict[tuple[str, bytes], int], now: float) -> None:
    for link in ready:
        for frame in link.recv_batch():
            try:
                parsed = parse_frame(frame)
            except MalformedPacket:
                sender.stats.ignored += 1
                continue
            plane = plane_of.get((link.iface, parsed.addr.src_ip))
            if plane is None:
                sender.stats.ignored += 1
                continue
            sender.on_packet(plane, parsed.header, now)


def _progress_line(sender: MrcSender, now: float) -> str:
    acked = sender.board.delivered_count * 100 / sender.npkts
    down = sum(1 for st in sender.pool.all() if st.status in (EvStatus.FAILED,
                                                              EvStatus.PROBING))
    return (f"[{now - sender.start_time:6.1f}s] acked {acked:5.1f}%  cwnd {sender.cc.cwnd:6.1f}"
            f"  srtt {sender.rtt.srtt * 1e3:7.3f} ms  retx {sender.stats.retransmits}"
            f"  nacks {sender.stats.nacks}  ecn {sender.stats.ecn_echoes}  EVs down {down}")


@dataclass(slots=True)
class ReceiveOutcome:
    messages: list[Message]
    report: ReceiverReport


def run_receiver(ifaces: list[str], on_message: Callable[[Message], None], count: int | None,
                 linger: float = DEFAULT_LINGER, cfg: ReceiverConfig | None = None,
                 stop: Callable[[], bool] = lambda: False) -> ReceiveOutcome:
    """Serve MRC senders on `ifaces` until `count` messages arrived (None: until `stop()`).

    After the last message the receiver keeps answering for `linger` seconds of silence, so
    a sender whose final ACKs were lost still hears them again."""
    receiver = MrcReceiver(cfg)
    links = [RawLink(i, accept=TO_RECEIVER) for i in ifaces]
    guard = PortGuard()
    messages: list[Message] = []
    garbage = 0
    builders: dict[tuple[str, FrameAddress], FrameBuilder] = {}
    try:
        last_packet = time.monotonic()
        next_expire = last_packet + 1.0
        while not stop():
            now = time.monotonic()
            if count is not None and len(messages) >= count and now - last_packet >= linger:
                break
            ready, _, _ = select.select(links, [], [], 0.05)
            now = time.monotonic()
            for link in ready:
                for frame in link.recv_batch():
                    try:
                        parsed = parse_frame(frame)
                    except MalformedPacket:
                        garbage += 1
                        continue
                    last_packet = now
                    replies = receiver.on_packet(parsed.peer_ip, parsed.header, parsed.payload,
                                                 parsed.ce, now, link.iface)
                    if replies:
                        key = (link.iface, parsed.addr)
                        builder = builders.get(key)
                        if builder is None:
                            builder = builders[key] = FrameBuilder(parsed.addr.reversed())
                        for reply in replies:
                            link.send(builder.build(reply.header))
            for msg in receiver.take_messages():
                messages.append(msg)
                on_message(msg)
            if now >= next_expire:
                next_expire = now + 1.0
                receiver.expire(now)
                if len(builders) > 4096:
                    builders.clear()
    finally:
        for link in links:
            link.close()
        guard.close()
    report = ReceiverReport(stats=receiver.stats, garbage=garbage, messages=len(messages),
                            local_send_drops=sum(link.send_drops for link in links))
    return ReceiveOutcome(messages, report)


def write_message(msg: Message, out: Path | None) -> Path | None:
    """Write a verified message to `out` (a directory gets one file per connection)."""
    if out is None or not msg.ok:
        return None
    target = out / f"{msg.peer}-{msg.conn:08x}.bin" if out.is_dir() else out
    tmp = target.with_name(target.name + ".part")
    tmp.write_bytes(msg.data)
    tmp.replace(target)  # never leave a half-written file under the final name
    return target
