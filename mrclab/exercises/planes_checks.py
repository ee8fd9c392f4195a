"""Checks of the planes exercise: the student's plane rules (planes.py) one by one, in the
project's EV pool, and in the project's sender on a simulated two-plane fabric, with and
without a plane failing (all deterministic)."""

from __future__ import annotations

import random
from collections import Counter
from functools import partial
from types import ModuleType

from mrclab.endpoint.core.ev_pool import EvPool
from mrclab.endpoint.core.sender import MrcSender
from mrclab.endpoint.wire import MsgType
from mrclab.exercises.student_code import load_student_module
from mrclab.exercises.workspace import Workspace

PLANES_FILE = "planes.py"
NEEDS = ("plane_order", "plane_suspect", "trusted_planes")


def rules(ws: Workspace) -> ModuleType:
    return load_student_module(ws.path(PLANES_FILE), NEEDS)


def _same_order(got: object, want: object) -> bool:
    """The same planes in the same order, whatever sequence holds them (the pool only
    iterates over it)."""
    try:
        return list(got) == want
    except TypeError:
        return False


def _equal(got: object, want: object) -> bool:
    return got == want


def _cases(fn, cases: list[tuple[tuple, object]], same=_same_order) -> str:
    """'' when `fn` answers every case as expected, else the first that it does not."""
    for args, want in cases:
        got = fn(*args)
        if not same(got, want):
            shown = ", ".join(repr(sorted(a)) if isinstance(a, frozenset) else repr(a)
                              for a in args)
            return f"{fn.__name__}({shown}) returned {got!r}, which is not right"
    return ""


# ------------------------------------------------------------------------ the rules, one by one
def planes_in_turn(ws: Workspace, target: str) -> tuple[bool, str]:
    wrong = _cases(rules(ws).plane_order, [
        ((0, 3, None), [0, 1, 2]), ((1, 3, None), [1, 2, 0]), ((2, 3, None), [2, 0, 1]),
        ((1, 2, None), [1, 0]), ((0, 1, None), [0]), ((3, 4, None), [3, 0, 1, 2]),
        ((5, 8, None), [5, 6, 7, 0, 1, 2, 3, 4])])
    return not wrong, wrong or "every plane once, from the one whose turn it is"


def suspect_planes_left_out(ws: Workspace, target: str) -> tuple[bool, str]:
    wrong = _cases(rules(ws).plane_order, [
        ((1, 3, frozenset({0, 2})), [2, 0]), ((0, 2, frozenset({1})), [1]),
        ((2, 4, frozenset({0, 1, 3})), [3, 0, 1])])
    return not wrong, wrong or "planes not trusted are left out"


def suspect_rule(ws: Workspace, target: str) -> tuple[bool, str]:
    wrong = _cases(rules(ws).plane_suspect, [
        ((-1.0, -1.0), False),  # nothing sent yet
        ((-1.0, 0.5), False),  # delivered, never lost
        ((0.5, -1.0), True),  # lost before anything was delivered
        ((0.7, 0.5), True),  # lost a packet sent after its latest delivery
        ((0.5, 0.7), False),  # a packet sent after the loss got through
        ((0.5, 0.5), False),
        ((0.0, -1.0), True),  # the first packet, sent at time 0, lost
        ((0.0, 0.0), False),
        ((2e-6, 1e-6), True)], same=_equal)
    return not wrong, wrong or "suspect only while a loss is newer than the latest delivery"


def _same_trust(got: object, want: frozenset[int] | None, n: int) -> bool:
    # every plane trusted is the same as None: nothing to prefer
    def norm(x):
        return None if x is None or (isinstance(x, frozenset | set) and len(x) == n) \
            else frozenset(x) if isinstance(x, frozenset | set | list | tuple) else x
    return norm(got) == norm(want)


def trusted_rule(ws: Workspace, target: str) -> tuple[bool, str]:
    fn = rules(ws).trusted_planes
    cases = [([False, False], None), ([False, True], frozenset({0})),
             ([True, False, False], frozenset({1, 2})), ([True, True], None),
             ([True, True, True], None), ([False, True, True, False], frozenset({0, 3}))]
    for suspect, want in cases:
        got = fn(list(suspect))
        if not _same_trust(got, want, len(suspect)):
            return False, f"trusted_planes({suspect}) returned {got!r}, which is not right"
    return True, "the planes not suspect; None when all or none are"


