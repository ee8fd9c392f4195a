"""`mrclab sim permutation`: figures from the virtual-time fabric, one-line errors."""

import json

import pytest

from mrclab.cli import main


def test_a_tiny_permutation_runs_every_mode_and_writes_its_results(tmp_path, capsys):
    out = tmp_path / "perm.json"
    assert main(["sim", "permutation", "--modes", "ecmp,source", "--seconds", "10e-6",
                 "--json", str(out)]) == 0
    result = json.loads(out.read_text())
    assert result["engine"] == "sim"
    summary = {row["mode"]: row for row in result["summary"]}
    assert set(summary) == {"ecmp", "source"}
    assert all(row["completed"] == row["flows"] == 16 for row in summary.values())
    assert all(0 < row["mean"] <= 1.0 for row in summary.values())
    printed = capsys.readouterr().out
    assert "ecmp" in printed and "16/16 flows done" in printed


@pytest.mark.parametrize("argv, words", [
    (["--spec", "fattree:k=3"], "k=3"),
    (["--fail", "link:c1@1"], "--fail 'link:c1@1'"),
    (["--fail", "plane:7@0"], "no plane 7"),
    (["--modes", "warp"], "spray mode 'warp'"),
    (["--rate", "0"], "bad rate '0'"),
    (["--seconds", "0"], "--seconds must be > 0"),
])
def test_bad_input_is_one_line_naming_it(argv, words, capsys):
    try:
        status = main(["sim", "permutation", *argv])
    except SystemExit as exc:  # argparse's own checks (the rate) exit from the parser
        status = exc.code
    assert status == 2
    err = capsys.readouterr().err.strip()
    assert words in err and len(err.splitlines()) == 1
