"""Run tshark with the MRC Lua dissector and compare what it shows with the Scapy layer."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from mrclab.endpoint.layers import MRC

DISSECTOR = Path(__file__).resolve().parents[1] / "tools" / "wireshark" / "mrc.lua"
FLAG_FIELDS = {"trimmed": 0x01, "ecn_echo": 0x02, "last": 0x04, "retx": 0x08}
MISSING = None if shutil.which("tshark") else "tshark is not installed (apt-get install tshark)"


def tshark(pcap: Path, *args: str) -> str:
    """tshark's stdout for `pcap` with the dissector loaded; fails on any Lua error."""
    result = subprocess.run(["tshark", "-n", "-X", f"lua_script:{DISSECTOR}", "-r", str(pcap),
                             *args], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "Lua: Error" not in result.stderr and "lua_script" not in result.stderr, \
        result.stderr
    return result.stdout


def field_values(pcap: Path, display_filter: str = "") -> list[dict[str, str]]:
    """Per frame, every MRC field tshark shows (-T fields), keyed by Scapy field name."""
    names = [f.name for f in MRC.fields_desc] + ["sack"] + [f"flags.{n}" for n in FLAG_FIELDS]
    extra = ["-Y", display_filter] if display_filter else []
    out = tshark(pcap, *extra, "-T", "fields", "-E", "separator=/t", "-E", "occurrence=f",
                 *[arg for n in names for arg in ("-e", f"mrc.{n}")])
    return [dict(zip(names, line.split("\t"), strict=True)) for line in out.splitlines()]


def assert_matches_scapy(shown: dict[str, str], mrc: MRC) -> None:
    """Every field of the Scapy layer is shown by tshark, with the same value."""
    for fld in MRC.fields_desc:
        name = fld.name
        if name == "offset" and mrc.type == 1:
            name = "sack"  # an ACK's offset is its SACK bitmap
        assert shown[name] != "", f"{fld.name} not shown"
        assert int(shown[name], 0) == int(mrc.getfieldval(fld.name)), fld.name
    for flag, bit in FLAG_FIELDS.items():
        assert shown[f"flags.{flag}"] in ("0", "1", "True", "False"), flag
        assert (shown[f"flags.{flag}"] in ("1", "True")) == bool(int(mrc.flags) & bit), flag
