"""Checks of the failover exercise without a fabric: the student's next_hops() against the
project's route computation, on fabrics with links declared down."""

from __future__ import annotations

from mrclab.controller.next_hops import LinkId, NextHops, compute_next_hops, link_id
from mrclab.exercises.student_code import load_student_module
from mrclab.exercises.workspace import Workspace
from mrclab.fabric.model import Fabric
from mrclab.fabric.spec import parse_spec

POLICY_FILE = "policy.py"


def _links(fabric: Fabric, *pairs: tuple[str, str]) -> set[LinkId]:
    """The links between the given switch pairs."""
    wanted = {frozenset(p) for p in pairs}
    found = {link_id(lk) for lk in fabric.fabric_links() if frozenset((lk.a, lk.b)) in wanted}
    assert len(found) == len(wanted), pairs  # a scenario naming a link the fabric lacks
    return found


def _first_difference(got: NextHops, want: NextHops) -> str:
    for switch in sorted(want):
        mine, ref = got.get(switch, {}), want[switch]
        for ip in sorted(set(mine) | set(ref)):
            a, b = sorted(mine.get(ip, ())), sorted(ref.get(ip, ()))
            if a != b:
                return (f"{switch} -> {ip}: your ports {a or 'none'}, expected "
                        f"{b or 'none (unreachable)'}")
    return ""


def _into_dead_link(got: NextHops, down: set[LinkId]) -> str:
    """The first route that still sends into a dead link ('' when none does)."""
    dead = {end: link for link in down for end in link}
    for switch in sorted(got):
        for ip, ports in sorted(got[switch].items()):
            for port in sorted(ports):
                if (switch, port) in dead:
                    (a, pa), (b, pb) = dead[(switch, port)]
                    return f"{switch} -> {ip}: port {port} leads into the dead link {a}-{b}"
    return ""


def _compare(ws: Workspace, spec: str, *dead: tuple[str, str]) -> tuple[bool, str]:
    policy = load_student_module(ws.path(POLICY_FILE), ("next_hops",))
    fabric = parse_spec(spec)
    down = _links(fabric, *dead)
    got = policy.next_hops(fabric, set(down))
    if not isinstance(got, dict):
        return False, f"next_hops returned {type(got).__name__}, not a dict"
    diff = _into_dead_link(got, down) or _first_difference(got, compute_next_hops(fabric, down))
    routes = sum(len(v) for v in got.values())
    failed = f" with {', '.join('-'.join(p) for p in dead)} down" if dead else ""
    return (not diff, diff or f"{spec}{failed}: all {routes} routes right")


def healthy_fabric(ws: Workspace, target: str) -> tuple[bool, str]:
    return _compare(ws, "fattree:k=4")


def one_core_link_down(ws: Workspace, target: str) -> tuple[bool, str]:
    return _compare(ws, "fattree:k=4", ("c1", "a7"))


def several_links_down(ws: Workspace, target: str) -> tuple[bool, str]:
    # c3-a2 and a2's other core link c4-a2: pod 1's a2 loses every way up, and e1's
    # uplinks then differ in length
    return _compare(ws, "fattree:k=4", ("c3", "a2"), ("c4", "a2"), ("e3", "a3"))


def leaf_spine_link_down(ws: Workspace, target: str) -> tuple[bool, str]:
    return _compare(ws, "leafspine:leaves=4,spines=2,hosts=2", ("l1", "s1"))


def wide_healthy_fabric(ws: Workspace, target: str) -> tuple[bool, str]:
    # four spines: a group of two is as wrong as a group of one
    return _compare(ws, "leafspine:leaves=4,spines=4,hosts=2")
