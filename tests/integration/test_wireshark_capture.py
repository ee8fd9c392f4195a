"""A real lab transfer captured with tcpdump on a host: tshark with tools/wireshark/mrc.lua
shows every MRC field of every packet, as the Scapy layer reads them, and `mrclab trace`
accounts for the transfer (issue 14)."""

from __future__ import annotations

import signal
import subprocess

import pytest

from mrclab.endpoint.trace import read_mrc, summarize
from mrclab.fabric.generators import PortBases
from mrclab.lab.lab import Lab, LabConfig
from tests.targets import integration_target
from tests.tshark import MISSING, assert_matches_scapy, field_values, tshark

from .fabric import host, run_transfer
from .waiting import wait_stable

pytestmark = [pytest.mark.integration,
              pytest.mark.skipif(MISSING is not None, reason=str(MISSING))]


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    config = LabConfig(spec="leafspine:leaves=2,spines=2,hosts=1", target=integration_target(),
                       spray="ev", build_dir=tmp_path_factory.mktemp("wireshark"),
                       bases=PortBases(grpc=52500, thrift=11500))
    running = Lab(config)
    try:
        running.start()
        yield running
    finally:
        running.stop()


def test_tshark_shows_every_field_of_a_captured_transfer(lab, tmp_path):
    pcap = tmp_path / "h2.pcap"
    h2 = host(lab, "h2")
    # On the receiver's NIC: DATA and PROBE in, ACK and PROBE_REPLY out.
    dump = h2.popen(["tcpdump", "-n", "-U", "-B", "8192", "-i", h2.defaultIntf().name,
                     "-w", str(pcap), "udp", "port", "4793"],
                    stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        assert "listening on" in dump.stderr.readline()
        received, sent = run_transfer(lab, tmp_path, ["h1"], "h2", "256K")
        # tcpdump -U writes each packet as it comes: once the file stops growing, it holds
        # the whole transfer
        _size, settled = wait_stable(lambda: pcap.stat().st_size, 10, quiet=0.5)
        assert settled, "the capture kept growing after the transfer"
    finally:
        dump.send_signal(signal.SIGINT)
        dump.wait(timeout=10)

    records = list(read_mrc(pcap))
    rows = field_values(pcap, "mrc")
    assert len(rows) == len(records) > 0
    for row, rec in zip(rows, records, strict=True):
        assert_matches_scapy(row, rec.mrc)
    types = {int(r["type"]) for r in rows}
    assert {0, 1, 3, 4} <= types  # DATA, ACK, PROBE, PROBE_REPLY

    verbose = tshark(pcap, "-V", "-O", "mrc", "-c", "3")
    print("\n" + verbose)
    for label in ("Version: 1", "Type: PROBE (3)", "Type: PROBE_REPLY (4)", "Type: DATA (0)",
                  "Flags: 0x", "Entropy value (EV):", "Connection:", "PSN:",
                  "Cumulative ack", "Offset:", "Length (payload bytes as sent):", "Qmax",
                  "Timestamp (us):", "Source route:", "Reserved:"):
        assert label in verbose, label

    transfer = [f for f in summarize(iter(records)) if f.conn != 0]
    assert len(transfer) == 1
    flow = transfer[0].as_dict()
    print(flow)
    assert flow["sender"] == lab.fabric.hosts["h1"].nics[0].ip
    assert flow["evs_used"] > 1  # sprayed
    assert flow["packets"]["DATA"] >= 0.9 * sent[0].counters.data_packets_sent
    assert flow["packets"]["ACK"] > 0 and received.stats.messages_ok == 1
