"""`mrclab experiment NAME|all [--engine lab|sim] [--target p4emu|bmv2] [--quick] [--out DIR]
[--seed N] [--rate R|auto] [--mtu BYTES] [--senders 4,8,15]`: run protocol experiments,
write results and plots."""

from __future__ import annotations

import argparse
import logging
import sys
import time
from pathlib import Path

from mrclab.experiments import registry
from mrclab.experiments.config import (
    ENGINES,
    EXPERIMENT_OPTIONS,
    FIGURES,
    TARGETS,
    ExperimentError,
    Options,
)
from mrclab.experiments.validity import short_label
from p4emu.cmdline import UsageError, run_main
from p4emu.switch.program import PIPELINES

log = logging.getLogger(__name__)


def _senders(text: str) -> tuple[int, ...]:
    try:
        values = tuple(int(x) for x in text.split(",") if x.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"bad sender counts {text!r}: e.g. 4,8,15") from None
    if not values:
        raise argparse.ArgumentTypeError("no sender count given")
    return values


def add_parser(sub) -> argparse.ArgumentParser:
    """Register `experiment`, and its short form on the simulator `sim`, on the `mrclab`
    subcommand parser `sub`."""
    p = sub.add_parser("experiment", help="run a protocol experiment, write results and plots")
    _add_arguments(p)
    p.add_argument("--engine", choices=ENGINES, default="lab",
                   help="lab: Mininet and switch processes in real time (root); sim: the "
                        "simulator, virtual time, one process, datacenter rates")
    s = sub.add_parser("sim", help="run an experiment on the virtual-time simulator (no "
                                   "root): `mrclab experiment NAME --engine sim`")
    _add_arguments(s)
    s.set_defaults(engine="sim")
    w = sub.add_parser("sweep", help="many runs of an experiment over seeds and parameters, "
                                     "on Dask (a local cluster or one by address)")
    _add_arguments(w)
    w.add_argument("--engine", choices=ENGINES, default="sim")
    w.add_argument("--seeds", default="1-5", help="e.g. 1-20 or 1,3,5 (default 1-5)")
    w.add_argument("--param", action="append", default=[], metavar="NAME=V1,V2",
                   help="a parameter to vary (repeatable): rate, mtu, spec, queue_depth, "
                        "trim, ecn, delay, target; collective: pattern, size, ranks, "
                        "placement, slice, iterations, scenarios; modes, senders and "
                        "scenarios take '/' between values")
    w.add_argument("--workers", type=int, default=None,
                   help="local worker processes (default: one per core; lab: 1)")
    w.add_argument("--scheduler", default=None,
                   help="a running Dask scheduler, tcp://HOST:PORT, instead of a local one")
    return p


