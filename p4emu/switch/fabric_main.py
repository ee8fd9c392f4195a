"""`python -m p4emu fabric --switch "SWITCH ARGS" --switch "SWITCH ARGS" ...`: many
switches in one process.

Each --switch value is the argument list `p4emu switch` takes, shell-quoted; every switch
keeps its own device id, ports, gRPC and runtime-control (--thrift-port) ports and queues.
All of them share one data-plane loop and one port poller, so a packet crossing several
switches costs no thread hand-off or process switch on the way. SIGTERM or SIGINT stops
them all; `p4emu cli --thrift-port N shutdown` stops one, and the process ends with the
last. Logging options apply to the whole process (the most verbose level asked for).
"""

from __future__ import annotations

import logging
import shlex
import sys
import threading

from p4emu.cmdline import UsageError, run_main
from p4emu.switch.dataplane_loop import DataplaneLoop
from p4emu.switch.instance import StartupError, SwitchInstance
from p4emu.switch.main import SWITCH_ERRORS, run_until_signalled, setup_logging
from p4emu.switch.options import SwitchOptions, parse_switch_args
from p4emu.switch.port_oper_state import SharedPoller

log = logging.getLogger("p4emu.fabric")

# a worker per RPC in flight, streams included (one per controller): the 32 of a lone
# switch are idle threads here, N times over
FABRIC_GRPC_WORKERS = 8
FABRIC_SWITCH_INTERVAL_S = 0.0005  # CPython's default is 5 ms


USAGE = 'usage: python -m p4emu fabric --switch "SWITCH ARGS" [--switch "SWITCH ARGS" ...]'


def _switch_values(argv: list[str]) -> list[str]:
    """The --switch values, by hand: argparse would take a value like "--no-p4" for an
    option of its own."""
    values = []
    words = iter(argv)
    for word in words:
        if word.startswith("--switch="):
            values.append(word.partition("=")[2])
        elif word == "--switch":
            value = next(words, None)
            if value is None:
                raise UsageError("--switch needs a value: the arguments of one switch")
            values.append(value)
        else:
            raise UsageError(f"unexpected argument {word!r}; {USAGE}")
    if not values:
        raise UsageError(USAGE)
    return values


def _switch_label(index: int, words: list[str]) -> str:
    """`--switch 2 (device 5)`: which switch a message is about, even unparsed."""
    for flag, value in zip(words, words[1:], strict=False):
        if flag == "--device-id":
            return f"--switch {index} (device {value})"
    return f"--switch {index}"


def parse_fabric_args(argv: list[str]) -> list[SwitchOptions]:
    """The options of each switch; UsageError (one line naming the switch) on bad input."""
    all_opts: list[SwitchOptions] = []
    owners: dict[tuple[str, object], str] = {}  # (what, value) -> switch using it
    for index, text in enumerate(_switch_values(argv), start=1):
        try:
            words = shlex.split(text)
        except ValueError as exc:
            raise UsageError(f"--switch {index} {text!r}: {exc}") from None
        label = _switch_label(index, words)
        try:
            opts = parse_switch_args(words)
        except UsageError as exc:
            raise UsageError(f"{label}: {exc}") from None
        taken = [("interface", iface) for iface in opts.interfaces.values()]
        taken += [("--thrift-port", opts.thrift_port), ("--grpc-server-addr", opts.grpc_addr)]
        for what, value in taken:
            other = owners.setdefault((what, value), label)
            if other != label:
                raise UsageError(f"{label}: {what} {value} is also used by {other}")
        all_opts.append(opts)
    return all_opts


def run(all_opts: list[SwitchOptions], stop: threading.Event) -> None:
    """Run every switch until `stop` is set or all have been shut down; StartupError
    (naming the switch) when one cannot start, after stopping the others."""
    loop = DataplaneLoop()
    poller = SharedPoller()
    instances: list[SwitchInstance] = []

    def stopped(instance: SwitchInstance) -> None:
        if all(other.stopped.is_set() for other in instances):
            stop.set()

    loop.start()
    poller.start()
    try:
        for opts in all_opts:
            instance = SwitchInstance(opts, loop, poller, FABRIC_GRPC_WORKERS, on_stop=stopped)
            try:
                instance.start()
            except StartupError as exc:
                raise StartupError(f"{instance.name}: {exc}") from None
            instances.append(instance)
        log.info("fabric running: %d switches", len(instances))
        stop.wait()
        log.info("fabric stopping")
    finally:
        for instance in instances:
            instance.stop()
        poller.stop()
        loop.stop()


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv in (["-h"], ["--help"]):
        print(__doc__.strip())
        return 0

    def body() -> int:
        all_opts = parse_fabric_args(argv)
        setup_logging(*all_opts)
        # the data-plane thread shares the GIL with every switch's gRPC threads: when it
        # wakes with frames to forward, it waits for a running gRPC thread at most this long
        sys.setswitchinterval(FABRIC_SWITCH_INTERVAL_S)
        return run_until_signalled(lambda stop: run(all_opts, stop))
    return run_main("p4emu fabric", body, SWITCH_ERRORS)
