"""`mrclab trace PCAP...`: what MRC packets a capture holds, per packet or per flow.

Reads pcap/pcapng files with Scapy and dissects them with `mrclab.endpoint.layers.MRC` (UDP 4793).
Per packet: type, EV, connection, PSN, cumulative ack and SACKed PSNs, flags, IPv4 ECN and
qmax. Per flow (sender, receiver, conn; ACK/NACK/PROBE_REPLY count toward the flow they
answer): packets by type, EVs used, PSN range, retransmits, trims, NACKs, CE marks and echoes.

    mrclab trace build/pcap/s1-eth1_out.pcap          # one line per MRC packet
    mrclab trace --flows --json flows.json h1.pcap    # one row per flow (+ JSON)
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from scapy.error import Scapy_Exception
from scapy.layers.inet import IP, UDP
from scapy.packet import Packet
from scapy.utils import PcapReader

from mrclab.endpoint.layers import MRC
from mrclab.endpoint.wire import Flag, MsgType, sacked_psns
from p4emu.cmdline import run_main

ECN_NAMES = {0: "not-ECT", 1: "ECT1", 2: "ECT0", 3: "CE"}
# Answers travel receiver -> sender; they belong to the flow of the packets they answer.
_ANSWERS = {MsgType.ACK, MsgType.NACK, MsgType.PROBE_REPLY}


class TraceError(ValueError):
    """A capture that cannot be read; the message names the file."""


@dataclass(frozen=True)
class MrcRecord:
    """One MRC packet of a capture."""

    file: str
    index: int  # position in its file, from 1 (as Wireshark numbers frames)
    time: float
    src: str
    dst: str
    ecn: int
    mrc: MRC

    @property
    def type(self) -> MsgType | int:
        """The message type; a plain int for types v1 does not define."""
        try:
            return MsgType(self.mrc.type)
        except ValueError:
            return int(self.mrc.type)

    def has(self, flag: Flag) -> bool:
        return bool(int(self.mrc.flags) & flag)

    def flow_key(self) -> tuple[str, str, int]:
        """(sender, receiver, conn) of the transfer this packet belongs to."""
        if self.type in _ANSWERS:
            return self.dst, self.src, int(self.mrc.conn)
        return self.src, self.dst, int(self.mrc.conn)


def read_mrc(path: Path) -> Iterator[MrcRecord]:
    """The MRC packets of one pcap or pcapng file, in file order (others are skipped)."""
    try:
        reader = PcapReader(str(path))
    except (OSError, Scapy_Exception) as exc:
        raise TraceError(f"cannot read {path}: {getattr(exc, 'strerror', None) or exc}") from None
    with reader:
        for index, pkt in enumerate(reader, 1):
            record = _record(str(path), index, pkt)
            if record is not None:
                yield record


def _record(file: str, index: int, pkt: Packet) -> MrcRecord | None:
    if not pkt.haslayer(MRC) or not pkt.haslayer(IP) or not pkt.haslayer(UDP):
        return None
    ip = pkt[IP]
    return MrcRecord(file, index, float(pkt.time), ip.src, ip.dst, ip.tos & 3, pkt[MRC])


def describe(rec: MrcRecord, t0: float) -> str:
    """One line for one packet."""
    m = rec.mrc
    parts = [f"{rec.index:>6} {rec.time - t0:10.6f} {rec.src} > {rec.dst}",
             f"{m.sprintf('%type%'):<11}", f"ev={m.ev:#06x}", f"conn={m.conn:#x}",
             f"psn={m.psn}"]
    if rec.type in (MsgType.ACK, MsgType.NACK):
        parts.append(f"ack={m.ack}")
        if rec.type == MsgType.ACK and m.offset:
            parts.append(f"sack={_ranges(sacked_psns(m.ack, m.offset))}")
    elif rec.type == MsgType.DATA:
        parts.append(f"off={m.offset} len={m.length}")
    if m.route:
        labels = [m.route >> shift & 0xFF for shift in range(56, -8, -8)]
        parts.append("route=" + ",".join(str(x) for x in labels if x))
    if int(m.flags):
        parts.append(f"flags={m.flags}")
    parts.append(f"ecn={ECN_NAMES[rec.ecn]}")
    if m.qmax:
        parts.append(f"qmax={m.qmax}")
    return " ".join(parts)


def _ranges(psns: list[int]) -> str:
    """[5, 6, 7, 9] -> '5-7,9'."""
    runs: list[list[int]] = []  # [first, last] of each run of consecutive PSNs
    for psn in psns:
        if runs and psn == runs[-1][1] + 1:
            runs[-1][1] = psn
        else:
            runs.append([psn, psn])
    return ",".join(str(a) if a == b else f"{a}-{b}" for a, b in runs)


@dataclass
class FlowSummary:
    """What one transfer's packets in a capture add up to."""

    sender: str
    receiver: str
    conn: int
    first: float = 0.0
    last: float = 0.0
    types: Counter = field(default_factory=Counter)
    evs: Counter = field(default_factory=Counter)  # DATA packets per EV
    psns: set[int] = field(default_factory=set)
    payload_bytes: int = 0  # DATA payload as sent (`length`), trimmed or not
    retransmits: int = 0
    trimmed: int = 0
    ce_marked: int = 0  # DATA packets that arrived with IPv4 ECN = CE
    ecn_echoes: int = 0  # ACK/NACKs with ECN_ECHO
    nacked: set[int] = field(default_factory=set)
    qmax: int = 0

    def add(self, rec: MrcRecord) -> None:
        m = rec.mrc
        if not self.types:
            self.first = rec.time
        self.last = max(self.last, rec.time)
        self.types[rec.type.name if isinstance(rec.type, MsgType) else str(rec.type)] += 1
        self.qmax = max(self.qmax, int(m.qmax))
        if rec.type == MsgType.DATA:
            self.evs[int(m.ev)] += 1
            self.psns.add(int(m.psn))
            self.payload_bytes += int(m.length)
            self.retransmits += rec.has(Flag.RETX)
            self.trimmed += rec.has(Flag.TRIMMED)
            self.ce_marked += rec.ecn == 3
        elif rec.type in (MsgType.ACK, MsgType.NACK):
            self.ecn_echoes += rec.has(Flag.ECN_ECHO)
            if rec.type == MsgType.NACK:
                self.nacked.add(int(m.psn))

    def as_dict(self) -> dict[str, object]:
        return {
            "sender": self.sender, "receiver": self.receiver, "conn": self.conn,
            "seconds": round(self.last - self.first, 6), "packets": dict(self.types),
            "evs_used": len(self.evs), "data_per_ev_max": max(self.evs.values(), default=0),
            "psn_min": min(self.psns, default=None), "psn_max": max(self.psns, default=None),
            "distinct_psns": len(self.psns), "payload_bytes": self.payload_bytes,
            "retransmits": self.retransmits, "trimmed": self.trimmed,
            "ce_marked": self.ce_marked, "ecn_echoes": self.ecn_echoes,
            "nacks": self.types.get("NACK", 0), "nacked_psns": len(self.nacked),
            "qmax": self.qmax,
        }


