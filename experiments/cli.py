"""`mrclab experiment NAME|all [--engine lab|sim] [--target p4emu|bmv2] [--quick] [--out DIR]
[--seed N] [--rate R|auto] [--mtu BYTES] [--senders 4,8,15]`: run protocol experiments,
write results and plots."""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

from experiments import registry
from experiments.config import ENGINES, TARGETS, ExperimentError, Options
from experiments.validity import short_label

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
    p.add_argument("--modes", type=lambda t: tuple(m for m in t.split(",") if m),
                   default=None, help="the modes to run, e.g. ecmp,ev (default: all)")
    p.add_argument("-v", "--verbose", action="store_true")


def options(args: argparse.Namespace) -> Options:
    from lab.target import resolve_target

    # the simulator's switches are p4emu's pipeline whatever the lab would use
    target = "p4emu" if args.engine == "sim" else args.target or resolve_target("auto")
    return Options(name=args.name, target=target, quick=args.quick,
                   out=args.out or Path("results") / ("" if args.name == "all" else args.name),
                   seed=args.seed,
                   rate=args.rate, mtu=args.mtu, incast_n=args.senders, engine=args.engine,
                   spec=args.spec, queue_depth=args.queue_depth, trim=args.trim, ecn=args.ecn,
                   delay=args.delay, modes=args.modes)


def main(args: argparse.Namespace) -> int:
    """Run what `args` asks; one-line errors, exit 2 for bad input, 1 for a failed run."""
    from experiments import runner

    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING,
                        format="%(levelname)s %(name)s: %(message)s")
    opts = options(args)
    names = ([n for n in registry.NAMES if opts.engine in registry.get(n).ENGINES]
             if opts.name == "all" else [opts.name])
    try:
        for name in names:  # all bad input is found before any lab starts
            runner.plan(Options(**{**opts.__dict__, "name": name}))
    except ExperimentError as exc:
        print(f"mrclab experiment: {exc}", file=sys.stderr)
        return 2
    if opts.engine == "lab":
        from lab.lab import cannot_run_here

        problem = cannot_run_here()
        if problem:
            print(f"mrclab experiment: {problem}", file=sys.stderr)
            return 2
        from mininet.log import setLogLevel

        setLogLevel("warning")
        logging.getLogger("mininet").propagate = False
    try:
        if opts.name == "all":
            summaries = runner.run_many(names, opts, opts.out)
        else:
            summaries = [runner.run(opts, opts.out)]
    except ExperimentError as exc:
        print(f"mrclab experiment: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"mrclab experiment: interrupted; {opts.engine} stopped", file=sys.stderr)
        return 130
    except Exception as exc:  # lab errors: one line, details in the lab's logs
        print(f"mrclab experiment: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    for s in summaries:
        met = sum(1 for g in s["goals"] if g["met"])
        print(f"{s['experiment']}: {short_label(s['verdict'])}"
              f", goals met {met}/{len(s['goals'])}, report {s['outdir']}/report.md")
    return 0
