"""Run one experiment end to end: lab up, rates, (calibration), traffic, analysis, outputs.

Whatever happens (an error, Ctrl-C, SIGTERM) the endpoint processes are killed and the lab
is stopped before returning, so no process, namespace or link is left behind.
"""

from __future__ import annotations

import contextlib
import logging
import signal
import time
from dataclasses import replace
from pathlib import Path

from mrclab.experiments import registry, report
from mrclab.experiments.config import (
    EXPERIMENT_OPTIONS,
    ExperimentError,
    Options,
    Setup,
    check_mtu,
    check_rate,
    parse_delay,
    parse_rate,
)
from mrclab.experiments.progress import Progress
from mrclab.experiments.registry import Experiment
from mrclab.experiments.validity import Verdict, combine

log = logging.getLogger(__name__)

# fallback ladder for --rate auto, fastest first (bits/s per link)
AUTO_RATES = {"p4emu": (16e6, 12e6, 8e6, 6e6, 4e6, 3e6, 2e6, 1.5e6, 1e6, 5e5),
              "bmv2": (12e6, 8e6, 6e6, 4e6, 2e6, 1e6, 5e5)}
CALIBRATION_S = 2.5
# --rate auto: the ev-sprayed flows must carry this share of the link rate, or the CPU,
# not the fabric, sets the pace (docs/experiments.md, "Why the defaults")
MIN_FILL = 0.75
# gRPC / Thrift port bases: apart from the demo's and the tests', and below Linux's
# ephemeral range (32768-60999), where an outgoing connection can hold a switch's port
# (seen: a 40-switch lab whose switch could not bind 53120)
EXPERIMENT_PORTS = (29100, 12100)


def plan(opts: Options) -> tuple[Experiment, Setup]:
    """The experiment module and its setup for `opts`; ExperimentError on bad input."""
    module = registry.get(opts.name)
    if opts.engine not in module.ENGINES:
        raise ExperimentError(f"{opts.name} runs on the engine(s) {', '.join(module.ENGINES)} "
                              f"only, not {opts.engine}")
    if opts.engine == "sim" and opts.target != "p4emu":  # a sweep's --param target=
        raise ExperimentError(f"--target {opts.target}: the simulator's switches are p4emu's "
                              "pipeline; the target is the lab's choice")
    if opts.spec is not None:  # the experiment's setup takes it; checked first
        from mrclab.fabric.spec import parse_spec

        try:
            parse_spec(opts.spec)
        except ValueError as exc:
            raise ExperimentError(f"--spec {opts.spec!r}: {exc}") from None
    if opts.duration is not None and not getattr(module, "TAKES_DURATION", False):
        raise ExperimentError(f"--duration: {opts.name} has no flow length to set "
                              "(the permutation and failover have)")
    if opts.fail_at is not None and not getattr(module, "TAKES_FAIL_AT", False):
        raise ExperimentError(f"--fail-at: {opts.name} has no failure times to set "
                              "(failover has)")
    own = getattr(module, "OWN_OPTIONS", ())
    for name, flag in EXPERIMENT_OPTIONS.items():
        if getattr(opts, name) is not None and name not in own:
            raise ExperimentError(f"{flag}: {opts.name} does not take it")
    setup = _fabric_options(opts, _base_setup(module, opts))
    if opts.modes is not None:
        known = module.MODES
        wrong = [m for m in opts.modes if m not in known]
        if not known or "modes" not in setup.params:
            raise ExperimentError(f"--modes: {opts.name} has no modes to choose from")
        if wrong or not opts.modes:
            raise ExperimentError(f"--modes {','.join(opts.modes)!r}: {opts.name}'s modes are "
                                  f"{', '.join(known)}")
        # the phases in the order the modes run (the order given), for the progress line
        chosen = [p for p in setup.phases if p[0].split()[0] in opts.modes]
        chosen.sort(key=lambda p: opts.modes.index(p[0].split()[0]))
        setup = replace(setup, params={**setup.params, "modes": list(opts.modes)},
                        phases=chosen)
    if opts.mtu is not None:
        check_mtu(opts.mtu)
        setup = replace(setup, mtu=opts.mtu)
    if opts.engine == "sim" and opts.rate == "auto":
        raise ExperimentError("--rate auto finds what this machine keeps up with: the lab's "
                              "question, not the simulator's (give a rate, e.g. 400G)")
    if opts.rate not in (None, "auto"):
        bps = parse_rate(opts.rate)
        limits = "sim" if opts.engine == "sim" else opts.target
        check_rate(limits, bps, setup.mtu)
        trial = setup.at_rate(bps, "option")  # the fabric keeps its ratio to the hosts
        if trial.fabric_rate_bps:
            check_rate(limits, trial.fabric_rate_bps, setup.mtu)
        setup = trial
    return module, setup


