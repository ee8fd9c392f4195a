"""Scapy layer for the MRC-lite v1 header, bound to UDP port 4793 in both directions.

The fields come from `endpoint.wire.HEADER_FIELDS`, the single definition of the format, so
`sniff()`/`rdpcap()` show every field by name::

    >>> from endpoint.layers import MRC
    >>> rdpcap("capture.pcap")[0][MRC].show()
"""

from __future__ import annotations

from scapy.fields import (
    BitEnumField,
    Field,
    FlagsField,
    IntField,
    LongField,
    ShortField,
    XIntField,
    XLongField,
    XShortField,
)
from scapy.layers.inet import UDP
from scapy.packet import Packet, Raw, bind_layers

from endpoint.wire import (
    FLAG_NAMES,
    HEADER_FIELDS,
    HEADER_LEN,
    MRC_UDP_PORT,
    MRC_VERSION,
    TYPE_NAMES,
    VERSION_NAMES,
    MsgType,
)

_PLAIN = {16: ShortField, 32: IntField, 64: LongField}
_HEX = {16: XShortField, 32: XIntField, 64: XLongField}
_DEFAULTS = {"version": MRC_VERSION, "type": MsgType.DATA}


def _scapy_field(name: str, bits: int, kind: str) -> Field:
    default = _DEFAULTS.get(name, 0)
    if kind == "version":
        return BitEnumField(name, default, bits, VERSION_NAMES)
    if kind == "type":
        return BitEnumField(name, default, bits, TYPE_NAMES)
    if kind == "flags":
        return FlagsField(name, default, bits, FLAG_NAMES)
    if kind == "hex":
        return _HEX[bits](name, default)
    return _PLAIN[bits](name, default)


class MRC(Packet):
    """MRC-lite v1 header (40 bytes); a DATA payload follows as Raw."""

    name = "MRC"
    fields_desc = [_scapy_field(*spec) for spec in HEADER_FIELDS]

    def mysummary(self) -> str:
        return self.sprintf("MRC %type% ev=%ev% conn=%conn% psn=%psn% flags=%flags%")

    def extract_padding(self, s: bytes) -> tuple[bytes, bytes | None]:
        return s, None


assert len(MRC()) == HEADER_LEN

bind_layers(UDP, MRC, dport=MRC_UDP_PORT)
bind_layers(UDP, MRC, sport=MRC_UDP_PORT)
bind_layers(MRC, Raw)
