"""Checks of the endpoint exercise on the simulator: the project's sender with the
student's recovery.py, over paths that trim, lose, fail and recover (deterministic)."""

from __future__ import annotations

from mrclab.endpoint.core.sender import SenderConfig
from mrclab.exercises.student_code import load_student_module
from mrclab.exercises.student_endpoint import NEEDS, student_sender
from mrclab.exercises.workspace import Workspace
from mrclab.sim.pathmodel import PathSpec, TransferResult, ev_path_index, run_transfer

MB = 1 << 20
PATHS = 8
RECOVERY_FILE = "recovery.py"


def _run(ws: Workspace, specs: list[PathSpec], seed: int, size: int = 4 * MB,
         cfg: SenderConfig | None = None) -> TransferResult:
    policy = load_student_module(ws.path(RECOVERY_FILE), NEEDS)
    return run_transfer(size, [specs], seed=seed, sender_cfg=cfg, max_time=20.0,
                        sender_class=student_sender(policy))


def _delivered(r: TransferResult) -> str:
    """'' when the message arrived whole and once, else what went wrong."""
    if not r.completed:
        return f"transfer incomplete: {r.sender.error or 'time limit reached'}"
    if not r.intact or len(r.messages) != 1:
        return "message corrupt or delivered twice"
    return ""


def _trimming(ws: Workspace) -> TransferResult:
    # a small trim threshold and a big initial window: hundreds of trims and NACKs
    specs = [PathSpec(trim_threshold=4, ecn_threshold=None) for _ in range(PATHS)]
    return _run(ws, specs, seed=4, cfg=SenderConfig(init_cwnd=200, seed=4))


def nack_resend_on_another_ev(ws: Workspace, target: str) -> tuple[bool, str]:
    r = _trimming(ws)
    resends = [x for x in r.sender.pool.policy.resends if x.had_other]
    same = sum(x.chosen is x.avoided for x in resends)
    detail = (f"{r.sender.stats.nacks} NACKs, {len(resends)} resends, {same} of them on the "
              f"EV they were trimmed or lost on")
    problem = _delivered(r)
    return (not problem and resends and same == 0, problem or detail)


def trimming_without_timeouts(ws: Workspace, target: str) -> tuple[bool, str]:
    r = _trimming(ws)
    s = r.sender.stats
    detail = (f"{s.nacks} NACKs, {s.nack_retransmits} resent at once, {s.timeouts} timeouts, "
              f"{r.finish_time or 0:.3f} s")
    problem = _delivered(r)
    return (not problem and s.nacks > 0 and s.timeouts == 0, problem or detail)


def failed_paths_retired(ws: Workspace, target: str) -> tuple[bool, str]:
    fail_at = 0.03
    specs = [PathSpec(fail_at=fail_at if i < 2 else None) for i in range(PATHS)]
    r = _run(ws, specs, seed=5, size=8 * MB)
    s = r.sender
    dead = {st.ev for st in s.pool.planes[0] if ev_path_index(st.ev, PATHS) < 2}
    used_after = {ev for t, _p, ev in r.sends if ev in dead and t >= fail_at}
    retired = {ret.ev for ret in s.pool.retirements if ret.time >= fail_at}
    wrong = {ret.ev for ret in s.pool.retirements} - dead
    detail = (f"2 of {PATHS} paths fail at {fail_at} s: {len(used_after & retired)} of "
              f"{len(used_after)} EVs that crossed them retired, {len(wrong)} EVs of live "
              f"paths retired, {s.stats.timeouts} timeouts")
    problem = _delivered(r)
    ok = not problem and used_after and used_after <= retired and s.stats.timeouts <= 2
    return (bool(ok), problem or detail)


