"""The lab's `mrclab` subcommands: bring up a P4 fabric in Mininet with its controller.

  mrclab run --topo fattree:k=4 [--target auto] [--script FILE] [--spray ecmp|ev|random|source]
  mrclab demo [--topo fattree:k=4]    bring up, pingall, print a summary table, tear down
  mrclab shell SWITCH [--build-dir D]  p4runtime-shell on a running lab's switch (read-only)
  mrclab trace [--flows] PCAP...      summarize the MRC packets of captures
"""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

from mrclab.control.command import controller_args
from mrclab.control.protocol import ControlClientError
from mrclab.fabric.spray import SPRAY_MODES
from mrclab.lab.interrupts import Terminated, stoppable, uninterruptible
from mrclab.lab.lab import Lab, LabConfig, LabError, cannot_run_here
from mrclab.lab.target import TARGETS, CompileError
from mrclab.mininet.link_failure import METHODS as LINK_FAILURE_METHODS
from mrclab.mininet.mtu import DEFAULT_MTU, MAX_MTU, check_mtu
from mrclab.mininet.queues import QueueOptions
from mrclab.places import default_build_dir
from p4emu.cmdline import UsageError, run_main

log = logging.getLogger("mrclab")


def _int_at_least(text: str, low: int) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if value < low:
        raise argparse.ArgumentTypeError(f"{text} must be >= {low}")
    return value


def _positive_int(text: str) -> int:
    return _int_at_least(text, 1)


def _non_negative_int(text: str) -> int:
    return _int_at_least(text, 0)


def _mtu(text: str) -> int:
    value = _positive_int(text)
    try:
        check_mtu(value)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return value


COMMANDS = ("run", "demo", "shell", "trace")


def add_parsers(sub: argparse._SubParsersAction) -> None:
    """Add the lab's subcommands (COMMANDS) to the `mrclab` parser."""
    helps = {"run": "build a fabric, start its controller, then the Mininet CLI (or --script)",
             "demo": "the fat-tree demo: bring up, pingall, one sprayed transfer"}
    for name in ("run", "demo"):
        p = sub.add_parser(name, help=helps[name])
        p.add_argument("--topo", default="fattree:k=4",
                       help="fattree:k=4 | leafspine:leaves=4,spines=2,hosts=2 | "
                            "multiplane:planes=2,base=fattree:k=4 (+ bw=,delay=,loss=)")
        p.add_argument("--target", choices=TARGETS, default="auto")
        p.add_argument("--spray", choices=sorted(SPRAY_MODES), default="ecmp")
        p.add_argument("--trim-threshold", type=int)
        p.add_argument("--ecn-threshold", type=int)
        p.add_argument("--queue-depth", type=_positive_int)
        p.add_argument("--high-priority-depth", type=_positive_int,
                       help="packets in the high-priority queues (trimmed headers, ACKs, "
                            "probes); default: --queue-depth")
        p.add_argument("--queue-rate", type=_positive_int,
                       help="packets per second, every port and priority")
        p.add_argument("--line-rate", type=_positive_int,
                       help="bits per second, every port (BMv2: converted to packets/s at "
                            "the MTU)")
        p.add_argument("--mtu", type=_mtu, default=DEFAULT_MTU,
                       help=f"IP MTU of every host and switch interface (up to {MAX_MTU}: "
                            "jumbo frames)")
        p.add_argument("--pcap", action="store_true", help="write per-port pcaps")
        p.add_argument("--switch-log", action="store_true",
                       help="per-packet switch logs in BUILD_DIR/logs (slow: BMv2 drops "
                            "packets under load with them)")
        p.add_argument("--link-failure", choices=LINK_FAILURE_METHODS, default="drop",
                       help="how link_down fails a link: drop what both ends send, "
                            "interfaces up (default), or admin-down (freezes BMv2)")
        p.add_argument("--switch-processes", type=_non_negative_int, default=None,
                       metavar="N", help="p4emu: run the switches in N processes (default: "
                                         "one per core; 0: one per switch, as BMv2)")
        p.add_argument("--build-dir", type=Path, default=None,
                       help="compiled program, logs, topology (default $MRCLAB_BUILD_DIR "
                            "or build/); sockets and pid files live under /run/mrclab")
        p.add_argument("-v", "--verbose", action="store_true")
        if name == "run":
            p.add_argument("--script", help="run the Mininet CLI commands of FILE and exit")
        else:
            p.add_argument("--transfer", default="1M", metavar="SIZE",
                           help="size of the ev-sprayed MRC transfer after pingall "
                                "(endpoint CLI); 0 = none")
    shell = sub.add_parser("shell", help="p4runtime-shell on a running lab's switch "
                                         "(backup client: reads, never takes primary)")
    shell.add_argument("switch", metavar="SWITCH", help="e.g. e1, a3, c2")
    shell.add_argument("--build-dir", type=Path, default=None,
                       help="the running lab's build dir (default $MRCLAB_BUILD_DIR or build/)")
    trace = sub.add_parser("trace", help="per-packet or per-flow summary of MRC captures")
    trace.add_argument("pcaps", nargs="+", type=Path, metavar="PCAP", help="pcap/pcapng files")
    trace.add_argument("--flows", action="store_true", help="one line per flow, not per packet")
    trace.add_argument("--json", type=Path, help="write the flow summaries as JSON here")


