"""The raw MRC packet generator's pure parts: EV sequences, route words, plan checks."""

from __future__ import annotations

from collections import Counter

import pytest

from endpoint.blast import BlastPlan, ev_sequence, route_word
from endpoint.cli import main


def test_route_word_puts_the_first_hop_in_the_top_byte():
    assert route_word((3, 4, 2)) == 0x0304020000000000
    assert route_word(()) == 0


def test_cycle_visits_every_ev_equally():
    counts = Counter(ev_sequence(BlastPlan(count=640, ev_mode="cycle", ev=100, evs=64)))
    assert sorted(counts) == list(range(100, 164))
    assert set(counts.values()) == {10}


def test_fixed_uses_one_ev_and_random_stays_in_the_pool():
    assert set(ev_sequence(BlastPlan(count=50, ev_mode="fixed", ev=7))) == {7}
    seq = list(ev_sequence(BlastPlan(count=500, ev_mode="random", ev=10, evs=8, seed=3)))
    assert set(seq) == set(range(10, 18))
    assert seq == list(ev_sequence(BlastPlan(count=500, ev_mode="random", ev=10, evs=8,
                                             seed=3)))  # reproducible from the seed


@pytest.mark.parametrize("kwargs", [{"ev_mode": "zigzag"}, {"route": (1,) * 9},
                                    {"route": (0,)}, {"route": (256,)}])
def test_bad_plans_are_rejected(kwargs):
    with pytest.raises(ValueError):
        BlastPlan(count=1, **kwargs)


@pytest.mark.parametrize("argv, needle", [
    (["--ev", "abc"], "--ev"), (["--route", "1,x"], "--route"),
    (["--route", "1,300"], "route"), (["--payload", "99999"], "--payload"),
])
def test_cli_reports_bad_input_in_one_line(argv, needle, capsys):
    assert main(["blast", "--dst", "10.0.0.2", "--count", "3", *argv]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and needle in err[0]
