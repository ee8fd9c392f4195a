"""tools/wireshark/mrc.lua under tshark: every field of the Scapy layer, by name and value,
and the controller's link probes as the controller parses them."""

from __future__ import annotations

import random

import pytest
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether
from scapy.packet import Raw
from scapy.utils import wrpcap

from mrclab.controller.probe_liveness import parse_probe, probe_frame
from mrclab.endpoint.layers import MRC
from tests.tshark import MISSING, assert_matches_scapy, field_values, tshark
from tests.unit.endpoint.mrc_capture import MRC_PACKETS, sample_packets, write_sample_pcap

pytestmark = pytest.mark.skipif(MISSING is not None, reason=str(MISSING))


def test_every_field_of_every_message_type_matches_the_scapy_layer(tmp_path):
    pcap = write_sample_pcap(tmp_path / "sample.pcap")
    rows = field_values(pcap)
    pkts = sample_packets()
    assert {int(r["type"]) for r in rows[:MRC_PACKETS]} == {0, 1, 2, 3, 4}
    for row, pkt in zip(rows[:MRC_PACKETS], pkts[:MRC_PACKETS], strict=True):
        assert_matches_scapy(row, pkt[MRC])
    assert all(v == "" for row in rows[MRC_PACKETS:] for v in row.values())  # not MRC


def test_random_headers_on_either_port_match_the_scapy_layer(tmp_path):
    rng = random.Random(5)
    pkts = []
    for i in range(60):
        values = {f.name: rng.getrandbits(int(f.sz * 8)) for f in MRC.fields_desc}
        values.update(version=1, type=rng.randrange(5))
        ports = (4793, 40000 + i) if i % 2 else (40000 + i, 4793)
        pkts.append(Ether() / IP() / UDP(sport=ports[0], dport=ports[1]) / MRC(**values))
    pcap = tmp_path / "random.pcap"
    wrpcap(str(pcap), pkts)
    rows = field_values(pcap)
    assert len(rows) == len(pkts)
    for row, pkt in zip(rows, pkts, strict=True):
        assert_matches_scapy(row, pkt[MRC])


def test_names_flags_sack_and_route_are_spelled_out(tmp_path):
    pcap = write_sample_pcap(tmp_path / "sample.pcap")
    frames = tshark(pcap, "-V", "-O", "mrc").split("\n\n")
    text = "\n".join(frames)
    for name in ("DATA (0)", "ACK (1)", "NACK (2)", "PROBE (3)", "PROBE_REPLY (4)"):
        assert f"Type: {name}" in text
    trimmed, ack, last = frames[3], frames[5], frames[8]
    assert "Flags: 0x01 (TRIMMED)" in trimmed and "Payload trimmed by a congested switch" \
        in trimmed and "ECN_ECHO (receiver saw CE): False" in trimmed
    assert "SACK bitmap (offset field): 0x00000001 (PSNs 2)" in ack and "SACKed PSN: 2" in ack
    assert "Flags: 0x04 (LAST)" in last and "Source route: 0x0304020000000000 (hops 3,4,2)" \
        in last and "(CRC32 of the whole message)" in last
    assert "Flags: 0x08 (RETX)" in frames[7] and "Flags: 0x02 (ECN_ECHO)" in frames[6]
    summary = tshark(pcap).splitlines()
    assert "NACK ev=0x0011 conn=0x2a psn=1 ack=1 [ECN_ECHO]" in summary[6]


def test_display_filters_and_a_truncated_header(tmp_path):
    pcap = write_sample_pcap(tmp_path / "sample.pcap")
    hits = tshark(pcap, "-Y", "mrc.flags.trimmed == 1 || mrc.type == 2 || mrc.sack.psn == 2",
                  "-T", "fields", "-e", "frame.number")
    assert hits.split() == ["4", "6", "7"]
    short = tmp_path / "short.pcap"
    wrpcap(str(short), [Ether() / IP() / UDP(sport=4793, dport=4793) / Raw(bytes(30))])
    assert "Truncated MRC header" in tshark(short, "-V")


def test_link_probes_show_each_ports_probe_number(tmp_path):
    """The controller's probe frames (EtherType 0x88B5) read as the controller parses them;
    a frame cut inside its port list gets an error, not a Lua failure."""
    frames = [probe_frame(5, {1: 42, 3: 42, 4: 7}, 123456), probe_frame(0xFFFFFFFF, {300: 1}, 9),
              probe_frame(5, {1: 42, 3: 42}, 1)[:-3]]
    pcap = tmp_path / "probes.pcap"
    wrpcap(str(pcap), [Ether(f) for f in frames])
    out = tshark(pcap, "-T", "fields", "-E", "separator=/t", "-E", "occurrence=a",
                 "-e", "mrclab_probe.device_id", "-e", "mrclab_probe.ts",
                 "-e", "mrclab_probe.port", "-e", "mrclab_probe.seq")
    rows = [line.split("\t") for line in out.splitlines()]
    for (device, ts, ports, seqs), frame in zip(rows[:2], frames[:2], strict=True):
        probe = parse_probe(frame)
        assert (int(device), int(ts)) == (probe.device_id, probe.ts_ms)
        assert dict(zip(map(int, ports.split(",")), map(int, seqs.split(",")),
                        strict=True)) == probe.seqs
    assert rows[2][2:] == ["1", "42"]
    text = tshark(pcap, "-V", "-O", "mrclab_probe")
    assert "Truncated link probe: 1 of 2 ports" in text
    assert "Link probe from device 5, port:probe 1:42 3:42 4:7" in tshark(pcap)