def _base_setup(module: Experiment, opts: Options) -> Setup:
    """The experiment's own setup for the engine, or with `--figures lab` its lab setup run
    on the simulator (to compare the engines on the same figures)."""
    if opts.figures == "own":
        return module.setup(opts)
    if opts.figures != "lab":
        raise ExperimentError(f"--figures {opts.figures!r}: own or lab")
    if opts.engine != "sim":
        raise ExperimentError("--figures lab applies to the simulator (--engine sim): the "
                              "lab always runs its own figures")
    lab = module.setup(replace(opts, engine="lab", target="p4emu"))
    return replace(lab, engine="sim", figures="lab")


def _fabric_options(opts: Options, setup: Setup) -> Setup:
    """`setup` with the queue and link options the user gave; ExperimentError naming a
    bad one."""
    changes: dict = {}
    for name, value, field_name, low in (("--queue-depth", opts.queue_depth, "queue_depth", 1),
                                         ("--trim", opts.trim, "trim_threshold", 0),
                                         ("--ecn", opts.ecn, "ecn_threshold", 0)):
        if value is not None:
            if value < low:
                raise ExperimentError(f"{name} {value}: must be >= {low}")
            changes[field_name] = value
    if opts.delay is not None:
        if opts.engine != "sim":
            raise ExperimentError("--delay applies to the simulator (--engine sim): the "
                                  "lab's links have no delay of their own")
        changes["link_delay_s"] = parse_delay(opts.delay)
    if opts.pipeline is not None:
        if opts.engine != "sim":
            raise ExperimentError("--pipeline applies to the simulator (--engine sim): the "
                                  "lab's p4emu switches take it as `p4emu switch ... -- "
                                  "--pipeline`")
        changes["pipeline"] = opts.pipeline
    return replace(setup, **changes)


class _Terminated(KeyboardInterrupt):
    """SIGTERM, handled as Ctrl-C is: clean up, then stop."""


class _Stop:
    """Ctrl-C and SIGTERM raise at once, and are remembered: an interrupt that lands where
    it is swallowed (a finaliser running on the main thread, say) still stops the run at
    the next phase."""

    requested: type[KeyboardInterrupt] | None = None

    @classmethod
    def on_signal(cls, sig: int, _frame: object) -> None:
        cls.requested = _Terminated if sig == signal.SIGTERM else KeyboardInterrupt
        raise cls.requested()

    @classmethod
    def check(cls) -> None:
        if cls.requested is not None:
            raise cls.requested()


def _incomplete() -> str:
    how = "SIGTERM" if _Stop.requested is _Terminated else "Ctrl-C"
    return f"interrupted ({how}): the phases after it did not run"


