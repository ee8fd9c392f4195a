"""The soak's schedule, its growth figures and its summary (the lab run itself is
`make soak`, root)."""

from __future__ import annotations

import os

import pytest

from mrclab.lab.soak import SoakPlan, SoakRecord, parse_args
from mrclab.lab.soak_figures import ProcessSample, growth, plot_samples


def test_the_hour_s_schedule():
    events = SoakPlan().events()
    assert [t for t, what in events if what == "link"] == [60.0 * i for i in range(1, 60)]
    assert [t for t, what in events if what == "switch"] == [600.0 * i for i in range(1, 6)]
    assert [t for t, what in events if what == "controller"] == [1800.0]
    assert events == sorted(events)
    short = SoakPlan(duration=180, link_every=30, link_down_for=10, switch_every=90,
                     controller_at=100)
    assert short.events() == [(30, "link"), (60, "link"), (90, "link"), (90, "switch"),
                              (100, "controller"), (120, "link"), (150, "link")]


def _samples(role, pid, start, values, step=10.0):
    return [ProcessSample(role, pid, start + i * step, rss, fds)
            for i, (rss, fds) in enumerate(values)]


def test_growth_is_judged_per_lifetime_after_its_warm_up():
    flat = _samples("shard1", 10, 0, [(50_000, 30)] * 3 + [(100_000, 40)] + [(100_000, 40)] * 9)
    leaky = _samples("controller", 11, 0, [(80_000, 20)] * 4 +
                     [(80_000 + 2000 * i, 20 + i) for i in range(9)])
    young = _samples("shard1", 12, 100, [(60_000, 30)] * 3)  # restarted: too short to judge
    result = growth(flat + leaky + young, warmup=30)
    assert result["shard1 (pid 10)"]["rss"] == 0.0 and result["shard1 (pid 10)"]["fds"] == 0.0
    assert result["controller (pid 11)"]["rss"] == pytest.approx(16_000 / 80_000)
    assert result["controller (pid 11)"]["fds"] == pytest.approx(8 / 20)
    assert "shard1 (pid 12)" not in result


def test_a_process_is_sampled_from_proc_and_a_gone_one_is_none(tmp_path):
    me = ProcessSample.read("test", os.getpid(), 1.0)
    assert me.rss_kb > 1000 and me.fds >= 3 and me.pid == os.getpid()
    assert ProcessSample.read("gone", 2 ** 22 + 12345, 1.0) is None
    plot_samples([me, ProcessSample("test", me.pid, 70.0, me.rss_kb, me.fds)],
                 tmp_path / "soak.png", markers=[(30.0, "link")])
    assert (tmp_path / "soak.png").stat().st_size > 1000


def test_the_summary_counts_reroutes_of_down_links():
    record = SoakRecord(SoakPlan(duration=120), "fattree:k=4", "p4emu", transfers_done=7,
                        link_failures=2, elapsed_s=120)
    record.reroutes = [{"status": "down", "from_command_s": 0.4},
                       {"status": "up", "from_command_s": 0.1},
                       {"status": "down", "from_command_s": 0.2}]
    summary = record.summary()
    assert summary["rerouted"] == 2 and summary["reroute_s_max"] == 0.4
    assert summary["reroute_s_median"] == 0.4 and summary["transfers_lost"] == 0


@pytest.mark.parametrize("argv, message", [
    (["--minutes", "0"], "--minutes must be > 0"),
    (["--link-every", "10", "--link-down-for", "20"], "--link-down-for must be shorter"),
    (["--target", "tofino"], "invalid choice"),
])
def test_bad_input_is_one_line(argv, message, capsys):
    with pytest.raises(SystemExit) as exit_:
        parse_args(argv)
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and message in err and len(err.strip().splitlines()) == 1
