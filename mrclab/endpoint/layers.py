"""The MRC-lite v1 header as a Scapy layer: the one declaration of the wire format.

Bound to UDP port 4793 in both directions, so `sniff()`/`rdpcap()` dissect MRC and show every
field by name::

    >>> from mrclab.endpoint.layers import MRC
    >>> rdpcap("capture.pcap")[0][MRC].show()

Tools (`blast`, `mrclab trace`) build and dissect packets with it. The send/recv data path
uses `mrclab.endpoint.wire.MrcHeader`, a struct codec that tests hold to this layer, and
`mrclab/p4src/headers.p4`'s `mrc_t` is tested against it too (tests/unit/endpoint/test_wire_layers.py).
"""

from __future__ import annotations

from scapy.fields import (
    BitEnumField,
    FlagsField,
    IntField,
    ShortField,
    XIntField,
    XLongField,
    XShortField,
)
from scapy.layers.inet import UDP
from scapy.packet import Packet, Raw, bind_layers

from mrclab.endpoint.wire import HEADER_LEN, MRC_UDP_PORT, MRC_VERSION, MsgType

TYPE_NAMES: dict[int, str] = {t.value: t.name for t in MsgType}
# Bit i of the flags byte -> name (the order Scapy's FlagsField expects); 4..7 are unassigned.
FLAG_NAMES: list[str] = ["TRIMMED", "ECN_ECHO", "LAST", "RETX", "F4", "F5", "F6", "F7"]


class MRC(Packet):
    """MRC-lite v1 header (40 bytes, big-endian); a DATA payload follows as Raw.

    ACK: `psn` is the DATA PSN answered, `ack` the cumulative ack and `offset` the SACK
    bitmap (bit i = PSN ack + 1 + i). Every field and convention: docs/wire-format.md.
    """

    name = "MRC"
    fields_desc = [
        BitEnumField("version", MRC_VERSION, 4, {MRC_VERSION: "v1"}),
        BitEnumField("type", MsgType.DATA, 4, TYPE_NAMES),
        FlagsField("flags", 0, 8, FLAG_NAMES),
        XShortField("ev", 0),  # entropy value: the path the sender picked
        XIntField("conn", 0),
        IntField("psn", 0),
        IntField("ack", 0),
        IntField("offset", 0),  # DATA: byte offset; ACK: SACK bitmap
        ShortField("length", 0),  # payload bytes as sent, kept when a switch trims
        ShortField("qmax", 0),  # deepest egress queue met on the path (packets)
        IntField("ts", 0),  # sender timestamp, µs
        XLongField("route", 0),  # source route: 8 hop labels, current hop in the top byte
        XIntField("reserved", 0),
    ]

    def mysummary(self) -> str:
        return self.sprintf("MRC %type% ev=%ev% conn=%conn% psn=%psn% flags=%flags%")

    def extract_padding(self, s: bytes) -> tuple[bytes, bytes | None]:
        return s, None


# Scapy's Packet.route() (L3 next-hop lookup) would shadow the `route` field on attribute
# reads; MRC is never the layer Scapy routes on, so the field wins. Writes already reach the
# field (Packet.__setattr__). Set after the class is made: a class attribute named like a
# field would become that field's default.
MRC.route = property(lambda self: self.getfieldval("route"))  # type: ignore[assignment]
assert len(MRC()) == HEADER_LEN

bind_layers(UDP, MRC, dport=MRC_UDP_PORT)
bind_layers(UDP, MRC, sport=MRC_UDP_PORT)
bind_layers(MRC, Raw)
