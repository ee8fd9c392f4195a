"""The records that cross processes parse back as they were written, and summaries
written before the records still parse."""

from __future__ import annotations

import json

import pytest

from mrclab.endpoint.core.receiver import ReceiverStats
from mrclab.endpoint.report import (
    BlastStats,
    MessageDigest,
    PlaneReport,
    ReceiverReport,
    Retirement,
    SenderReport,
)
from mrclab.experiments.records import FailureEvents, PhaseRecord, PhaseWithEvents, PortCounters
from mrclab.fabric.reconvergence import Reconvergence
from mrclab.jsonrecords import json_default, to_json
from mrclab.lab.counters import SwitchCounters, from_json

from .synthetic import flow, run


def _through_json(data: object) -> dict:
    return json.loads(json.dumps(data, default=json_default))


def test_a_sender_report_is_one_flat_object_and_parses_back_whole():
    report = SenderReport(ok=True, bytes=10, planes=[PlaneReport("eth0", "10.0.0.1", "10.0.3.4")])
    report.counters.nacks = 3
    report.pool.evs_retired.append(Retirement(0.5, 1, 7))
    data = _through_json(report)
    assert data["nacks"] == 3 and data["evs_retired"] == [{"time": 0.5, "plane": 1, "ev": 7}]
    assert "counters" not in data and "trims_seen" not in data  # one name per figure
    assert SenderReport.from_json(data) == report


def test_a_summary_written_before_the_records_parses():
    old = {"ok": True, "error": "", "bytes": 100, "trims_seen": 4, "nacks": 4,
           "evs_used": [1, 2], "evs_used_count": 2, "evs_retired": [], "timeouts": 1}
    report = SenderReport.from_json(old)
    assert (report.counters.nacks, report.counters.timeouts) == (4, 1)
    assert report.pool.evs_used == [1, 2] and report.counters.timeouts_spurious == 0


def test_a_receiver_report_keeps_the_core_s_stats_and_the_agent_s_digests():
    report = ReceiverReport(stats=ReceiverStats(messages_ok=1, trimmed=5), messages=1,
                            digests=[MessageDigest("10.0.0.1", 8, True, "ab", 0.1)])
    data = _through_json(report)
    assert data["trimmed"] == 5 and data["messages"] == 1
    assert ReceiverReport.from_json(data) == report


def test_port_numbers_come_back_as_ints():
    answer = _through_json({"ports": {3: {"tx_packets": 9, "trimmed": 2}}, "drops": {0: 1}})
    assert list(answer["ports"]) == ["3"]  # what a JSON socket makes of them
    counters = from_json(SwitchCounters, answer)
    assert counters.port(3).trimmed == 2 and counters.port(4).trimmed == 0
    assert counters.drops == {0: 1} and counters.tx_packets() == 9
    phase = run([flow("h1", "h2", 1e6, 1.0)], counters={"a1": {3: PortCounters(tx_bytes=5)}})
    again = PhaseRecord.from_json(_through_json(phase))
    assert again == phase and again.counters["a1"][3].tx_bytes == 5


def test_a_blast_summary_and_reconvergence_records_parse_back():
    stats = BlastStats(sent=500, send_drops=2, seconds=0.25, evs_used=64)
    line = _through_json(stats.to_json())
    assert line["pps"] == 2000.0  # the figure a reader of the output line wants
    assert BlastStats.from_json(line) == stats
    event = Reconvergence(link="a7:3-c1:4", status="down", detected_at=10.0,
                          programmed_at=10.25, detect_s=0.1, total_s=0.35,
                          from_command_s=None, switches=5, updates=12)
    reply = _through_json(event.to_json())
    assert reply["program_s"] == 0.25
    assert Reconvergence.from_json(reply) == event
    del reply["programmed_at"]  # a controller of another version: one line naming it
    with pytest.raises(ValueError, match="without programmed_at"):
        Reconvergence.from_json(reply)


def test_failure_events_name_the_rewrite_of_the_failed_link_only():
    def rewrite(link: str, status: str, at: float) -> Reconvergence:
        return Reconvergence(link, status, at - 0.01, at, 0.1, 0.11, None, 4, 8)

    events = FailureEvents(link=("c1", "a7"), failed_at=1.0, reconvergence=[
        rewrite("a5:3-c3:3", "down", 101.2),  # a probe missed elsewhere
        rewrite("a7:3-c1:4", "up", 101.3), rewrite("a7:3-c1:4", "down", 101.6)])
    assert events.rerouted_at(100.0) == pytest.approx(1.6)
    assert FailureEvents(link=("c2", "a7"), reconvergence=events.reconvergence
                         ).rerouted_at(100.0) is None
    flat = to_json(PhaseWithEvents(run([flow("h1", "h13", 1e6, 1.0)]), events))
    assert flat["link"] == ["c1", "a7"] and flat["reconvergence"][2]["status"] == "down"
