"""Link monitor, pcap writer and frame checks (no root, no real interfaces)."""

from __future__ import annotations

from scapy.utils import rdpcap

from p4emu.switch.pcap import PortPcaps
from p4emu.switch.port_oper_state import OperStateReader, PortOperState
from p4emu.switch.ports import MAX_FRAME, frame_problem


def test_port_oper_state_reports_changes_once(tmp_path):
    states = {"a": True, "b": True}
    seen = []
    mon = PortOperState({1: "a", 2: "b"}, read_up=states.__getitem__,
                      on_change=lambda port, up: seen.append((port, up)))
    assert mon.is_up(1) and mon.is_up(2) and not mon.is_up(3)
    assert mon.poll_once() == []
    states["b"] = False
    assert mon.poll_once() == [(2, False)]
    assert mon.poll_once() == []
    assert not mon.is_up(2)
    states["b"] = True
    mon.poll_once()
    assert seen == [(2, False), (2, True)]


def test_oper_state_reader_from_sysfs_layout(tmp_path):
    for name, state, carrier in (("up0", "up", None), ("down0", "down", None),
                                 ("unk0", "unknown", "1"), ("unk1", "unknown", "0")):
        (tmp_path / name).mkdir()
        (tmp_path / name / "operstate").write_text(state + "\n")
        if carrier is not None:
            (tmp_path / name / "carrier").write_text(carrier + "\n")
    read = OperStateReader(tmp_path)
    assert read("up0") and read("unk0")
    assert not read("down0") and not read("unk1") and not read("missing0")
    # the file stays open and is read again from the start: a change is seen
    (tmp_path / "up0" / "operstate").write_text("down\n")
    assert not read("up0")
    # an interface missing at first is found once it exists (one deleted from real sysfs
    # fails its reads with ENODEV, and is opened afresh the same way)
    (tmp_path / "missing0").mkdir()
    (tmp_path / "missing0" / "operstate").write_text("up\n")
    assert read("missing0")
    read.close()


def test_pcap_files_readable_by_scapy(tmp_path):
    pcaps = PortPcaps(tmp_path)
    pcaps.add_port(1, "s1-eth1")
    frame = bytes.fromhex("ffffffffffff000000000001 0800".replace(" ", "")) + b"x" * 50
    pcaps.received(1, frame)
    pcaps.sent(1, frame[:20])
    pcaps.received(9, frame)  # a port without pcap files is ignored
    pcaps.close()
    assert bytes(rdpcap(str(tmp_path / "s1-eth1_in.pcap"))[0]) == frame
    assert bytes(rdpcap(str(tmp_path / "s1-eth1_out.pcap"))[0]) == frame[:20]


def test_frame_checks():
    assert frame_problem(13).startswith("runt")
    assert frame_problem(MAX_FRAME + 1).startswith("oversized")
    assert frame_problem(60) is None