def _add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("name", metavar="NAME", help=f"{' | '.join(registry.NAMES)} | all")
    p.add_argument("--target", choices=TARGETS, default=None,
                   help="switch target (default: bmv2 when installed, else p4emu)")
    p.add_argument("--quick", action="store_true", help="short variant (CI)")
    p.add_argument("--out", type=Path, default=None,
                   help="output directory (default results/NAME)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--rate", default=None,
                   help="per-link rate, e.g. 4M, 400G, or auto (lab: fastest faithful here)")
    p.add_argument("--mtu", type=int, default=None,
                   help="IP MTU of every fabric interface (default: the experiment's)")
    p.add_argument("--senders", type=_senders, default=None,
                   help="incast: sender counts, e.g. 4,8,15")
    p.add_argument("--spec", default=None,
                   help="topology instead of the experiment's, e.g. fattree:k=8")
    p.add_argument("--queue-depth", type=int, default=None, help="packets per egress queue")
    p.add_argument("--trim", type=int, default=None, help="trim threshold, packets (0: off)")
    p.add_argument("--ecn", type=int, default=None, help="ECN threshold, packets (0: off)")
    p.add_argument("--delay", default=None,
                   help="sim: propagation per link, e.g. 1us, 500ns, 0.5ms")
    p.add_argument("--duration", default=None,
                   help="permutation, failover: each flow's length at the link rate, e.g. "
                        "1.5ms (permutation's default: 1.5ms on the simulator, 10s in the lab)")
    p.add_argument("--fail-at", default=None,
                   help="failover: virtual times at which the core link, then the plane "
                        "fail, e.g. 400us,900us (default 1ms,2.4ms)")
    p.add_argument("--pipeline", choices=PIPELINES, default=None,
                   help="sim: the switches' P4 pipeline: auto (p4emu's compiled C one where "
                        "the program allows, else Python; the default), native or python")
    p.add_argument("--modes", type=lambda t: tuple(m for m in t.split(",") if m),
                   default=None, help="the modes to run, e.g. ecmp,ev (default: all)")
    p.add_argument("--figures", choices=FIGURES, default="own",
                   help="sim: own (datacenter rates and timers) or lab (the experiment's "
                        "lab figures, to compare the engines)")
    c = p.add_argument_group("collective (a training job)")
    c.add_argument("--pattern", default=None,
                   help="ring-allreduce (default), halving-doubling or alltoall")
    c.add_argument("--ranks", type=int, default=None,
                   help="ranks, one per host (default: every host)")
    c.add_argument("--size", default=None,
                   help="bytes per rank (nccl-tests' size), e.g. 64MiB, 512K")
    c.add_argument("--slice", default=None,
                   help="bytes per message: a ring forwards chunks in slices (e.g. 64KiB)")
    c.add_argument("--placement", default=None, help="spread (default) or packed")
    c.add_argument("--iterations", type=int, default=None)
    c.add_argument("--compute", default=None,
                   help="each iteration's compute phase, e.g. 200us (default: the "
                        "collective's ideal time)")
    c.add_argument("--jitter", type=float, default=None,
                   help="per-rank compute spread, a fraction (e.g. 0.02)")
    c.add_argument("--straggler", default=None,
                   help="the straggler scenario's slow rank: FACTOR or RANK:FACTOR (2)")
    c.add_argument("--scenarios", type=lambda t: tuple(x for x in t.split(",") if x),
                   default=None, help="baseline, link-gray, link-admin, plane, flap, "
                                      "straggler (default: all that apply)")
    c.add_argument("--flap-every", type=int, default=None,
                   help="flap scenario: iterations between the link's changes")
    c.add_argument("--window", type=int, default=None,
                   help="messages a rank has in flight at most, NCCL's buffer slots "
                        "(default 8)")
    p.add_argument("-v", "--verbose", action="store_true")


def options(args: argparse.Namespace) -> Options:
    from mrclab.lab.target import resolve_target

    # the simulator's switches are p4emu's pipeline whatever the lab would use
    target = "p4emu" if args.engine == "sim" else args.target or resolve_target("auto")
    return Options(name=args.name, target=target, quick=args.quick,
                   out=args.out or Path("results") / ("" if args.name == "all" else args.name),
                   seed=args.seed,
                   rate=args.rate, mtu=args.mtu, incast_n=args.senders, engine=args.engine,
                   spec=args.spec, queue_depth=args.queue_depth, trim=args.trim, ecn=args.ecn,
                   delay=args.delay, modes=args.modes, figures=args.figures,
                   duration=args.duration, fail_at=args.fail_at, pipeline=args.pipeline,
                   **{name: getattr(args, name) for name in EXPERIMENT_OPTIONS})


def main(args: argparse.Namespace) -> int:
    """Run what `args` asks; one-line errors, exit 2 for bad input, 1 for a failed run."""
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING,
                        format="%(levelname)s %(name)s: %(message)s")
    opts = options(args)
    return run_main("mrclab experiment", lambda: _experiments(opts),
                    {UsageError: 2, ExperimentError: 1},
                    interrupted=f"mrclab experiment: interrupted; {opts.engine} stopped")


