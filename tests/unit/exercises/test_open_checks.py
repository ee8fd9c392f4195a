"""The open experiment's checker: quoted numbers matched to the results at the precision
quoted, commands parsed, the design read from them (no experiment runs)."""

from __future__ import annotations

from decimal import Decimal

import pytest

from mrclab.exercises.open_checks import (
    Output,
    Problem,
    check_quote,
    commands,
    design_of,
    matches,
    parse_quote,
    sections,
    unmarked,
)


def _sweep(name: str = "sw") -> Output:
    cmd = commands(f"```sh\nmrclab sweep incast --quick --seeds 1-2 --param trim=4,8 "
                   f"--out {name}\n```")[0]
    summary = [{"trim": t, "figure": "trim N=4 slowdown", "n": "2", "mean": m, "std": "0.1",
                "ci95": "0.9"} for t, m in (("4", "1.8866666"), ("8", "2.25"))]
    runs = [{"trim": "4", "seed": "1", "run": "a", "faithful": "True", "error": "",
             "seconds": "1", "trim N=4 slowdown": "1.84"},
            {"trim": "4", "seed": "2", "run": "b", "faithful": "True", "error": "",
             "seconds": "1", "trim N=4 slowdown": "1.9333"}]
    return Output(name, cmd, {"command": cmd.text}, summary, runs)


@pytest.mark.parametrize("quoted, value, ok", [
    ("0.7166", 0.71660927, True), ("0.7166", 0.71655, True), ("0.7166", 0.71649, False),
    ("0.72", 0.7166, True), ("0.71", 0.7166, False), ("4", 4.4, True), ("4", 4.6, False),
    ("9.2e-05", 9.24e-05, True), ("9.2e-05", 9.3e-05, False),
])
def test_a_number_matches_to_the_digits_quoted(quoted, value, ok):
    assert matches(parse_quote(f"x: {quoted}"), value) is ok


def test_a_percentage_compares_the_figure_times_100():
    q = parse_quote("ev mean @ ecn=8: 72 %")
    assert q.percent and matches(q, 0.7166) and not matches(q, 0.7266)


def test_a_quote_names_its_figure_configuration_and_folder():
    q = parse_quote("trim N=15 slowdown @ trim=4, seed=2 in runs/a: 2.27")
    assert (q.figure, q.where, q.folder, q.number) == \
        ("trim N=15 slowdown", {"trim": "4", "seed": "2"}, "runs/a", Decimal("2.27"))
    with pytest.raises(Problem, match="expected"):
        parse_quote("ev mean: NUMBER")


def test_sweep_quotes_match_means_intervals_or_one_seed():
    out = _sweep()
    for good in ("trim N=4 slowdown @ trim=4: 1.887", "trim N=4 slowdown @ trim=4: 0.9",
                 "trim N=4 slowdown @ trim=4, seed=2: 1.933", "trim N=4 slowdown: 2.25"):
        assert check_quote(parse_quote(good), [out]) == "", good
    wrong = check_quote(parse_quote("trim N=4 slowdown @ trim=8: 1.887"), [out])
    assert "at trim=8" in wrong and "mean 2.25" in wrong and "none is 1.887" in wrong
    assert "no figure 'drop slowdown'" in check_quote(parse_quote("drop slowdown: 1"), [out])
    assert "no parameter 'ecn'" in check_quote(parse_quote("trim N=4 slowdown @ ecn=4: 1"),
                                               [out])
    assert "no output folder other" in check_quote(
        parse_quote("trim N=4 slowdown in other: 2.25"), [out])


def test_single_run_quotes_use_summary_columns_and_the_setup():
    cmd = commands("```sh\n.venv/bin/mrclab sim incast --quick --trim 4 --out a\n```")[0]
    summary = [{"mode": "trim", "n": "15", "slowdown": "2.06"},
               {"mode": "droptail", "n": "15", "slowdown": "3.14"}]
    out = Output("a", cmd, {"setup": {"trim_threshold": 4, "seed": 1}}, summary, [])
    assert check_quote(parse_quote("slowdown @ mode=trim, n=15: 2.06"), [out]) == ""
    assert check_quote(parse_quote("droptail slowdown @ trim=4: 3.1"), [out]) == ""
    assert "ran with trim=4" in check_quote(parse_quote("slowdown @ trim=8: 2.06"), [out])


def test_the_design_is_read_from_the_commands():
    sweep = commands("```sh\nmrclab sweep permutation --engine sim --seeds 1-3 "
                     "--param ecn=2,4 --out x\n```")
    varied, seeds, _ = design_of(sweep)
    assert varied == {"ecn": {"2", "4"}} and seeds == {1, 2, 3}
    sims = commands("```sh\n" + "\n".join(
        f"mrclab sim incast --quick --trim {t} --seed {s} --out r{t}{s}"
        for t in (4, 8) for s in (1, 2)) + "\n```")
    varied, seeds, _ = design_of(sims)
    assert varied["trim"] == {"4", "8"} and seeds == {1, 2}
    with pytest.raises(Problem, match="not an mrclab command"):
        commands("```sh\ncd ~/open\nmrclab sim incast --out a\n```")
    with pytest.raises(Problem, match="not on the simulator"):
        commands("```sh\nmrclab sweep incast --engine lab --out a\n```")


def test_sections_and_unmarked_numbers():
    parts = sections("# T\n## Question\nWhy?\n## Results\nmean [[ev mean: 0.5]] and 0.61, "
                     "N=15, ![p](a/b.png) `x 1.5`\n")
    assert set(parts) == {"question", "results"}
    assert unmarked(parts["results"]) == ["0.61"]