def config_from_args(args: argparse.Namespace) -> LabConfig:
    extra = controller_args(trim_threshold=args.trim_threshold,
                            ecn_threshold=args.ecn_threshold)
    return LabConfig(
        spec=args.topo, target=args.target, build_dir=args.build_dir or default_build_dir(),
        spray=args.spray, controller_args=extra, pcap=args.pcap, switch_log=args.switch_log,
        link_failure=args.link_failure, switch_processes=args.switch_processes,
        queues=QueueOptions(depth=args.queue_depth, rate_pps=args.queue_rate,
                            high_priority_depth=args.high_priority_depth,
                            line_rate_bps=args.line_rate, mtu=args.mtu))


def run_cli(lab: Lab, script: str | None) -> None:
    from mrclab.lab.mininet_cli import LabCLI  # imports mininet.cli: only when needed

    status = lab.status()
    print(f"fabric {lab.fabric.spec} ({lab.target}) ready in {lab.bring_up_s:.1f} s: "
          f"{len(lab.fabric.switches)} switches, {len(lab.fabric.hosts)} hosts, "
          f"{status.entries} entries; {lab.net.layout()}")
    LabCLI(lab, script=script)


def run(args: argparse.Namespace) -> int:
    """Run one of COMMANDS; the exit status."""
    if args.command == "shell":  # attaches to a running lab's switch
        from mrclab.lab.shell import run as shell_main

        return shell_main((args.build_dir or default_build_dir()) / "topology.json",
                          args.switch)
    if args.command == "trace":  # reads files: no lab, no root
        from mrclab.endpoint.trace import main as trace_main

        return trace_main(args)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING,
                        format="%(levelname)s %(name)s: %(message)s")
    return run_main("mrclab", lambda: _with_lab(args), {UsageError: 2})


def _with_lab(args: argparse.Namespace) -> int:
    """Bring the lab up for the command and stop it, also on Ctrl-C and SIGTERM."""
    if args.command == "run" and args.script and not Path(args.script).is_file():
        raise UsageError(f"script {args.script} not found")
    if args.command == "demo" and args.transfer in ("0", ""):
        args.transfer = None
    try:
        lab = Lab(config_from_args(args))
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if problem := cannot_run_here():
        raise UsageError(problem)
    from mininet.log import setLogLevel

    setLogLevel("info" if args.verbose else "output")
    logging.getLogger("mininet").propagate = False  # Mininet prints on its own handler
    try:
        # within the `try`: a failure is told before the lab stops, which takes a while
        return run_main("mrclab", lambda: _in_lab(lab, args),
                        {(LabError, CompileError, ControlClientError, ValueError): 1},
                        interrupted="mrclab: interrupted; stopping the lab")
    except Terminated as exc:
        print("mrclab: terminated; stopping the lab", file=sys.stderr)
        return exc.code
    finally:
        with uninterruptible():
            lab.stop()


def _in_lab(lab: Lab, args: argparse.Namespace) -> int:
    with stoppable():
        lab.start()
        if lab.missing_switches:
            print(f"mrclab: switches not answering: {', '.join(lab.missing_switches)}",
                  file=sys.stderr)
        if lab.unprogrammed:
            print(f"mrclab: the controller could not program "
                  f"{', '.join(lab.unprogrammed)} (see "
                  f"{lab.build_dir / 'logs' / 'controller.log'})", file=sys.stderr)
        if args.command == "demo":
            from mrclab.lab.demo import run_demo

            return run_demo(lab, args.transfer)
        run_cli(lab, args.script)
        return 0
