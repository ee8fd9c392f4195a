"""Bits/s as BMv2 packets/s: BMv2 shapes each queue in packets, not bits."""

from __future__ import annotations

from mrclab.mininet.mtu import DEFAULT_MTU

# An MRC header alone (a trimmed packet, an ACK or NACK) as an IP packet: IPv4, UDP and
# the 40-byte MRC header (mrclab/endpoint/wire.py; the topology layer sits below the endpoint's,
# a unit test holds the two equal)
HEADER_PACKET_BYTES = 20 + 8 + 40


def bps_to_pps(bps: int, mtu: int = DEFAULT_MTU) -> int:
    """The packet rate BMv2 needs to carry `bps` of MTU-sized frames (at least 1)."""
    return max(1, round(bps / (8 * mtu)))
