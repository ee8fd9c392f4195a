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


# --- histories: the controller calls next_hops() after every link event, on one fabric
def _history(ws: Workspace, spec: str, steps: list[tuple[str, set]]) -> tuple[bool, str]:
    """Each step (what happened, the links down now) calls next_hops() once more on the same
    fabric object, in this process, as the controller does; every result must be the
    project's for that step's down set."""
    policy = load_student_module(ws.path(POLICY_FILE), ("next_hops",))
    fabric = parse_spec(spec)
    before = "healthy"
    for n, (what, down) in enumerate(steps, start=1):
        got = policy.next_hops(fabric, set(down))
        if not isinstance(got, dict):
            return False, f"next_hops returned {type(got).__name__}, not a dict"
        diff = _into_dead_link(got, down) or _first_difference(
            got, compute_next_hops(parse_spec(spec), down))
        if diff:
            return False, (f"{spec}, call {n} of {len(steps)} ({what}; the call before: "
                           f"{before}): {diff}")
        before = what
    return True, f"{spec}: {len(steps)} calls in a row, each as the live links say"


def calls_in_a_row(ws: Workspace, target: str) -> tuple[bool, str]:
    fabric = parse_spec("fattree:k=4")
    c1a7, = _links(fabric, ("c1", "a7"))
    c3a2, = _links(fabric, ("c3", "a2"))
    e3a3, = _links(fabric, ("e3", "a3"))
    return _history(ws, "fattree:k=4", [
        ("healthy", set()),
        ("c1-a7 down", {c1a7}),
        ("c1-a7 back up", set()),
        ("c3-a2 and e3-a3 down", {c3a2, e3a3}),
        ("c3-a2 back up, c1-a7 down", {e3a3, c1a7}),
        ("all back up", set()),
    ])


RANDOM_SPECS = ("fattree:k=4", "leafspine:leaves=4,spines=4,hosts=2",
                "multiplane:planes=2,base=leafspine:leaves=3,spines=2,hosts=2")
PROPERTY_SEED, PROPERTY_CALLS = 61, 30


def random_down_sets(ws: Workspace, target: str) -> tuple[bool, str]:
    """Seeded random sets of 0-5 dead links on three kinds of fabric, one call after the
    other on the same fabric, each against the project's routes."""
    import random

    rng = random.Random(PROPERTY_SEED)
    for spec in RANDOM_SPECS:
        links = sorted(link_id(lk) for lk in parse_spec(spec).fabric_links())
        steps = []
        for _ in range(PROPERTY_CALLS):
            down = set(rng.sample(links, rng.randrange(0, 6)))
            steps.append((", ".join("-".join(f"{s}:{p}" for s, p in lk) for lk in sorted(down))
                          + " down" if down else "no link down", down))
        ok, detail = _history(ws, spec, steps)
        if not ok:
            return False, f"seed {PROPERTY_SEED}: {detail}"
    return True, (f"{len(RANDOM_SPECS)} fabrics, {PROPERTY_CALLS} random down sets each, in a "
                  "row: every route as the live links say")
