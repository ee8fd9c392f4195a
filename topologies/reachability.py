"""All-pairs reachability check that pings from every host at once (faster than pingAll)."""

from __future__ import annotations

import logging
import re

from mininet.net import Mininet

from fabric_model.model import Fabric

log = logging.getLogger(__name__)

_FAILED = re.compile(r"^FAIL (\S+)$", re.MULTILINE)


def ping_all_pairs(net: Mininet, fabric: Fabric, wait_s: int = 1,
                   count: int = 1) -> list[tuple[str, str]]:
    """Ping every other host's address on every plane, from all hosts concurrently.

    Returns the (source host, destination IP) pairs that got no reply.
    """
    targets: dict[str, list[str]] = {}
    for host in fabric.hosts.values():
        targets[host.name] = [nic.ip for other in fabric.hosts.values() if other is not host
                              for nic in other.nics]
    nodes = {name: net.get(name) for name in targets}
    for name, node in nodes.items():
        # one background ping per target, then wait for all; report failures by address
        script = " ".join(
            f"(ping -n -q -c {count} -W {wait_s} {ip} >/dev/null 2>&1 || echo FAIL {ip}) &"
            for ip in targets[name])
        node.sendCmd(f"{script} wait")
    failed: list[tuple[str, str]] = []
    for name, node in nodes.items():
        output = node.waitOutput()
        failed += [(name, ip) for ip in _FAILED.findall(output)]
    if failed:
        log.info("%d of %d pairs unreachable", len(failed),
                 sum(len(v) for v in targets.values()))
    return failed