def random_loss_keeps_evs(ws: Workspace, target: str) -> tuple[bool, str]:
    r = _run(ws, [PathSpec(loss=0.02) for _ in range(PATHS)], seed=3)
    pool = r.sender.pool
    down = len(pool.retired_now())
    total = len(pool.all())
    detail = (f"2 % loss on every path: {len(pool.retirements)} retirements, {down} of "
              f"{total} EVs out of service at the end")
    problem = _delivered(r)
    return (not problem and down <= total // 4, problem or detail)


def repaired_paths_reinstated(ws: Workspace, target: str) -> tuple[bool, str]:
    specs = [PathSpec(fail_at=0.01 if i < 2 else None, recover_at=0.03 if i < 2 else None)
             for i in range(PATHS)]
    r = _run(ws, specs, seed=9, size=8 * MB)
    s = r.sender
    dead = {st.ev for st in s.pool.planes[0] if ev_path_index(st.ev, PATHS) < 2}
    back = dead & {ev for t, _p, ev in r.sends if t > 0.05}
    detail = (f"2 paths down 10-30 ms: {len(s.pool.retirements)} retirements, "
              f"{s.stats.probes_sent} probes, {s.pool.reinstatements} reinstated, "
              f"{len(back)} of their EVs carry data after 50 ms")
    problem = _delivered(r)
    ok = not problem and s.pool.reinstatements > 0 and back
    return (bool(ok), problem or detail)


def retirement_rule(ws: Workspace, target: str) -> tuple[bool, str]:
    """on_loss() itself, loss by loss, with retire_after = 3: the rule the pool relies on
    (the transfers above run with the sender's default of 1, where counting in a row, the
    total and the first loss look alike)."""
    from mrclab.endpoint.core.ev_pool import EvState, EvStatus

    policy = load_student_module(ws.path(RECOVERY_FILE), NEEDS)
    st = EvState(ev=1, plane=0)
    verdicts = [policy.on_loss(st, 3) for _ in range(3)]
    if verdicts != [False, False, True]:
        return False, f"losses 1, 2, 3 in a row with retire_after 3: on_loss said {verdicts}"
    if (st.losses, st.losses_in_row) != (3, 3):
        return False, (f"after 3 losses st.losses = {st.losses}, st.losses_in_row = "
                       f"{st.losses_in_row}; both must count every loss")
    st = EvState(ev=2, plane=0, losses=5, losses_in_row=0)  # an ACK came after 5 losses
    if policy.on_loss(st, 3):
        return False, "the first loss after an ACK (5 losses before it) retired the EV"
    for status in (EvStatus.FAILED, EvStatus.PROBING):
        st = EvState(ev=3, plane=0, status=status, losses_in_row=5)
        if policy.on_loss(st, 3):
            return False, f"an EV already {status.value} was retired again"
    return True, "retires at the 3rd loss in a row, never counting across an ACK or twice"


def retirement_in_every_mode(ws: Workspace, target: str) -> tuple[bool, str]:
    """on_loss() with retire_after 1, 2 and 5, on an EV in service (GOOD or CONGESTED: both
    usable), and losses in a row, then an ACK, then losses again."""
    from mrclab.endpoint.core.ev_pool import EvState, EvStatus

    policy = load_student_module(ws.path(RECOVERY_FILE), NEEDS)
    for retire_after in (1, 2, 5):
        for status in (EvStatus.GOOD, EvStatus.CONGESTED):
            st = EvState(ev=1, plane=0, status=status)
            verdicts = [policy.on_loss(st, retire_after) for _ in range(retire_after)]
            want = [False] * (retire_after - 1) + [True]
            if verdicts != want:
                return False, (f"an EV {status.value} (in service), retire_after "
                               f"{retire_after}: losses 1-{retire_after} in a row gave "
                               f"{verdicts}")
    st = EvState(ev=2, plane=0)
    said = [policy.on_loss(st, 3), policy.on_loss(st, 3)]
    st.losses_in_row = 0  # an ACK came: the pool starts the row again
    said += [policy.on_loss(st, 3) for _ in range(3)]
    if said != [False, False, False, False, True]:
        return False, f"retire_after 3: 2 losses, an ACK, 3 losses: on_loss said {said}"
    return True, "retires at the retire_after-th loss in a row, GOOD or CONGESTED"


PROPERTY_SEED, PROPERTY_CASES, PROPERTY_EVENTS = 83, 40, 60


def _pools(policy, rng_seed: int, retire_after: int, routed: bool):
    import random

    from mrclab.endpoint.core.ev_pool import EvPool
    from mrclab.exercises.student_endpoint import StudentRecovery

    routes = ((0x0102000000000000, 0x0203000000000000, 0x0304000000000000),) if routed else ()
    make = dict(planes=1, evs_per_plane=6, retire_after=retire_after, routes=routes)
    mine = EvPool(rng=random.Random(rng_seed), policy=StudentRecovery(policy), **make)
    ref = EvPool(rng=random.Random(rng_seed), **make)  # the pool's own rule
    return mine, ref


def _state(pool) -> list[tuple]:
    return [(st.status.value, st.losses, st.losses_in_row) for st in pool.all()]


def random_pool_histories(ws: Workspace, target: str) -> tuple[bool, str]:
    """Seeded random events on an EV pool that runs the student's rules, and on one that
    runs its own: losses, ACKs (clean or marked), resends, probes and reinstatements, with
    retire_after 1-4 and hashed or source-routed EVs. After every event the EVs' states
    and counts, and every resend's EV, must be the same."""
    import random

    policy = load_student_module(ws.path(RECOVERY_FILE), NEEDS)
    rng = random.Random(PROPERTY_SEED)
    for k in range(1, PROPERTY_CASES + 1):
        retire_after, routed = rng.randrange(1, 5), rng.random() < 0.3
        mine, ref = _pools(policy, k, retire_after, routed)
        done: list[str] = []
        now = 0.0
        for _ in range(PROPERTY_EVENTS):
            now += 1e-4
            i = rng.randrange(6)
            a, b = mine.all()[i], ref.all()[i]
            roll = rng.random()
            if roll < 0.45:
                what = f"loss on EV {i} ({b.status.value})"
                got, want = mine.on_loss(a, now, 1e-3), ref.on_loss(b, now, 1e-3)
            elif roll < 0.7:
                marked = rng.random() < 0.3
                what = f"{'marked ' if marked else ''}ACK on EV {i}"
                mine.on_feedback(a, marked, now, 1e-3)
                ref.on_feedback(b, marked, now, 1e-3)
                got = want = None
            elif roll < 0.9:
                what = f"resend of a packet sent on EV {i}"
                got = mine.all().index(mine.choose(now, a))
                want = ref.all().index(ref.choose(now, b))
            else:
                what = f"a probe of EV {i} answered"
                got = mine.on_delivered(a, now) if not a.usable else None
                want = ref.on_delivered(b, now) if not b.usable else None
            done.append(what)
            if got != want or _state(mine) != _state(ref):
                shown = "; ".join(done[-6:])
                mode = f"retire_after {retire_after}, {'source-routed' if routed else 'hashed'} EVs"
                if got != want:
                    problem = f"it returned {got!r}"
                else:
                    j = next(j for j, (x, y) in enumerate(zip(_state(mine), _state(ref),
                                                             strict=True)) if x != y)
                    st = mine.all()[j]
                    problem = (f"EV {j} is then {st.status.value} with losses {st.losses}, "
                               f"losses_in_row {st.losses_in_row}, which is not right")
                return False, (f"case {k} of {PROPERTY_CASES} (seed {PROPERTY_SEED}), {mode}, "
                               f"event {len(done)}: ... {shown}: {problem}")
    return True, (f"{PROPERTY_CASES} random pool histories of {PROPERTY_EVENTS} events: "
                  "every state and resend as the pool's own rule")