def _experiments(opts: Options) -> int:
    from mrclab.experiments import runner

    names = ([n for n in registry.NAMES if opts.engine in registry.get(n).ENGINES]
             if opts.name == "all" else [opts.name])
    try:
        for name in names:  # all bad input is found before any lab starts
            runner.plan(Options(**{**opts.__dict__, "name": name}))
    except ExperimentError as exc:
        raise UsageError(str(exc)) from None
    if opts.engine == "lab":
        from mrclab.lab.lab import cannot_run_here

        if problem := cannot_run_here():
            raise UsageError(problem)
        from mininet.log import setLogLevel

        setLogLevel("warning")
        logging.getLogger("mininet").propagate = False
    try:
        if opts.name == "all":
            summaries = runner.run_many(names, opts, opts.out)
        else:
            summaries = [runner.run(opts, opts.out)]
    except ExperimentError:
        raise
    except Exception as exc:  # lab errors: one line, details in the lab's logs (and -v)
        logging.getLogger(__name__).info("the run failed", exc_info=True)
        raise ExperimentError(f"{type(exc).__name__}: {exc}") from None
    for s in summaries:
        met = sum(1 for g in s["goals"] if g["met"])
        print(f"{s['experiment']}: {short_label(s['verdict'])}"
              f", goals met {met}/{len(s['goals'])}, report {s['outdir']}/report.md")
    return 0


def sweep_main(args: argparse.Namespace, argv: list[str] | None = None) -> int:
    """`mrclab sweep`: every bad input found before any run; exit 1 when a run failed."""
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING,
                        format="%(levelname)s %(name)s: %(message)s")
    logging.getLogger("distributed").setLevel(logging.ERROR)  # its own lines, not ours
    return run_main("mrclab sweep", lambda: _sweep(args, argv), {ExperimentError: 2})


def _sweep(args: argparse.Namespace, argv: list[str] | None) -> int:
    from mrclab.experiments import runner
    from mrclab.experiments.sweep import grid, report
    from mrclab.experiments.sweep.run import check_scheduler, code_version, run_points

    if args.name == "all":
        raise ExperimentError("a sweep runs one experiment, not all")
    base = options(args)
    out = args.out or Path("results") / f"sweep-{args.name}"
    seeds = grid.parse_seeds(args.seeds)
    params = [grid.parse_param(text) for text in args.param]
    if args.scheduler is not None:
        check_scheduler(args.scheduler)
    if args.workers is not None and args.workers < 1:
        raise ExperimentError(f"--workers {args.workers}: must be >= 1")
    points = grid.expand(base, seeds, params, code_version())
    for point in points:  # all bad input is found before any run starts
        runner.plan(point.options)
    if base.engine == "lab" and args.scheduler is None:
        from mrclab.lab.lab import cannot_run_here

        if problem := cannot_run_here():
            raise ExperimentError(problem)
    started = time.monotonic()

    def note(line: str) -> None:
        elapsed = time.monotonic() - started
        print(f"[{int(elapsed) // 60:02d}:{int(elapsed) % 60:02d}] sweep {args.name}: {line}",
              file=sys.stderr, flush=True)
    note(f"{len(points)} runs ({len(seeds)} seeds x "
         f"{len(points) // len(seeds)} configurations) on the {base.engine}, into {out}")
    out.mkdir(parents=True, exist_ok=True)
    outcome = run_points(points, out, base.engine, args.workers, args.scheduler, note)
    command = "mrclab " + " ".join(argv if argv is not None else sys.argv[1:])
    result = report.write(out, args.name, command, points, outcome.records,
                          [name for name, _ in params],
                          {"skipped": outcome.skipped, "workers": outcome.workers,
                           "wall_s": outcome.wall_s, "interrupted": outcome.interrupted})
    n = result["counts"]
    print(f"sweep {args.name}: {n['runs']}/{len(points)} runs, {n['faithful']} faithful, "
          f"{n['failed']} failed, report {out}/report.md")
    if outcome.interrupted:
        return 130
    return 1 if n["failed"] else 0
