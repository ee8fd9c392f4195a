"""Controller header packing for PacketIn / PacketOut."""

from __future__ import annotations

import pytest
from google.rpc import code_pb2
from p4.v1 import p4runtime_pb2

from p4emu.runtime.model import ControllerHeaderInfo, HeaderFieldInfo
from p4emu.switch.p4rt_errors import P4RTError
from p4emu.switch.packet_io import build_packet_out, split_packet_in

HEADER = ControllerHeaderInfo(1, "packet_out", (HeaderFieldInfo(1, "egress_port", 9),
                                                HeaderFieldInfo(2, "flag", 3),
                                                HeaderFieldInfo(3, "_pad", 4)))


def md(mid, value):
    return p4runtime_pb2.PacketMetadata(metadata_id=mid, value=value)


def test_fields_are_bit_packed_msb_first():
    frame = build_packet_out(HEADER, [md(1, b"\x01\x05"), md(2, b"\x05")], b"payload")
    assert frame == (((0x105 << 7) | (5 << 4)).to_bytes(2, "big")) + b"payload"


def test_missing_field_is_zero_and_padded_value_accepted():
    frame = build_packet_out(HEADER, [md(1, b"\x00\x01")], b"")
    assert frame == (1 << 7).to_bytes(2, "big")


@pytest.mark.parametrize("metadata", [[md(9, b"\x01")], [md(1, b"\x02\x00")], [md(1, b"")]])
def test_bad_metadata_is_invalid_argument(metadata):
    with pytest.raises(P4RTError) as err:
        build_packet_out(HEADER, metadata, b"x")
    assert err.value.code == code_pb2.INVALID_ARGUMENT


def test_packet_in_split_is_canonical_and_round_trips():
    frame = build_packet_out(HEADER, [md(1, b"\x00\x07")], b"data")
    metadata, payload = split_packet_in(HEADER, frame)
    assert payload == b"data"
    assert [(m.metadata_id, m.value) for m in metadata] == [(1, b"\x07"), (2, b"\x00"),
                                                            (3, b"\x00")]


def test_short_frame_to_cpu_is_dropped():
    assert split_packet_in(HEADER, b"\x01") is None


def test_no_controller_header_passes_frames_through():
    assert split_packet_in(None, b"abc") == ([], b"abc")
    assert build_packet_out(None, [], b"abc") == b"abc"
    with pytest.raises(P4RTError):
        build_packet_out(None, [md(1, b"\x01")], b"abc")
