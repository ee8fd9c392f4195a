"""`python -m mrclab.controller --topology build/topology.json [options]`: run the fabric controller.

Programs every switch, logs "fabric ready in X s", then keeps running: probes links,
reroutes on failures, re-programs restarted switches, serves the control socket.
SIGTERM / SIGINT stop it cleanly.
"""

from __future__ import annotations

import argparse
import logging
import signal
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from mrclab.control.protocol import socket_path
from mrclab.controller.control_server import ControlServer
from mrclab.controller.fabric import FabricController
from mrclab.controller.link_monitor import (
    FASTEST_PROBE_INTERVAL_S,
    PROBE_BUDGET_PER_S,
    default_probe_interval,
)
from mrclab.controller.link_verdict import LinkVerdict
from mrclab.controller.next_hops import Routing, compute_next_hops
from mrclab.controller.p4rt_codec import load_p4info
from mrclab.controller.probe_liveness import VerdictFactory
from mrclab.controller.switch_state import THRESHOLD_NEVER, ForwardingPolicy
from mrclab.fabric.spray import SPRAY_MODES
from mrclab.fabric.topology_file import read_topology
from p4emu.cmdline import run_main

if TYPE_CHECKING:
    from p4.config.v1 import p4info_pb2

log = logging.getLogger("mrclab.controller")


def _threshold(text: str) -> int:
    value = int(text)
    if not 0 <= value <= THRESHOLD_NEVER:
        raise argparse.ArgumentTypeError(f"{text} is outside 0..{THRESHOLD_NEVER}")
    return value


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m mrclab.controller", description=__doc__)
    parser.add_argument("--topology", default="build/topology.json")
    parser.add_argument("--p4info", help="P4Info text file (default: from the topology)")
    parser.add_argument("--device-config", help="device config file (default: from topology)")
    parser.add_argument("--spray", choices=sorted(SPRAY_MODES), default="ecmp")
    parser.add_argument("--trim-threshold", type=_threshold, default=32,
                        help="egress queue depth (packets) at which DATA is trimmed; 0 = never")
    parser.add_argument("--ecn-threshold", type=_threshold, default=16,
                        help="egress queue depth (packets) at which ECN CE is set; 0 = never")
    parser.add_argument("--probe-interval", type=float, default=None,
                        help="seconds between probes of each link (down after --miss-limit; "
                             f"default {FASTEST_PROBE_INTERVAL_S}, longer on fabrics with more "
                             f"than {PROBE_BUDGET_PER_S * FASTEST_PROBE_INTERVAL_S:.0f} links: "
                             f"{PROBE_BUDGET_PER_S} probes/s in all)")
    parser.add_argument("--miss-limit", type=int, default=3,
                        help="missed probes before a link is declared down")
    parser.add_argument("--ready-timeout", type=float, default=30.0,
                        help="seconds to wait for every switch before reporting the missing")
    parser.add_argument("--control-socket", help="Unix socket of the control endpoint "
                        "(default: the lab's, in the runtime directory of the topology's "
                        "build directory)")
    parser.add_argument("--link-state", help="file remembering down links across restarts "
                        "(default: controller-links.json next to the control socket)")
    parser.add_argument("--log-level", default="INFO")
    args = parser.parse_args(argv)
    if args.control_socket is None:
        args.control_socket = str(socket_path(Path(args.topology).parent))
    return args


def main(argv: list[str] | None = None, routing: Routing = compute_next_hops,
         verdict: VerdictFactory = LinkVerdict) -> int:
    """`routing`: the next-hop computation; `verdict`: each link's down/up rule (either a
    student's, `mrclab.exercises.student_controller`)."""
    args = parse_args(sys.argv[1:] if argv is None else argv)
    logging.basicConfig(level=args.log_level.upper(),
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    # KeyError: the P4Info lacks a table or action the controller programs
    return run_main("controller", lambda: _serve(args, routing, verdict),
                    {(ValueError, OSError, KeyError): 2})


def _load_p4info(path: str) -> p4info_pb2.P4Info:
    try:
        return load_p4info(path)
    except (ValueError, OSError):
        raise
    except Exception as exc:  # e.g. a P4Info text-format parse error
        raise ValueError(f"cannot load P4Info {path}: {exc}".splitlines()[0]) from None


def _serve(args: argparse.Namespace, routing: Routing, verdict: VerdictFactory) -> int:
    """Program the fabric, then serve until SIGTERM or SIGINT."""
    topology = read_topology(args.topology)
    p4info_path = args.p4info or topology.p4info
    config_path = args.device_config or topology.device_config
    if not p4info_path or not config_path:
        raise ValueError("no --p4info / --device-config given and none in the topology")
    p4info = _load_p4info(p4info_path)
    device_config = Path(config_path).read_bytes()
    if args.probe_interval is None:
        args.probe_interval = default_probe_interval(topology.fabric)
    if args.probe_interval <= 0 or args.miss_limit < 1:
        raise ValueError("--probe-interval must be > 0 and --miss-limit >= 1")
    policy = ForwardingPolicy(SPRAY_MODES[args.spray], args.trim_threshold, args.ecn_threshold)
    controller = FabricController(topology, p4info, device_config, policy,
                                  probe_interval=args.probe_interval,
                                  miss_limit=args.miss_limit,
                                  ready_timeout=args.ready_timeout, routing=routing,
                                  verdict=verdict,
                                  link_state_path=Path(args.link_state) if args.link_state
                                  else Path(args.control_socket).with_name(
                                      "controller-links.json"))
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    server = ControlServer(args.control_socket, controller)
    server.start()
    controller.start()
    log.info("controller started for %s (%d switches), control socket %s; probing each "
             "link every %.0f ms", topology.fabric.spec, len(topology.fabric.switches),
             args.control_socket, args.probe_interval * 1e3)
    stop.wait()
    log.info("stopping")
    server.close()
    controller.stop()
    return 0

if __name__ == "__main__":
    sys.exit(main())