def summarize(records: Iterator[MrcRecord]) -> list[FlowSummary]:
    """Per-flow summaries, in order of each flow's first packet."""
    flows: dict[tuple[str, str, int], FlowSummary] = {}
    for rec in records:
        key = rec.flow_key()
        if key not in flows:
            flows[key] = FlowSummary(*key)
        flows[key].add(rec)
    return list(flows.values())


def flow_line(flow: FlowSummary) -> str:
    d = flow.as_dict()
    packets = " ".join(f"{k}={v}" for k, v in sorted(d["packets"].items()))
    psns = f"{d['psn_min']}..{d['psn_max']}" if d["distinct_psns"] else "-"
    return (f"{flow.sender} > {flow.receiver} conn={flow.conn:#x} {d['seconds']:.3f}s "
            f"[{packets}] evs={d['evs_used']} psn={psns} ({d['distinct_psns']} distinct) "
            f"retx={d['retransmits']} trimmed={d['trimmed']} nacks={d['nacks']} "
            f"ce={d['ce_marked']} ecn_echo={d['ecn_echoes']} qmax={d['qmax']}")


def run(args: argparse.Namespace) -> int:
    """Print the trace; TraceError (one line naming the file) for unreadable captures."""
    missing = [str(p) for p in args.pcaps if not p.is_file()]
    if missing:
        raise TraceError(f"capture {missing[0]} not found")

    def records() -> Iterator[MrcRecord]:
        for path in args.pcaps:
            if len(args.pcaps) > 1 and not args.flows:
                print(f"== {path}")
            t0 = None
            for rec in read_mrc(path):
                t0 = rec.time if t0 is None else t0
                if not args.flows:
                    print(describe(rec, t0))
                yield rec

    flows = summarize(records())
    if args.flows:
        for flow in flows:
            print(flow_line(flow))
    if args.json:
        args.json.write_text(json.dumps([f.as_dict() for f in flows], indent=2) + "\n")
    if not flows:
        print("no MRC packets (UDP port 4793) in " + ", ".join(map(str, args.pcaps)))
    return 0


def main(args: argparse.Namespace) -> int:
    """`mrclab trace`: run, with unreadable captures as one line on stderr (exit 2); output
    cut short by its reader (`mrclab trace big.pcap | head`) is a success."""
    return run_main("mrclab trace", lambda: run(args), {TraceError: 2}, broken_pipe=0)
