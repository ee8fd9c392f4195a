"""The p4_device_config bytes clients send: raw p4emu IR or a p4.tmp.P4DeviceConfig wrapper.

PI/simple_switch_grpc accept both the raw device data and the (deprecated, but sent by
widely copied P4Runtime helper libraries) ``p4.tmp.P4DeviceConfig`` message from PI's
proto/p4/tmp/p4config.proto: ``bool reassign = 1; Extras extras = 2; bytes device_data
= 3``. The `p4runtime` package does not ship that message, so it is decoded here.

A raw IR (JSON, starting with ``{`` or whitespace) never decodes as a wrapper: its first
byte is not the tag of any wrapper field with the right wire type, and decoding is strict.
"""

from __future__ import annotations

import json

BMV2_JSON_KEYS = frozenset({"header_types", "pipelines", "__meta__", "parsers", "deparsers"})
BMV2_JSON_MESSAGE = ("device config is a BMv2 JSON from p4c; p4emu runs the output of "
                     "`python -m p4emu compile`")

# wrapper field number -> protobuf wire type (0 varint, 2 length-delimited)
_WRAPPER_FIELDS = {1: 0, 2: 2, 3: 2}
_DEVICE_DATA = 3


def _varint(data: bytes, pos: int) -> tuple[int, int]:
    """(value, next position); ValueError when truncated or longer than 10 bytes."""
    value = 0
    for shift in range(0, 70, 7):
        if pos >= len(data):
            raise ValueError("truncated varint")
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return value, pos
    raise ValueError("varint too long")


def wrapped_device_data(data: bytes) -> bytes | None:
    """The device_data of a serialized P4DeviceConfig, or None if `data` is not one."""
    pos = 0
    found: bytes | None = None
    try:
        while pos < len(data):
            key, pos = _varint(data, pos)
            number, wire = key >> 3, key & 7
            if _WRAPPER_FIELDS.get(number) != wire:
                return None  # a field the wrapper does not have: raw device data
            if wire == 0:
                _, pos = _varint(data, pos)
                continue
            length, pos = _varint(data, pos)
            if pos + length > len(data):
                return None
            if number == _DEVICE_DATA:
                found = data[pos:pos + length]  # proto3: the last occurrence wins
            pos += length
    except ValueError:
        return None
    if not data:
        return None
    return b"" if found is None else found  # proto3 leaves an empty device_data out


def device_data(config: bytes) -> bytes:
    """The device data of a p4_device_config: unwrapped if it is a P4DeviceConfig."""
    inner = wrapped_device_data(config)
    return config if inner is None else inner


def foreign_config_reason(data: bytes) -> str | None:
    """One line saying what `data` is when it is another target's config (BMv2 JSON)."""
    if not data.lstrip()[:1] == b"{":
        return None
    try:
        doc = json.loads(data)
    except ValueError:
        return None
    if isinstance(doc, dict) and "format" not in doc and BMV2_JSON_KEYS & doc.keys():
        return BMV2_JSON_MESSAGE
    return None
