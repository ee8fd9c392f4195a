"""PacketIn / PacketOut controller headers (docs/v1model.md §7), pure.

The "packet_in" / "packet_out" @controller_header fields are bit-packed in P4Info order
(MSB first), the total rounded up to whole bytes. A packet egressing to the CPU port loses
its packet_in header, whose fields become PacketIn metadata in canonical form; a PacketOut
gets a packet_out header built from its metadata (a missing field is 0) in front.
"""

from __future__ import annotations

from collections.abc import Sequence

from p4.v1 import p4runtime_pb2

from p4emu.runtime.model import ControllerHeaderInfo, ProgramInfo
from p4emu.switch.bytestrings import decode, encode
from p4emu.switch.p4rt_errors import invalid


def controller_header(info: ProgramInfo, name: str) -> ControllerHeaderInfo | None:
    for header in info.controller_headers.values():
        if header.name == name:
            return header
    return None


def header_bytes(header: ControllerHeaderInfo) -> int:
    return (sum(f.bitwidth for f in header.fields) + 7) // 8


def split_packet_in(header: ControllerHeaderInfo | None, frame: bytes,
                    ) -> tuple[list[p4runtime_pb2.PacketMetadata], bytes] | None:
    """(metadata, payload) of a frame sent to the CPU port; None when too short."""
    if header is None:
        return [], frame
    size = header_bytes(header)
    if len(frame) < size:
        return None
    total_bits = sum(f.bitwidth for f in header.fields)
    packed = int.from_bytes(frame[:size], "big") >> (size * 8 - total_bits)
    metadata = []
    shift = total_bits
    for f in header.fields:
        shift -= f.bitwidth
        value = (packed >> shift) & ((1 << f.bitwidth) - 1)
        metadata.append(p4runtime_pb2.PacketMetadata(metadata_id=f.id, value=encode(value)))
    return metadata, frame[size:]


def build_packet_out(header: ControllerHeaderInfo | None,
                     metadata: Sequence[p4runtime_pb2.PacketMetadata], payload: bytes) -> bytes:
    """The frame a PacketOut injects on the CPU port; INVALID_ARGUMENT on bad metadata."""
    if header is None:
        if metadata:
            raise invalid("the program has no packet_out controller header")
        return payload
    by_id = {f.id: f for f in header.fields}
    values: dict[int, int] = {}
    for md in metadata:
        f = by_id.get(md.metadata_id)
        if f is None:
            raise invalid(f"packet_out has no metadata id {md.metadata_id}")
        values[f.id] = decode(md.value, f.bitwidth, f"packet_out metadata {f.name}")
    packed = 0
    total_bits = 0
    for f in header.fields:
        packed = (packed << f.bitwidth) | values.get(f.id, 0)
        total_bits += f.bitwidth
    size = header_bytes(header)
    packed <<= size * 8 - total_bits
    return packed.to_bytes(size, "big") + payload