def run(opts: Options, outdir: Path) -> dict:
    """Run `opts.name` into `outdir`; returns the summary (verdict, goals, files)."""
    module, setup = plan(opts)
    if setup.engine == "sim":
        return run_simulated(module, setup, outdir)
    from mrclab.control.command import controller_args
    from mrclab.experiments.lab_engine.environment import (
        environment,  # live imports only when running
    )
    from mrclab.experiments.lab_engine.flows import RUNNING
    from mrclab.experiments.lab_engine.session import Session
    from mrclab.fabric.generators import PortBases
    from mrclab.lab.interrupts import set_signal_handlers, uninterruptible
    from mrclab.lab.lab import Lab, LabConfig
    from mrclab.lab.target import DEFAULT_PROGRAM
    from mrclab.mininet.queues import QueueOptions
    from mrclab.places import default_build_dir

    outdir.mkdir(parents=True, exist_ok=True)
    progress = Progress(setup.experiment, setup.phases)
    env = environment(setup.target)
    started = time.monotonic()
    config = LabConfig(
        spec=setup.spec, target=setup.target, program=DEFAULT_PROGRAM, spray="ecmp",
        build_dir=default_build_dir() / "experiments",  # compiled program kept between runs
        bases=PortBases(*EXPERIMENT_PORTS),
        # one switch process per core (the lab's default): since the data-plane loop runs
        # in C, the permutation at 8 Mb/s takes 55-60 % of the CPU this way against 68-79 %
        # with a process per switch, both with no late ACKs (docs/lab-capacity.md)
        switch_processes=None,
        queues=QueueOptions(depth=setup.queue_depth, line_rate_bps=setup.rate_bps,
                            high_priority_depth=setup.high_priority_depth, mtu=setup.mtu),
        controller_args=controller_args(trim_threshold=setup.trim_threshold,
                                        ecn_threshold=setup.ecn_threshold,
                                        probe_interval=setup.probe_interval,
                                        miss_limit=setup.miss_limit))
    _Stop.requested = None
    old = set_signal_handlers(_Stop.on_signal, _Stop.on_signal)

    def phase(name: str) -> None:
        _Stop.check()
        progress.phase(name)
    lab = Lab(config)
    try:
        progress.note(f"bringing up {setup.spec} on {lab.target}")
        lab.start()
        if lab.missing_switches:
            raise ExperimentError(f"switches did not start: {', '.join(lab.missing_switches)}"
                                  f" (see {config.build_dir / 'logs'})")
        if lab.unprogrammed:  # traffic through them would measure nothing but timeouts
            raise ExperimentError(f"the controller could not program "
                                  f"{', '.join(lab.unprogrammed)} (see "
                                  f"{config.build_dir / 'logs' / 'controller.log'})")
        session = Session(lab, setup, outdir / "runs", phase)
        calibration = None
        if opts.rate == "auto":
            calibration = calibrate(session, module, setup, progress)
            setup = setup.at_rate(calibration["chosen_bps"], "auto")
        session.run_at(setup)
        raw = module.run(session, setup)
        if not session.interrupted:  # a job cut short keeps its iterations: reported below
            _Stop.check()
    finally:
        # a second Ctrl-C or SIGTERM must not cut the cleanup short (seen: switches left)
        with uninterruptible():
            RUNNING.kill_all()
            lab.stop()
        if old is not None:
            set_signal_handlers(*old)
    progress.note("lab stopped; analysing and plotting")
    env["duration_s"] = time.monotonic() - started
    if session.interrupted:
        env["incomplete"] = _incomplete()
    summary = finish(module, setup, env, raw, calibration, outdir)
    progress.note(f"written to {outdir}")
    return summary


def run_simulated(module: Experiment, setup: Setup, outdir: Path) -> dict:
    """`module` on the simulator: no root, no processes; Ctrl-C or SIGTERM ends the phase
    running and skips the rest, and the report says it is incomplete. (SIGTERM is how a
    run in the background, where the shell has SIGINT ignored, is stopped.)"""
    from mrclab.experiments.lab_engine.environment import environment
    from mrclab.experiments.sim_engine.session import SimSession
    from mrclab.fabric.spec import parse_spec
    from mrclab.lab.interrupts import set_signal_handlers

    outdir.mkdir(parents=True, exist_ok=True)
    progress = Progress(setup.experiment, setup.phases)
    env = environment(setup.target, engine="sim")
    started = time.monotonic()
    try:
        fabric = parse_spec(setup.spec)
    except ValueError as exc:
        raise ExperimentError(f"topology {setup.spec!r}: {exc}") from None
    session = SimSession(fabric, setup, outdir / "runs", progress.phase, progress.note)
    progress.note(f"simulating {setup.spec} at {setup.rate_bps / 1e9:g} Gb/s per link")
    _Stop.requested = None
    # SIGINT keeps its handler: a run in the background has it ignored, and keeps it so
    old = set_signal_handlers(signal.getsignal(signal.SIGINT), _Stop.on_signal)
    try:
        raw = module.run(session, setup)
    finally:
        if old is not None:
            set_signal_handlers(*old)
    env["duration_s"] = time.monotonic() - started
    env["packet_hops"] = session.packet_hops
    env["packet_hops_per_s"] = round(session.packet_hops / max(session.wall_s, 1e-9))
    if session.interrupted:
        env["incomplete"] = _incomplete()
    summary = finish(module, setup, env, raw, None, outdir)
    progress.note(f"written to {outdir}")
    return summary


def verdict_of(module: Experiment, raw: dict) -> Verdict:
    """Every traffic phase's verdict, combined."""
    found = module.verdicts(raw)
    if not found:
        raise ExperimentError("the run measured nothing")
    return combine(found)


