"""A small MRC capture built with Scapy: every message type and flag, ECN, SACK, noise."""

from __future__ import annotations

from pathlib import Path

from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import ARP, Ether
from scapy.packet import Packet, Raw
from scapy.utils import wrpcap

from mrclab.endpoint.layers import MRC

SENDER, RECEIVER, CONN = "10.0.0.1", "10.0.3.4", 0x2A
NOT_ECT, ECT0, CE = 0, 2, 3


def _frame(src: str, dst: str, tos: int, payload: bytes = b"", **mrc: int) -> Packet:
    return (Ether(src="02:00:00:00:00:01", dst="02:00:00:00:00:02")
            / IP(src=src, dst=dst, tos=tos) / UDP(sport=4793, dport=4793, chksum=0)
            / MRC(**mrc) / Raw(payload))


def sample_packets() -> list[Packet]:
    """One transfer of 4 packets (trim, NACK, retransmit, CE, SACK) plus noise."""
    fwd = dict(src=SENDER, dst=RECEIVER)
    back = dict(src=RECEIVER, dst=SENDER)
    pkts = [
        _frame(**fwd, tos=ECT0, type=3, conn=0, ev=0x10, psn=0, offset=4000, length=1000,
               reserved=0x11223344),                                     # PROBE (open)
        _frame(**back, tos=ECT0, type=4, conn=CONN, ev=0x10, reserved=0x11223344),
        _frame(**fwd, tos=ECT0, payload=bytes(1000), type=0, conn=CONN, ev=0x10, psn=0,
               offset=0, length=1000, ts=100),
        _frame(**fwd, tos=CE, type=0, flags=0x01, conn=CONN, ev=0x11, psn=1, offset=1000,
               length=1000, qmax=9, ts=110),                             # trimmed by a switch
        _frame(**fwd, tos=CE, payload=bytes(1000), type=0, conn=CONN, ev=0x12, psn=2,
               offset=2000, length=1000, qmax=7, ts=120),                 # CE-marked
        _frame(**back, tos=ECT0, type=1, flags=0x02, conn=CONN, ev=0x12, psn=2, ack=1,
               offset=0b1, qmax=7, ts=120),                               # ACK, SACK of PSN 2
        _frame(**back, tos=ECT0, type=2, flags=0x02, conn=CONN, ev=0x11, psn=1, ack=1,
               qmax=9, ts=110),                                           # NACK of the trim
        _frame(**fwd, tos=ECT0, payload=bytes(1000), type=0, flags=0x08, conn=CONN, ev=0x13,
               psn=1, offset=1000, length=1000, ts=130),                  # RETX
        _frame(**fwd, tos=ECT0, payload=bytes(1000), type=0, flags=0x04, conn=CONN, ev=0x10,
               psn=3, offset=3000, length=1000, ts=140, reserved=0xCAFEF00D,
               route=0x0304020000000000),                                 # LAST, source route
        _frame(**back, tos=NOT_ECT, type=1, conn=CONN, ev=0x10, psn=3, ack=4, ts=140),
        Ether() / IP(src=SENDER, dst="10.0.0.53") / UDP(sport=5000, dport=5001) / Raw(bytes(40)),
        Ether() / ARP(psrc=SENDER, pdst=RECEIVER),
    ]
    for i, pkt in enumerate(pkts):
        pkt.time = 1000.0 + i * 0.001
    return pkts


MRC_PACKETS = 10  # of sample_packets(); the last two are not MRC


def write_sample_pcap(path: Path) -> Path:
    wrpcap(str(path), sample_packets())
    return path
