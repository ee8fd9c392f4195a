"""Options, rates, plans and bad input: one-line errors before any lab starts."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from mrclab.controller.next_hops import SourceRoutes
from mrclab.experiments import permutation, plans, registry, runner
from mrclab.experiments.config import (
    ExperimentError,
    Options,
    check_rate,
    parse_rate,
    payload_ceiling,
)
from mrclab.experiments.progress import Progress
from mrclab.fabric.spec import parse_spec


@pytest.mark.parametrize("text,bps", [("4M", 4_000_000), ("500k", 500_000),
                                       ("2.5Mb/s", 2_500_000), ("1000000", 1_000_000)])
def test_parse_rate(text, bps):
    assert parse_rate(text) == bps


def test_bad_rates_are_one_line_errors():
    with pytest.raises(ExperimentError, match="bad rate"):
        parse_rate("fast")
    with pytest.raises(ExperimentError, match="outside what p4emu emulates"):
        check_rate("p4emu", 900_000_000)
    with pytest.raises(ExperimentError, match="packets/s"):
        check_rate("bmv2", 100_000_000)
    check_rate("bmv2", 2_000_000)


def test_plan_rejects_unknown_experiments_and_impossible_input():
    with pytest.raises(ExperimentError, match="unknown experiment 'nope'"):
        runner.plan(Options("nope"))
    with pytest.raises(ExperimentError, match="N=20 is larger than fattree:k=4 allows"):
        runner.plan(Options("incast", incast_n=(4, 20)))
    with pytest.raises(ExperimentError, match="--senders applies to the incast"):
        runner.plan(Options("permutation", incast_n=(4,)))
    with pytest.raises(ExperimentError, match="outside"):
        runner.plan(Options("failure", rate="1G"))


def test_duration_sets_the_permutation_flows_length_on_either_engine():
    _, sim = runner.plan(Options("permutation", engine="sim", duration="500us"))
    assert sim.params["seconds"] == pytest.approx(5e-4)
    assert sim.params["min_window_s"] == pytest.approx(5e-5)
    _, lab = runner.plan(Options("permutation", duration="20s"))
    assert lab.params["seconds"] == 20 and all(t == 28 for _, t in lab.phases)
    flows = permutation.traffic(sim, parse_spec(sim.spec), sim.params["seconds"])
    _, default = runner.plan(Options("permutation", engine="sim"))  # 1.5 ms: ev's marks
    assert default.params["seconds"] == pytest.approx(1.5e-3)
    three = permutation.traffic(default, parse_spec(default.spec), 1.5e-3)[0].size
    assert 3 * flows[0].size == pytest.approx(three, abs=3)


def test_rate_option_keeps_the_fabric_to_host_ratio():
    _, setup = runner.plan(Options("failure", rate="3M"))
    assert setup.rate_bps == 3_000_000 and setup.fabric_rate_bps == 6_000_000
    assert setup.rate_source == "option"


def test_every_registered_experiment_plans_quick_and_full():
    for name in registry.NAMES:
        engine = registry.get(name).ENGINES[0]
        for quick in (False, True):
            module, setup = runner.plan(Options(name, quick=quick, engine=engine))
            assert setup.experiment == name and setup.phases
            assert all(hasattr(module, f) for f in ("run", "analyse", "tables", "figures",
                                                    "goals", "traffic"))


@pytest.mark.parametrize("spec", ["fattree:k=4", "fattree:k=8", "fattree:k=12",
                                  "leafspine:leaves=3,spines=2,hosts=4"])
def test_cross_pod_permutation_is_a_derangement_across_pods(spec):
    # k=8 and up: hardly one uniform shuffle in millions fits, the repair finds one
    fabric = parse_spec(spec)
    pairs = plans.cross_group_permutation(fabric, seed=7)
    assert sorted(s for s, _ in pairs) == sorted(d for _, d in pairs) == sorted(fabric.hosts)
    assert all(fabric.hosts[s].group != fabric.hosts[d].group for s, d in pairs)
    assert pairs == plans.cross_group_permutation(fabric, seed=7)
    assert pairs != plans.cross_group_permutation(fabric, seed=8)


def test_incast_senders_prefer_other_pods_and_refuse_too_many():
    fabric = parse_spec("fattree:k=4")
    senders = plans.incast_senders(fabric, "h16", 8, seed=1)
    assert len(set(senders)) == 8 and "h16" not in senders
    assert all(fabric.hosts[s].group != fabric.hosts["h16"].group for s in senders)
    assert len(plans.incast_senders(fabric, "h16", 15, seed=1)) == 15
    with pytest.raises(plans.PlanError):
        plans.incast_senders(fabric, "h16", 16, seed=1)


def test_core_links_of_a_fat_tree():
    links = plans.core_links(parse_spec("fattree:k=4"))
    assert len(links) == 16 and all(a.startswith("a") and c.startswith("c")
                                    for a, _, c, _ in links)


def test_mtu_is_the_experiments_default_or_the_option():
    assert runner.plan(Options("permutation"))[1].mtu == 9000  # jumbo: a throughput question
    assert runner.plan(Options("incast"))[1].mtu == 1500  # queues counted in packets
    _, setup = runner.plan(Options("permutation", mtu=1500, rate="2M"))
    assert setup.mtu == 1500 and setup.payload_ceiling(True) == pytest.approx(1432 / 1596)
    with pytest.raises(ExperimentError, match="bad MTU 100"):
        runner.plan(Options("permutation", mtu=100))
    # BMv2 shapes packets/s: the effective rate is whole jumbo frames
    _, setup = runner.plan(Options("permutation", target="bmv2", rate="4M"))
    assert setup.link_rate == 56 * 9000 * 8


def test_header_queue_holds_the_bytes_of_the_data_queue():
    _, incast = runner.plan(Options("incast"))
    assert (incast.queue_depth, incast.high_priority_depth) == (64, 64 * 1514 // 82)
    _, perm = runner.plan(Options("permutation"))  # jumbo frames
    assert perm.high_priority_depth == 64 * 9014 // 82


def test_payload_ceiling():
    assert payload_ceiling(1500, False) == pytest.approx(1432 / 1514)
    assert payload_ceiling(1500, True) == pytest.approx(1432 / (1514 + 82))
    assert payload_ceiling(9000, True) == pytest.approx(8932 / (9014 + 82))


def test_progress_line_counts_phases_and_rescales_the_estimate():
    lines, now = [], [0.0]
    p = Progress("permutation", [("ecmp", 10), ("ev", 10), ("random", 10)], lines.append,
                 clock=lambda: now[0])
    p.phase("ecmp")
    assert lines[-1] == "[00:00] permutation: ecmp (1/3), about 30 s left"
    now[0] = 20.0  # the first phase took twice its estimate
    p.phase("ev")
    assert lines[-1] == "[00:20] permutation: ev (2/3), about 40 s left"


def test_chosen_modes_run_in_the_order_given_and_the_progress_line_follows():
    _, setup = runner.plan(Options("permutation", engine="sim", quick=True,
                                   modes=["source", "ev", "ecmp"]))
    assert setup.params["modes"] == ["source", "ev", "ecmp"]
    assert [name for name, _ in setup.phases] == ["source", "ev", "ecmp"]
    lines, now = [], [0.0]
    p = Progress("permutation", setup.phases, lines.append, clock=lambda: now[0])
    for mode in setup.params["modes"]:
        p.phase(mode)
    assert lines[-1].startswith("[00:00] permutation: ecmp (3/3)")
    p.phase("extra")  # a phase nobody announced ends the count, not the run
    assert "(3/3)" in lines[-1]


def test_mrclab_experiment_subcommand(capsys):
    from mrclab.cli import build_parser, main

    args = build_parser().parse_args(["experiment", "incast", "--quick", "--senders", "4,8",
                                      "--target", "p4emu", "--rate", "2M", "--seed", "3"])
    assert args.command == "experiment" and args.senders == (4, 8) and args.quick
    # bad input: one line on stderr, exit 2, before any root check or lab
    assert main(["experiment", "incast", "--target", "p4emu", "--senders", "4,99"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "N=99 is larger than fattree:k=4 allows" in err
    assert main(["experiment", "all", "--target", "p4emu", "--rate", "0.001"]) == 2
    assert "outside what p4emu emulates" in capsys.readouterr().err


def test_source_routed_flows_carry_every_path_per_destination_plane():
    fabric = parse_spec("multiplane:planes=2,base=fattree:k=4")
    flow = plans.Flow("h1", "h16", 1000, seed=1, send_args=("--min-rto", "0.2"))
    both, second = plans.with_source_routes(SourceRoutes(fabric), [flow, replace(flow, planes=(1,))])
    routes = list(both.send_args[3::2])
    assert both.send_args[:2] == ("--min-rto", "0.2") and len(routes) == 8
    assert {r.split(":")[0] for r in routes} == {"0", "1"}  # 4 paths on each plane
    # first hops alternate (spread order)
    assert routes[:4] == ["0:3,3,4,2,2", "0:4,3,4,2,2", "0:3,4,4,2,2", "0:4,4,4,2,2"]
    # only plane 1's NIC is the destination: it is position 0 of --dst
    assert list(second.send_args[3::2]) == routes[:4]


def test_a_session_on_a_source_spraying_fabric_gives_the_senders_their_routes(monkeypatch):
    from contextlib import nullcontext
    from types import SimpleNamespace

    from mrclab.experiments.lab_engine import session as live

    class Captured(Exception):
        pass

    def capture(lab, workdir, plan, timeout, during, link_rate_bps):
        assert link_rate_bps == 0.0  # the lab's receivers NACK at once unless asked
        raise Captured(plan)

    monkeypatch.setattr(live.flows, "run_flows", capture)
    monkeypatch.setattr(live.machine, "Monitor", lambda lab: nullcontext())
    monkeypatch.setattr(live.Session, "counters", lambda self, switches=None: {})
    lab = SimpleNamespace(fabric=parse_spec("fattree:k=4"), ask=lambda *a, **kw: {})
    _, setup = runner.plan(Options("permutation"))
    s = live.Session(lab, setup, Path("/nonexistent"), print)
    plan = [plans.Flow("h1", "h16", 1000, seed=1)]
    sent = {}
    for mode in ("ev", "source"):
        s.set_spray(mode)
        with pytest.raises(Captured) as got:
            s.run_flows(mode, plan, timeout=1.0)
        sent[mode] = got.value.args[0][0].send_args
    assert sent["ev"] == ()
    assert sent["source"] == plans.with_source_routes(SourceRoutes(lab.fabric), plan)[0].send_args
    assert sent["source"].count("--route") == 4