# ------------------------------------------------------------------------ in the EV pool
def _pool(ws: Workspace, planes: int = 3) -> EvPool:
    return EvPool(planes, 64, random.Random(7), retire_after=1, plane_rules=rules(ws))


def _spread(pool: EvPool, packets: int, now: float = 0.0) -> list[int]:
    per = Counter(pool.choose(now).plane for _ in range(packets))
    return [per[p] for p in range(len(pool.planes))]


def _even(counts: list[int], planes: list[int]) -> bool:
    total = sum(counts)
    return all(abs(counts[p] - total / len(planes)) <= 0.02 * total for p in planes) and \
        sum(counts[p] for p in planes) == total


def pool_spreads_over_planes(ws: Workspace, target: str) -> tuple[bool, str]:
    pool = _pool(ws)
    first = _spread(pool, 3000)
    for st in pool.planes[1]:
        pool.on_loss(st, 0.0, 1.0)
    second = _spread(pool, 2000)
    detail = (f"3 planes, 3000 packets: {first} per plane; plane 1's EVs all retired, "
              f"2000 more: {second}")
    return _even(first, [0, 1, 2]) and _even(second, [0, 2]), detail


def pool_leaves_suspect_plane(ws: Workspace, target: str) -> tuple[bool, str]:
    pool = _pool(ws)
    for plane in range(3):
        pool.on_delivered(pool.planes[plane][0], 0.5)
    pool.note_lost(pool.planes[2][1], 1.0)  # plane 2 lost a packet sent after its delivery
    suspect = _spread(pool, 1500)
    pool.on_delivered(pool.planes[2][2], 1.1)  # a packet sent after that loss got through
    cleared = _spread(pool, 1500)
    for plane in range(3):
        pool.note_lost(pool.planes[plane][3], 2.0)
    all_suspect = _spread(pool, 1500)
    detail = (f"3 planes, 1500 packets each time: plane 2 suspect {suspect}, plane 2 "
              f"delivered again {cleared}, every plane suspect {all_suspect}")
    ok = _even(suspect, [0, 1]) and _even(cleared, [0, 1, 2]) and _even(all_suspect, [0, 1, 2])
    return ok, detail


# ------------------------------------------------------------------------ random inputs
PROPERTY_SEED, PROPERTY_CASES = 97, 300


def random_rule_inputs(ws: Workspace, target: str) -> tuple[bool, str]:
    """Seeded random inputs to the three rules, against the pool's own rules: plane
    counts 1-8, any turn, any trusted set; send times with -1 (none), 0 and ties."""
    import random

    from mrclab.endpoint.core.ev_pool import DEFAULT_PLANE_RULES as REF

    mine = rules(ws)
    rng = random.Random(PROPERTY_SEED)
    for k in range(1, PROPERTY_CASES + 1):
        n = rng.randrange(1, 9)
        trusted = None if rng.random() < 0.4 else frozenset(
            rng.sample(range(n), rng.randrange(1, n + 1)))
        args = (rng.randrange(n), n, trusted)
        wrong = _cases(mine.plane_order, [(args, REF.plane_order(*args))])
        times = (-1.0, 0.0, 1e-6, 5e-5, rng.random() * 1e-3)
        pair = (rng.choice(times), rng.choice(times))
        wrong = wrong or _cases(mine.plane_suspect, [(pair, REF.plane_suspect(*pair))],
                                same=_equal)
        suspect = [rng.random() < 0.4 for _ in range(n)]
        got = mine.trusted_planes(list(suspect))
        if not wrong and not _same_trust(got, REF.trusted_planes(suspect), n):
            wrong = f"trusted_planes({suspect}) returned {got!r}, which is not right"
        if wrong:
            return False, f"case {k} (seed {PROPERTY_SEED}): {wrong}"
    return True, f"{PROPERTY_CASES} random inputs to each rule, every answer the pool's own"


