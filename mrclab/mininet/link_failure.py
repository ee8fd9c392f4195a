"""Failing a link the way both targets survive: drop what each end sends, interfaces up.

Bringing a BMv2 port's interface down freezes simple_switch's packet I/O on *all* its ports
until a packet arrives on that interface again (behavioral-model issue #1215, recent
kernels), so an admin-down link takes the whole switch with it. The default failure
instead installs, on both interfaces of the link, a filter that drops every frame the
interface sends:

- an nftables `netdev` table with an *egress* chain (policy drop), or where the kernel has
  no netdev egress hook (before Linux 5.16),
- a tc `clsact` qdisc with a `matchall` drop filter on egress.

Ingress filters do not work: a switch's raw socket sees frames before any ingress hook.
Either way the failure is gray: no carrier change, found by the controller's probes and by
the endpoints, as in a real fabric. Admin-down stays available as `ADMIN` for p4emu or to
study exactly that BMv2 behaviour.
"""

from __future__ import annotations

import re
from typing import Protocol

DROP = "drop"
ADMIN = "admin"
METHODS = (DROP, ADMIN)

TABLE_PREFIX = "mrclab_fail_"


class LinkFailureError(Exception):
    """The kernel refused every way to fail the link; one-line message."""


class Interface(Protocol):
    """The part of a Mininet `Intf` used here: a name and a node whose namespace runs it."""

    name: str
    node: object


def table_name(interface: str) -> str:
    """The nftables table that fails `interface` (nft names take no '-')."""
    return TABLE_PREFIX + re.sub(r"[^A-Za-z0-9_]", "_", interface)


def nft_block_ruleset(interface: str) -> str:
    return (f'table netdev {table_name(interface)} {{ chain egress {{ type filter hook egress '
            f'device "{interface}" priority 0; policy drop; }}; }}')


def _run(intf: Interface, *cmd: str) -> tuple[int, str]:
    """Run cmd in the namespace of the interface's node: (exit status, last output line)."""
    out, err, code = intf.node.pexec(*cmd)
    lines = (err or out).strip().splitlines()
    return code, lines[-1] if lines else ""


def block(intf: Interface) -> str:
    """Drop everything `intf` sends; returns the mechanism used ('nft' or 'tc')."""
    code, nft_err = _run(intf, "nft", nft_block_ruleset(intf.name))
    if code == 0:
        return "nft"
    _run(intf, "tc", "qdisc", "del", "dev", intf.name, "clsact")
    code, _ = _run(intf, "tc", "qdisc", "add", "dev", intf.name, "clsact")
    if code == 0:
        code, tc_err = _run(intf, "tc", "filter", "add", "dev", intf.name, "egress",
                            "matchall", "action", "drop")
        if code == 0:
            return "tc"
        _run(intf, "tc", "qdisc", "del", "dev", intf.name, "clsact")
    else:
        tc_err = "no clsact qdisc"
    raise LinkFailureError(
        f"cannot fail link at {intf.name}: nftables netdev egress ({nft_err or 'refused'}) "
        f"and tc matchall ({tc_err or 'refused'}) both unavailable; use the admin method "
        "(p4emu only: it freezes BMv2)")


def unblock(intf: Interface, mechanism: str) -> None:
    """Undo `block`, given the mechanism it returned."""
    if mechanism == "nft":
        _run(intf, "nft", "delete", "table", "netdev", table_name(intf.name))
    else:
        _run(intf, "tc", "qdisc", "del", "dev", intf.name, "clsact")


def set_admin(intf: Interface, up: bool) -> None:
    intf.ifconfig("up" if up else "down")
