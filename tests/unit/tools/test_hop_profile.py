"""`scripts/hop_profile.py`: each py-spy sample lands in the category of its innermost
named frame, blocked threads are set apart, and shares become microseconds per hop."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
_spec = importlib.util.spec_from_file_location("hop_profile", ROOT / "scripts" / "hop_profile.py")
hop_profile = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(hop_profile)

RUN = "Thread.run (threading.py:975);DataplaneLoop._run (p4emu/switch/dataplane_loop.py:150)"


def test_the_innermost_named_frame_decides():
    ingress = (f"{RUN};TrafficManager.ingress (p4emu/switch/traffic_manager.py:170);"
               "Pipeline.ingress (p4emu/v1model/pipeline.py:119);CA_30 (<p4emu generated>:978);"
               "Table.lookup (p4emu/runtime/lookups.py:99)")
    assert hop_profile.category(ingress).startswith("table lookups")
    assert hop_profile.category(ingress.rsplit(";", 1)[0]).startswith("P4 program")
    recv = f"{RUN};TrafficManager.receive (p4emu/switch/traffic_manager.py:143);" \
           "PortSet.receive (p4emu/switch/ports.py:101)"
    assert hop_profile.category(recv).startswith("port I/O")
    assert hop_profile.category("Thread.run (threading.py:975);x (mystery.py:1)") == "other"


def test_blocked_threads_are_left_out_and_shares_become_microseconds(tmp_path):
    samples = tmp_path / "switch-1.txt"
    samples.write_text(
        f"{RUN};EpollSelector.select (selectors.py:468) 50\n"
        f"{RUN};TrafficManager.receive (p4emu/switch/traffic_manager.py:143);"
        "PortSet.receive (p4emu/switch/ports.py:101) 30\n"
        f"{RUN};Pipeline.ingress (p4emu/v1model/pipeline.py:119);CA_30 (<p4emu generated>:978) 10\n")
    counts = hop_profile.tally([samples])
    assert counts[hop_profile.WAITING] == 50
    lines = hop_profile.report(counts, cpu_per_hop_us=100.0)
    assert lines[0] == ("40 samples of the switch processes' running threads "
                        "(50 more were blocked, left out)")
    assert "75.0 us/hop" in lines[1] and "port I/O" in lines[1]
    assert "25.0 us/hop" in lines[2] and "P4 program" in lines[2]