def random_pool_histories(ws: Workspace, target: str) -> tuple[bool, str]:
    """Seeded random histories on two EV pools of 2-4 planes, one with the student's rules
    and one with its own: deliveries and losses per plane (a plane losing, then delivering
    again, then losing), EVs retired and answering probes; the plane of every packet in
    between must be the same."""
    import random

    from mrclab.endpoint.core.ev_pool import EvPool

    student = rules(ws)
    rng = random.Random(PROPERTY_SEED + 1)
    for k in range(1, 41):
        n = rng.randrange(2, 5)
        mine = EvPool(n, 8, random.Random(k), retire_after=1, plane_rules=student)
        ref = EvPool(n, 8, random.Random(k), retire_after=1)
        done: list[str] = []
        now = 0.0
        for _ in range(30):
            now += 1e-5
            plane, i = rng.randrange(n), rng.randrange(8)
            a, b = mine.planes[plane][i], ref.planes[plane][i]
            roll = rng.random()
            sent = now - rng.choice((0.0, 2e-5, 5e-5))
            if roll < 0.35:
                done.append(f"plane {plane} delivered a packet sent at {sent * 1e6:.0f} us")
                mine.on_delivered(a, sent)
                ref.on_delivered(b, sent)
            elif roll < 0.65:
                done.append(f"plane {plane} lost a packet sent at {sent * 1e6:.0f} us")
                mine.note_lost(a, sent)
                ref.note_lost(b, sent)
            else:
                done.append(f"EV {i} of plane {plane} retired")
                mine.on_loss(a, now, 1.0)
                ref.on_loss(b, now, 1.0)
            got = [mine.choose(now).plane for _ in range(3 * n)]
            want = [ref.choose(now).plane for _ in range(3 * n)]
            if got != want:
                return False, (f"case {k} (seed {PROPERTY_SEED + 1}), {n} planes, at "
                               f"{now * 1e6:.0f} us: ... " + "; ".join(done[-5:])
                               + f": the next {3 * n} packets went on planes {got}, "
                               "which is not right")
    return True, "40 random histories of 30 events: every packet on the pool's own plane"


# ------------------------------------------------------------------------ two planes, simulated
SPEC = "multiplane:planes=2,base=fattree:k=4"
SIZE = 3000 * 1024  # 763 packets of 4 KiB: about 170 us on two 100 Gb/s planes
FAIL_AT = 80e-6  # about halfway
DETECT_S = 40e-6  # a few RTTs to find the failure: packets sent later must avoid the plane


class _PlaneLog(MrcSender):
    """The project's sender, keeping (time, plane) of every DATA packet it sends."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.data_log: list[tuple[float, int]] = []

    def poll(self, now: float):
        out = super().poll(now)
        self.data_log += [(now, o.plane) for o in out if o.header.type == MsgType.DATA]
        return out


def _transfer(ws: Workspace, fail_at: float | None):
    from mrclab.endpoint.host import FlowSpec
    from mrclab.fabric.spec import parse_spec
    from mrclab.sim import SimNetwork, SimSettings

    net = SimNetwork(parse_spec(SPEC), SimSettings())
    net.start()
    flow = net.add_flow(FlowSpec("h1", "h16", SIZE),
                        sender_class=partial(_PlaneLog, plane_rules=rules(ws)))
    if fail_at is not None:
        net.fail_plane(1, at=fail_at)
    net.run_flows(0.05)
    intact = [m for m in net.hosts["h16"].messages if m.ok and m.length == SIZE]
    return flow.sender, len(intact) == 1


def _per_plane(log: list[tuple[float, int]], start: float = 0.0,
               end: float = float("inf")) -> list[int]:
    return [sum(1 for t, p in log if p == plane and start <= t < end) for plane in (0, 1)]


def two_planes_share(ws: Workspace, target: str) -> tuple[bool, str]:
    s, intact = _transfer(ws, None)
    per = _per_plane(s.data_log)
    share = min(per) / max(1, sum(per))
    detail = (f"3000 KB h1->h16 over 2 planes: DATA packets per plane {per} "
              f"({share:.0%} on the lesser, >= 40 %)")
    if not (s.done and intact):
        return False, f"transfer not delivered ({s.error or 'time limit'}); {detail}"
    return share >= 0.4, detail


def plane_failure_survived(ws: Workspace, target: str) -> tuple[bool, str]:
    s, intact = _transfer(ws, FAIL_AT)
    before = _per_plane(s.data_log, end=FAIL_AT)
    after = _per_plane(s.data_log, start=FAIL_AT + DETECT_S)
    detail = (f"plane 1 fails at {FAIL_AT * 1e6:.0f} us: DATA per plane before {before}, "
              f"from {(FAIL_AT + DETECT_S) * 1e6:.0f} us on {after}; "
              f"{len(s.pool.retirements)} EVs retired, {s.stats.timeouts} timeouts")
    if not (s.done and intact):
        return False, f"transfer not delivered ({s.error or 'time limit'}); {detail}"
    ok = min(before) >= 0.4 * sum(before) and after[1] == 0 and after[0] > 0 \
        and s.stats.timeouts <= 1
    return ok, detail
