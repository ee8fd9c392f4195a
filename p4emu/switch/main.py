"""`python -m p4emu switch ...`: one simple_switch_grpc-compatible switch per process."""

from __future__ import annotations

import logging
import signal
import sys
import threading
from collections.abc import Callable

from p4emu.cmdline import UsageError, run_main
from p4emu.switch.dataplane_loop import DataplaneLoop
from p4emu.switch.instance import StartupError, SwitchInstance
from p4emu.switch.options import LOG_LEVELS, SwitchOptions, parse_switch_args


def setup_logging(*all_opts: SwitchOptions) -> None:
    """One logging set-up for the process: the most verbose level asked for, and every
    console or file asked for (in a fabric, each gets the messages of all switches)."""
    logging.addLevelName(5, "TRACE")
    root = logging.getLogger()
    root.setLevel(min(LOG_LEVELS[opts.log_level] for opts in all_opts))
    fmt = logging.Formatter("[%(asctime)s.%(msecs)03d] [p4emu %(name)s] %(levelname)s "
                            "%(message)s", "%H:%M:%S")
    handlers: list[logging.Handler] = []
    if any(opts.log_console for opts in all_opts):
        handlers.append(logging.StreamHandler(sys.stdout))
    for log_file in dict.fromkeys(opts.log_file for opts in all_opts if opts.log_file):
        handlers.append(logging.FileHandler(log_file))
    if not handlers:  # like BMv2 without logging options: only problems, on stderr
        handler = logging.StreamHandler(sys.stderr)
        handler.setLevel(logging.WARNING)
        handlers.append(handler)
    for handler in handlers:
        handler.setFormatter(fmt)
        root.addHandler(handler)


def run(opts: SwitchOptions, stop: threading.Event) -> None:
    """Run one switch until `stop` is set (or a `shutdown` command stops it)."""
    loop = DataplaneLoop()
    switch = SwitchInstance(opts, loop, on_stop=lambda instance: stop.set())
    loop.start()
    try:
        switch.start()
        stop.wait()
    finally:
        switch.stop()
        loop.stop()


# a bad command line is argparse's status; a switch that cannot start, 1
SWITCH_ERRORS = {UsageError: 2, StartupError: 1}


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv

    def body() -> int:
        opts = parse_switch_args(argv)
        setup_logging(opts)
        return run_until_signalled(lambda stop: run(opts, stop))
    return run_main("p4emu switch", body, SWITCH_ERRORS)


def run_until_signalled(body: Callable[[threading.Event], None]) -> int:
    """Run `body(stop)` until SIGTERM, SIGINT or SIGHUP sets `stop`; status 0."""
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, lambda signum, frame: stop.set())
    body(stop)
    return 0
