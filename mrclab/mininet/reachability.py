"""All-pairs reachability: every host pings every other host's addresses at once, with
fping, paced so that the whole fabric's probes stay within what software switches
forward (a k=8 fat-tree has 16,256 pairs; 127 plain pings per host at once overflowed
the switch queues, lost replies and never converged)."""

from __future__ import annotations

import logging
import math

from mininet.net import Mininet

import mrclab.mininet.plain_loggers  # noqa: F401 (after Mininet: see there)
from mrclab.fabric.model import Fabric

log = logging.getLogger(__name__)

# echo requests and replies per second, all hosts together, times the switches each
# crosses: what two p4emu switch processes forward on this 2-core machine beside the
# controller's probes, with room to spare (measured: a k=8 fat-tree's 16,256 pairs in 33 s
# without a loss; docs/lab-capacity.md)
PACKET_HOPS_PER_S = 5000
RETRIES = 2  # after the first echo request: a ping lost in a burst is not a failure


def ping_interval_ms(fabric: Fabric) -> int:
    """fping's gap between two pings of one host (ms, at least fping's 1): all hosts at
    once send at most PACKET_HOPS_PER_S packet-hops' worth of pings (request and reply)."""
    hops = 2 * fabric.max_switch_hops()
    return max(1, math.ceil(len(fabric.hosts) * hops * 1000 / PACKET_HOPS_PER_S))


def ping_all_pairs(net: Mininet, fabric: Fabric, wait_s: float = 1.0) -> list[tuple[str, str]]:
    """Ping every other host's address on every plane, from all hosts concurrently, until
    one reply (a target is retried up to RETRIES times; `wait_s` is the first reply's
    timeout). Returns the (source host, destination IP) pairs unreachable."""
    interval = ping_interval_ms(fabric)
    nodes = {}
    for host in fabric.hosts.values():
        targets = [nic.ip for other in fabric.hosts.values() if other is not host
                   for nic in other.nics]
        node = nodes[host.name] = net.get(host.name)
        # -u: the unreachable targets on stdout; -q: nothing else (ICMP errors: stderr)
        node.sendCmd(f"fping -q -u -r {RETRIES} -t {int(wait_s * 1000)} -i {interval} "
                     f"{' '.join(targets)} 2>/dev/null")
    failed: list[tuple[str, str]] = []
    for name, node in nodes.items():
        failed += [(name, ip) for ip in node.waitOutput().split()]
    if failed:
        log.info("%d of %d pairs unreachable", len(failed),
                 sum(len(fabric.hosts) - 1 for _ in fabric.hosts))
    return failed
