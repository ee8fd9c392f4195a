"""`mrclab trace` on a Scapy-written capture: per-packet lines, flow summaries, bad input."""

from __future__ import annotations

import json

import pytest
from scapy.utils import wrpcap

from mrclab.cli import main
from mrclab.endpoint.trace import _ranges
from tests.unit.endpoint.mrc_capture import CONN, MRC_PACKETS, write_sample_pcap


@pytest.fixture
def pcap(tmp_path):
    return write_sample_pcap(tmp_path / "transfer.pcap")


def test_one_line_per_mrc_packet_with_the_fields_that_matter(pcap, capsys):
    assert main(["trace", str(pcap)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == MRC_PACKETS  # UDP/53 and ARP are left out
    assert lines[0].split()[:2] == ["1", "0.000000"] and "PROBE " in lines[0]
    assert "PROBE_REPLY" in lines[1] and "conn=0x2a" in lines[1]
    trimmed = lines[3]
    assert "DATA" in trimmed and "ev=0x0011" in trimmed and "psn=1" in trimmed
    assert "flags=TRIMMED" in trimmed and "ecn=CE" in trimmed and "qmax=9" in trimmed
    ack = lines[5]
    assert "ACK" in ack and "ack=1" in ack and "sack=2" in ack and "flags=ECN_ECHO" in ack
    assert "NACK" in lines[6] and "psn=1" in lines[6]
    assert "flags=RETX" in lines[7] and "flags=LAST" in lines[8] and "route=3,4,2" in lines[8]
    assert lines[9].endswith("ecn=not-ECT")
    assert [line.split()[0] for line in lines] == [str(i) for i in range(1, 11)]


def test_flow_summary_counts_trims_nacks_retransmits_and_ecn(pcap, tmp_path, capsys):
    out_json = tmp_path / "flows.json"
    assert main(["trace", "--flows", "--json", str(out_json), str(pcap)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2  # the opening PROBE (conn 0) and the transfer
    flows = {f["conn"]: f for f in json.loads(out_json.read_text())}
    transfer = flows[CONN]
    assert transfer["sender"] == "10.0.0.1" and transfer["receiver"] == "10.0.3.4"
    assert transfer["packets"] == {"DATA": 5, "ACK": 2, "NACK": 1, "PROBE_REPLY": 1}
    assert transfer["evs_used"] == 4 and transfer["distinct_psns"] == 4
    assert (transfer["psn_min"], transfer["psn_max"]) == (0, 3)
    assert (transfer["retransmits"], transfer["trimmed"], transfer["nacks"]) == (1, 1, 1)
    assert (transfer["ce_marked"], transfer["ecn_echoes"], transfer["qmax"]) == (2, 2, 9)
    assert transfer["payload_bytes"] == 5000
    assert flows[0]["packets"] == {"PROBE": 1}
    assert "retx=1 trimmed=1 nacks=1 ce=2 ecn_echo=2 qmax=9" in lines[1]


def test_several_files_are_headed_and_summed(pcap, tmp_path, capsys):
    other = write_sample_pcap(tmp_path / "again.pcap")
    assert main(["trace", str(pcap), str(other)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"== {pcap}" and out[MRC_PACKETS + 1] == f"== {other}"
    assert main(["trace", "--flows", "--json", str(tmp_path / "f.json"), str(pcap),
                 str(other)]) == 0
    flows = json.loads((tmp_path / "f.json").read_text())
    assert {f["conn"]: f["packets"].get("DATA", 0) for f in flows} == {0: 0, CONN: 10}


def test_sack_ranges_are_compressed():
    assert _ranges([1, 2, 3, 5, 7, 8]) == "1-3,5,7-8" and _ranges([4]) == "4"


def test_a_capture_without_mrc_says_so(tmp_path, capsys):
    from scapy.layers.inet import IP, UDP
    from scapy.layers.l2 import Ether

    path = tmp_path / "dns.pcap"
    wrpcap(str(path), [Ether() / IP() / UDP(dport=53)])
    assert main(["trace", str(path)]) == 0
    assert capsys.readouterr().out.strip() == f"no MRC packets (UDP port 4793) in {path}"


@pytest.mark.parametrize("content", [None, b"not a capture at all\n"])
def test_unreadable_captures_are_one_line_naming_the_file(tmp_path, capsys, content):
    path = tmp_path / "bad.pcap"
    if content is not None:
        path.write_bytes(content)
    assert main(["trace", str(path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and str(path) in err[0] and err[0].startswith("mrclab trace: ")
