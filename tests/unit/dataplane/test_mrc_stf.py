"""Runs every tests/p4/mrc/*.stf against mrclab/p4src/mrc.p4 on p4emu, and checks the STF files'
own expectations (their checksums are computed here, independently of the switch)."""

from __future__ import annotations

import re
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from .checksums import internet_checksum

ROOT = Path(__file__).resolve().parents[3]
PROGRAM = ROOT / "mrclab" / "p4src" / "mrc.p4"
STF_DIR = ROOT / "tests" / "p4" / "mrc"
STF_FILES = sorted(STF_DIR.glob("*.stf"))
# mrc.p4 sends ACKs, trimmed headers and controller frames at priority 1; fabric switches
# run with --priority-queues 2, and so do these tests.
PRIORITY_QUEUES = 2
CPU_PORT = 255


def checksum_problems(frame: bytes) -> tuple[int, list[str]]:
    """(number of checksums verified, descriptions of wrong ones) for one Ethernet frame."""
    checked, problems = 0, []
    if len(frame) < 14 + 20 or frame[12:14] != b"\x08\x00":
        return checked, problems
    ip = frame[14:]
    ihl = (ip[0] & 0x0F) * 4
    total_len = struct.unpack("!H", ip[2:4])[0]
    if ihl < 20 or len(ip) < ihl:
        return checked, problems
    checked += 1
    if internet_checksum(ip[:ihl]) != 0:
        problems.append(f"IPv4 header checksum {ip[10:12].hex()} is wrong")
    frag_offset = struct.unpack("!H", ip[6:8])[0] & 0x1FFF
    # UDP only when the whole datagram is present (a trimmed frame's is not, and says 0)
    if ip[9] == 17 and frag_offset == 0 and total_len == len(ip) and total_len >= ihl + 8:
        udp = ip[ihl:total_len]
        udp_sum = struct.unpack("!H", udp[6:8])[0]
        if udp_sum != 0:
            checked += 1
            pseudo = ip[12:20] + struct.pack("!BBH", 0, 17, len(udp))
            if internet_checksum(pseudo + udp) != 0:
                problems.append(f"UDP checksum {udp_sum:04x} is wrong")
    return checked, problems


def stf_frames(path: Path) -> list[tuple[int, str, bytes]]:
    """(line number, 'packet'|'expect', Ethernet frame) of lines with fully specified data."""
    frames = []
    for number, raw in enumerate(path.read_text().splitlines(), start=1):
        words = raw.split("#", 1)[0].split()
        if len(words) < 3 or words[0] not in ("packet", "expect"):
            continue
        data = "".join(words[2:]).rstrip("$")
        if "*" in data:
            continue
        frame = bytes.fromhex(data)
        if int(words[1]) == CPU_PORT:  # packet_out / packet_in header before the frame
            frame = frame[2:]
        frames.append((number, words[0], frame))
    return frames


def test_stf_files_present():
    assert len(STF_FILES) >= 12, f"expected the MRC STF suite in {STF_DIR}"


def test_stf_checksums_are_right():
    """Expected packets must carry checksums computed from scratch; input packets must be
    valid so that the switch's incremental updates start from a correct value."""
    checked, problems = 0, []
    for path in STF_FILES:
        for line, kind, frame in stf_frames(path):
            n, bad = checksum_problems(frame)
            checked += n
            problems += [f"{path.name}:{line} ({kind}): {p}" for p in bad]
    assert not problems, "\n".join(problems)
    assert checked > 60  # the suite is checksum-heavy; guards against a parser that skips all


def test_checksum_helper_catches_a_wrong_checksum():
    frame = bytearray(bytes.fromhex(
        "000000000101000000000201080045020054000140003f1124950a0002010a000101"))
    assert checksum_problems(bytes(frame)) == (1, [])
    frame[14 + 10] ^= 0x01
    assert checksum_problems(bytes(frame))[1]


@pytest.fixture(scope="module")
def fresh_device():
    from p4emu.stf.cli import build_device

    return build_device(str(PROGRAM), [], {}, priority_queues=PRIORITY_QUEUES)


@pytest.mark.parametrize("stf", STF_FILES, ids=[p.name for p in STF_FILES])
def test_stf(fresh_device, stf):
    from p4emu.stf.cli import run_files

    results, errors = run_files(fresh_device, [str(stf)])
    assert not errors, "\n".join(errors)
    (result,) = results
    assert result.ok, "\n".join(result.report_lines())
    assert result.passed > 0


def _run_cli(*stf: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "p4emu", "stf", "--priority-queues",
                           str(PRIORITY_QUEUES), str(PROGRAM), *map(str, stf)],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)


def test_cli_runs_whole_suite():
    proc = _run_cli(*STF_FILES)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    # one line per file, each with its expectations met and none failed
    summary = re.findall(r"^(\S+\.stf): (\d+) passed, (\d+) failed$", proc.stdout, re.M)
    assert [Path(name).name for name, _, _ in summary] == [p.name for p in STF_FILES], \
        proc.stdout
    assert all(int(passed) > 0 and failed == "0" for _, passed, failed in summary), proc.stdout


def _break_first_expect(text: str) -> str:
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("expect "):
            # TTL byte of the first expected packet: 3f -> 40 (as if TTL were not decremented)
            lines[i] = line.replace("3f11", "4011", 1)
            assert lines[i] != line
            return "\n".join(lines) + "\n"
    raise AssertionError("no expect line")


def test_cli_fails_on_a_wrong_packet_expectation(tmp_path):
    source = STF_DIR / "downlink_ttl_checksum.stf"
    broken = tmp_path / "wrong_ttl.stf"
    broken.write_text(_break_first_expect(source.read_text()))
    proc = _run_cli(broken)
    assert proc.returncode == 1, proc.stdout + proc.stderr


def test_cli_fails_on_a_wrong_counter_expectation(tmp_path):
    source = STF_DIR / "ttl_expired_dropped.stf"
    broken = tmp_path / "wrong_counter.stf"
    broken.write_text(source.read_text().replace("drops(4) packets == 2", "drops(4) packets == 3"))
    assert broken.read_text() != source.read_text()
    proc = _run_cli(broken)
    assert proc.returncode == 1, proc.stdout + proc.stderr
