"""Bad input to `mrclab exercise`: one line on stderr, exit 2, no traceback; student code
that breaks or hangs fails its check within the check's time bound."""

from __future__ import annotations

import csv
import dataclasses
import shutil
import subprocess
import sys
import time

import pytest

from mrclab.cli import main
from mrclab.exercises.catalog import ORDER, load_exercise
from mrclab.exercises.results import FAIL
from mrclab.exercises.runner import run_checks
from mrclab.exercises.workspace import start


def run_cli(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(["exercise", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def one_line_error(code: int, err: str) -> str:
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


def test_list_names_every_exercise(capsys):
    code, out, _ = run_cli(capsys, "list")
    assert code == 0
    assert [line.split()[0] for line in out.splitlines()] == list(ORDER)


def test_unknown_exercise(capsys, tmp_path):
    line = one_line_error(*run_cli(capsys, "check", "sprya", "--dir", str(tmp_path))[::2])
    assert "unknown exercise 'sprya'" in line and "spray" in line


@pytest.mark.parametrize("make, message", [
    (lambda p: p, "is not a started exercise"),
    (lambda p: p / "missing", "is not a folder"),
])
def test_folder_that_is_not_a_started_exercise(capsys, tmp_path, make, message):
    line = one_line_error(*run_cli(capsys, "check", "spray", "--dir", str(make(tmp_path)))[::2])
    assert message in line and "mrclab exercise start spray" in line


def test_folder_of_another_exercise(capsys, tmp_path):
    assert run_cli(capsys, "start", "trim", "--dir", str(tmp_path / "w"))[0] == 0
    line = one_line_error(*run_cli(capsys, "check", "spray", "--dir", str(tmp_path / "w"))[::2])
    assert "holds exercise 'trim', not 'spray'" in line


def test_start_never_overwrites_a_students_work(capsys, tmp_path):
    assert run_cli(capsys, "start", "spray", "--dir", str(tmp_path))[0] == 0
    (tmp_path / "mrc.p4").write_text("my work")
    line = one_line_error(*run_cli(capsys, "start", "spray", "--dir", str(tmp_path))[::2])
    assert "already holds mrc.p4" in line
    assert (tmp_path / "mrc.p4").read_text() == "my work"


def test_program_that_does_not_compile_gives_the_compilers_message(capsys, tmp_path):
    run_cli(capsys, "start", "trim", "--dir", str(tmp_path))
    program = tmp_path / "mrc.p4"
    program.write_text(program.read_text().replace(
        "    action trim() {\n", "    action trim() {\n        hdr.mrc.flags = oops;\n", 1))
    line = one_line_error(*run_cli(capsys, "check", "trim", "--dir", str(tmp_path))[::2])
    assert "mrc.p4 does not compile" in line and "oops" in line
    assert "error" in line.lower()


def _failover(tmp_path, body: str):
    ws = start(load_exercise("failover"), tmp_path)
    (tmp_path / "policy.py").write_text(body)
    return ws


def test_student_python_that_does_not_import_fails_its_checks(tmp_path):
    ws = _failover(tmp_path, "def next_hops(fabric, down):\n    return {\n")
    report = run_checks(ws, fabric=False)
    assert all(r.status == FAIL for r in report.results if r.status != "skip")
    assert "policy.py:2: SyntaxError" in report.results[0].detail


def test_student_exception_names_their_line(tmp_path):
    ws = _failover(tmp_path, "def next_hops(fabric, down):\n    return 1 / 0\n")
    detail = run_checks(ws, fabric=False).results[0].detail
    assert detail.startswith("policy.py:2: ZeroDivisionError"), detail


def test_a_hanging_check_is_stopped_at_its_time_bound(tmp_path):
    ws = _failover(tmp_path, "def next_hops(fabric, down):\n    while True:\n        pass\n")
    quick = tuple(dataclasses.replace(c, timeout=3.0) for c in ws.exercise.checks)
    ws = dataclasses.replace(ws, exercise=dataclasses.replace(ws.exercise, checks=quick))
    started = time.monotonic()
    report = run_checks(ws, fabric=False)
    ran = [r for r in report.results if r.status != "skip"]
    no_root = [c for c in ws.exercise.checks if c.kind != "fabric"]
    assert len(ran) == len(no_root) == 7
    assert all(r.detail == "timed out after 3 s" for r in ran)
    assert time.monotonic() - started < 60


def test_grade_writes_one_row_per_submission(capsys, tmp_path):
    subs = tmp_path / "class"
    run_cli(capsys, "start", "signals", "--dir", str(subs / "alice"), "--solution")
    run_cli(capsys, "start", "signals", "--dir", str(subs / "bob"))
    (subs / "carol").mkdir()  # never started
    run_cli(capsys, "start", "signals", "--dir", str(subs / "dave"))
    (subs / "dave" / "mrc.p4").write_text("control {")
    code, out, _ = run_cli(capsys, "grade", "signals", str(subs), "--no-fabric")
    assert code == 0 and "4 submissions graded" in out
    rows = list(csv.DictReader((subs / "scores-signals.csv").open()))
    by = {r["student"]: r for r in rows}
    assert list(by) == ["alice", "bob", "carol", "dave"]
    no_root = sum(c.points for c in load_exercise("signals").checks if c.kind != "fabric")
    assert by["alice"]["earned"] == by["alice"]["possible"] == str(no_root)
    assert by["alice"]["percent"] == "100.0" and by["alice"]["error"] == ""
    assert 0 < int(by["bob"]["earned"]) < no_root
    assert by["bob"]["ECN CE at the threshold, with the IPv4 checksum fixed"] == "0"
    assert by["carol"]["earned"] == "0" and "not a started exercise" in by["carol"]["error"]
    assert by["dave"]["earned"] == "0" and "does not compile" in by["dave"]["error"]
    fabric = "fabric: incast is marked and qmax reaches the sender"
    assert by["alice"][fabric] == "skip"


@pytest.mark.skipif(shutil.which("simple_switch_grpc") is not None, reason="BMv2 is installed")
def test_bmv2_target_without_bmv2_says_what_is_missing(capsys, tmp_path):
    run_cli(capsys, "start", "spray", "--dir", str(tmp_path))
    line = one_line_error(*run_cli(capsys, "check", "spray", "--dir", str(tmp_path),
                                   "--target", "bmv2")[::2])
    assert "target bmv2 needs" in line and "p4emu" in line


@pytest.mark.parametrize("module, flag, flag_args", [
    ("mrclab.exercises.student_controller", "--exercise-policy", ["--topology", "x.json"]),
    ("mrclab.exercises.student_endpoint", "--exercise-policy", ["send", "--dst", "10.0.0.1"]),
    ("mrclab.exercises.student_endpoint", "--exercise-window", ["send", "--dst", "10.0.0.1"]),
    ("mrclab.exercises.student_endpoint", "--exercise-planes", ["send", "--dst", "10.0.0.1"]),
])
def test_shims_refuse_a_broken_student_file_in_one_line(tmp_path, module, flag, flag_args):
    bad = tmp_path / "student.py"
    bad.write_text("def next_hops(:\n")
    proc = subprocess.run([sys.executable, "-m", module, flag, str(bad),
                           *flag_args], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "student.py:1: SyntaxError" in lines[0], proc.stderr