def finish(module: Experiment, setup: Setup, env: dict, raw: dict, calibration: dict | None,
           outdir: Path) -> dict:
    """Analyse `raw`, draw, and write every output file; pure apart from the writes."""
    analysis = module.analyse(setup, raw)
    verdict = verdict_of(module, raw)
    goals = module.goals(setup, analysis)
    figures = module.figures(analysis, outdir)
    tables = module.tables(analysis)
    if calibration:
        tables["calibration"] = calibration["trials"]
    results = {"experiment": setup.experiment, "setup": setup.as_dict(), "environment": env,
               "verdict": verdict, "goals": goals, "analysis": analysis,
               "calibration": calibration, "raw": raw}
    question = (module.__doc__ or "").strip()
    text = report.markdown(module.TITLE, question, setup, env, verdict, goals, figures, tables)
    report.write_outputs(outdir, results, tables, text)
    rate = f"{setup.rate_bps / 1e6:g} Mb/s per host link"
    if setup.fabric_rate_bps:
        rate += f", {setup.fabric_rate_bps / 1e6:g} Mb/s fabric links"
    return {"experiment": setup.experiment, "outdir": str(outdir), "verdict": verdict,
            "goals": goals, "analysis": analysis, "figures": figures,
            "setup_line": f"{setup.target}, {setup.spec}, {rate}, seed {setup.seed}"
                          f"{', quick' if setup.quick else ''}, "
                          f"{env['duration_s']:.0f} s."}


def calibrate(session, module: Experiment, setup: Setup, progress: Progress) -> dict:
    """--rate auto: the fastest rate of the ladder at which this experiment's traffic, ev
    sprayed, runs faithfully on this machine: every flow done, the machine's verdict
    faithful, and the flows filling at least MIN_FILL of the link rate on average."""
    from mrclab.experiments import flowstats

    trials = []
    low, high = _limits(setup.target)
    session.set_spray("ev")
    for bps in AUTO_RATES[setup.target]:
        bps = int(bps)
        if not low <= bps <= high:
            continue
        progress.note(f"calibrating: {bps / 1e6:g} Mb/s per link")
        trial = setup.at_rate(bps)
        session.run_at(trial)
        flows = module.traffic(trial, session.fabric, CALIBRATION_S)
        result = session.run_flows(f"calibrate-{bps}", flows, timeout=CALIBRATION_S * 4 + 10)
        done = all(f.ok for f in result.flows)
        # the machine may keep up only because the endpoints cannot load the links (their
        # RTTs inflated by CPU waits): then the fabric is not what is being measured
        goodputs, _ = flowstats.window_goodputs(result.flows, result.t0, 0.5)
        shares = [g / trial.link_rate for g in goodputs if g is not None]
        filled = sum(shares) / len(shares) if shares else 0.0
        reasons = trial_failures(result.verdict, done, filled)
        faithful = not reasons
        trials.append({"rate_bps": bps, "faithful": faithful, "flows_done": done,
                       "mean_goodput_share": round(filled, 3),
                       "cpu_busy": result.verdict.cpu_busy,
                       "backlog_p95_bytes": result.verdict.backlog_p95_bytes,
                       "ingress_loss_share": result.verdict.ingress_loss_share,
                       "reasons": "; ".join(reasons)})
        if faithful:
            progress.note(f"--rate auto: {bps / 1e6:g} Mb/s per link is faithful here")
            return {"chosen_bps": bps, "trials": trials}
    if not trials:
        raise ExperimentError("--rate auto: no rate to try")
    why = "; ".join(f"{t['rate_bps'] / 1e6:g} Mb/s: {t['reasons']}" for t in trials)
    raise ExperimentError(f"--rate auto: no rate down to {trials[-1]['rate_bps'] / 1e6:g} "
                          f"Mb/s ran faithfully on this machine ({why})")


def trial_failures(verdict: Verdict, done: bool, filled: float) -> list[str]:
    """Why a --rate auto trial fails (none: its rate is faithful here): the machine's
    verdict, a flow left unfinished, or flows filling less than MIN_FILL of the links."""
    reasons = list(verdict.reasons)
    if not done:
        reasons.append("a flow did not complete")
    if filled < MIN_FILL:
        reasons.append(f"flows filled {filled:.0%} of the link rate (< {MIN_FILL:.0%})")
    return reasons


def _limits(target: str) -> tuple[int, int]:
    from mrclab.experiments.config import RATE_LIMITS_BPS

    return RATE_LIMITS_BPS[target]


def run_many(names: list[str], opts: Options, out: Path) -> list[dict]:
    """`experiment all`: each experiment into out/NAME, then an index report."""
    summaries, failed = [], []
    for name in names:
        try:
            summaries.append(run(replace(opts, name=name), out / name))
        except Exception as exc:  # one broken experiment must not cost the others' results
            log.error("%s failed: %s", name, exc)
            failed.append(f"{name}: {exc}")
    text = "# MRC Lab experiments\n\n" + report.index_markdown(summaries)
    if failed:
        text += "\n## Failed\n\n" + "".join(f"- {line}\n" for line in failed)
    with contextlib.suppress(OSError):
        (out / "index.md").write_text(text)
    if failed:
        raise ExperimentError(f"{len(failed)} experiment(s) failed: {'; '.join(failed)}")
    return summaries
