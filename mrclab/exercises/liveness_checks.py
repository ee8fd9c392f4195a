"""Checks of the liveness exercise: the student's LinkVerdict on probe histories, against the
project's rule (`mrclab.controller.link_verdict`), and in the virtual-time simulator, where the
controller's own probing runs on it."""

from __future__ import annotations

from collections.abc import Callable

from mrclab.controller.link_verdict import LinkVerdict
from mrclab.controller.next_hops import link_id
from mrclab.controller.probe_liveness import LinkStatus
from mrclab.exercises.student_code import load_student_module
from mrclab.exercises.workspace import Workspace

LIVENESS_FILE = "liveness.py"
Events = list[tuple[int, str]]  # (round, "down" | "up")


def _student(ws: Workspace) -> type:
    return load_student_module(ws.path(LIVENESS_FILE), ("LinkVerdict",)).LinkVerdict


def history(pattern: str, extra: dict[int, list[int]] | None = None) -> dict[int, list[int]]:
    """The answers arriving in each round, from one character per probe (probe r goes out
    in round r): `a` answered in its own round, `1`-`9` that many rounds late, `-` never.
    `extra`: more answers per round (duplicates, stale or unsent numbers), after those."""
    answers: dict[int, list[int]] = {}
    for r, c in enumerate(pattern, start=1):
        if c != "-":
            answers.setdefault(r + (0 if c == "a" else int(c)), []).append(r)
    for r, seqs in (extra or {}).items():
        answers.setdefault(r, []).extend(seqs)
    return answers


def drive(verdict: Callable[..., object], rounds: int, answers: dict[int, list[int]],
          miss_limit: int = 3, up_after: int = 2, up: bool = True,
          held: frozenset[int] = frozenset()) -> Events:
    """What the controller declares, round by round: the calls
    `mrclab.controller.probe_liveness` makes, in its order. A silence is proven a failure
    at once, except in the rounds in `held` (a switch of the link has not shown it works
    since): there the controller holds the verdict and asks start_round() again the next
    round."""
    v = verdict(miss_limit, up_after, up)
    events: Events = []
    for r in range(1, rounds + 1):
        if v.start_round() and r not in held:
            v.went_down()
            events.append((r, "down"))
        v.probe_sent()
        for seq in answers.get(r, []):
            if v.counts(seq) and v.answer(seq):
                events.append((r, "up"))
    return events


def _show(events: Events) -> str:
    return ", ".join(f"{what} at round {r}" for r, what in events) or "nothing"


def _args(kwargs: dict) -> str:
    shown = {"miss_limit": 3, "up_after": 2} | kwargs
    if "held" in shown:
        shown["held in rounds"] = ", ".join(map(str, sorted(shown.pop("held"))))
    return ", ".join(f"{k} {v}" for k, v in shown.items())


def _compare(ws: Workspace, cases: list[tuple[str, int, dict[int, list[int]], dict]]
             ) -> tuple[bool, str]:
    """Each case (what it is, rounds, answers, LinkVerdict arguments and `held`): the
    student's declarations must be the project's."""
    student = _student(ws)
    for what, rounds, answers, kwargs in cases:
        got = drive(student, rounds, answers, **kwargs)
        want = drive(LinkVerdict, rounds, answers, **kwargs)
        if got != want:
            return False, (f"{what} ({_args(kwargs)}): declared {_show(got)}; expected "
                           f"{_show(want)}")
    return True, f"{len(cases)} probe histories, every verdict in the right round"


def down_after_misses(ws: Workspace, target: str) -> tuple[bool, str]:
    dead = "a" * 5 + "-" * 12
    return _compare(ws, [
        (f"probes 6-{len(dead)} unanswered", len(dead), history(dead), {"miss_limit": m})
        for m in (3, 1, 5)])


def late_answers_keep_it_up(ws: Workspace, target: str) -> tuple[bool, str]:
    return _compare(ws, [
        ("every answer two rounds late", 20, history("a" + "2" * 17), {}),
        ("every other probe lost", 20, history("a-" * 10), {}),
        ("late, lost and out of order", 24, history("a1-2a-a21-1aa-2a1a2-a1a"), {}),
    ])


def only_new_answers_count(ws: Workspace, target: str) -> tuple[bool, str]:
    stale = {r: [r - 5] for r in range(7, 20)}  # each round, a replay of an old answer
    down = "aaa" + "-" * 5 + "a" + "-" * 6  # down at round 7; probe 9 answered, twice
    return _compare(ws, [
        ("old answers replayed after new ones", 20, history("a" * 20, stale), {}),
        ("an answer to probe 1000, never sent, then the link dies", 12,
         history("aaa" + "-" * 9, {3: [1000]}), {}),
        ("a down link's one answer arriving twice", 16, history(down, {9: [9]}), {}),
    ])


def back_up_after_answers(ws: Workspace, target: str) -> tuple[bool, str]:
    back = "aaa" + "-" * 4 + "a" * 8
    return _compare(ws, [
        ("a link that never fails", 15, history("a" * 15), {}),
        *[("down at round 7, answering again from probe 8", len(back), history(back),
           {"up_after": n}) for n in (2, 1, 3)],
        ("starting down, answering from probe 1", 6, history("a" * 6), {"up": False}),
    ])


def flapping_link_stays_down(ws: Workspace, target: str) -> tuple[bool, str]:
    flap = "aaa" + "-" * 4 + "a-" * 5 + "aa" + "a" * 3
    late = "aaa" + "-" * 4 + "a--" * 3 + "aaa"
    return _compare(ws, [
        ("down, then answering every other probe, then two in a row", len(flap),
         history(flap), {}),
        ("down, then one answer in three", len(late), history(late), {"up_after": 3}),
    ])


def held_verdicts_asked_again(ws: Workspace, target: str) -> tuple[bool, str]:
    """The controller holds a down verdict while a switch of the link has not shown it
    works, and asks start_round() again the next round: the verdict must still be there."""
    dead = "a" * 5 + "-" * 12  # silent from probe 6: down at round 9 unless held
    back = "a" * 3 + "-" * 4 + "a" * 8
    return _compare(ws, [
        ("probes 6-17 unanswered, the verdict held for 2 rounds", len(dead), history(dead),
         {"held": frozenset({9, 10})}),
        ("probes 6-17 unanswered, held for 3 rounds, miss_limit 1", len(dead), history(dead),
         {"miss_limit": 1, "held": frozenset({7, 8, 9})}),
        ("probes 4-7 unanswered, held, then answering again", len(back), history(back),
         {"held": frozenset({7, 8, 9})}),
        ("down at round 7, then answering again, a later silence held", 20,
         history("aaa----aaaaa--------"), {"held": frozenset({16})}),
    ])


def late_answers_while_down(ws: Workspace, target: str) -> tuple[bool, str]:
    """While down, answers arriving late with misses among them: up_after answers in a
    row from the newest probe answered, whatever the rounds they came in."""
    return _compare(ws, [
        ("down at round 7; probe 8 answered 2 rounds late, 9 lost, 10 on time, 11 late",
         18, history("aaa----2-a1aaaaaaa"), {"up_after": 2}),
        ("down at round 7; answers 1-3 rounds late with losses between", 22,
         history("aaa----3-2--1aa-aaaaaa"), {"up_after": 3}),
        ("down at round 7; every answer 2 rounds late", 18, history("aaa----" + "2" * 11), {}),
    ])


def edge_sequence_numbers(ws: Workspace, target: str) -> tuple[bool, str]:
    """Answers numbered at the edges: the probe about to go out (sent + 1), 0, the newest
    one sent, the newest one answered again."""
    return _compare(ws, [
        ("a dead link receiving answers to the next probe, not yet sent", 12,
         history("aaa" + "-" * 9, {r: [r + 1] for r in range(4, 12)}), {}),
        ("answers numbered 0", 10, history("aaa" + "-" * 7, {r: [0] for r in range(4, 10)}), {}),
        ("a down link receiving its newest answered probe's answer again", 16,
         history("aaa" + "-" * 5 + "a" + "-" * 7, {r: [9] for r in range(10, 16)}), {}),
    ])


# --- random histories against the project's rule
PROPERTY_SEED, PROPERTY_CASES = 71, 200


def _random_history(rng) -> tuple[str, int, dict[int, list[int]], dict]:
    rounds = rng.randrange(8, 40)
    weights = {"a": 5, "-": 4, "1": 1, "2": 1, "3": 0.5}
    chars = [rng.choices(list(weights), list(weights.values()))[0] for _ in range(rounds)]
    if rng.random() < 0.5:  # a silence long enough to go down
        start = rng.randrange(rounds)
        for i in range(start, min(rounds, start + rng.randrange(2, 10))):
            chars[i] = "-"
    pattern = "".join(chars)
    extra: dict[int, list[int]] = {}
    for _ in range(rng.randrange(0, 6)):  # duplicates, stale, unsent and next numbers
        r = rng.randrange(1, rounds + 1)
        extra.setdefault(r, []).append(rng.choice((r, r + 1, r - 1, 0, r - 5, 1000)))
    kwargs = {"miss_limit": rng.choice((1, 2, 3, 5)), "up_after": rng.choice((1, 2, 3)),
              "up": rng.random() < 0.85}
    if rng.random() < 0.4:
        kwargs["held"] = frozenset(rng.sample(range(1, rounds + 1), rng.randrange(1, 6)))
    return f"history {pattern!r}, extra answers {extra or 'none'}", rounds, \
        history(pattern, extra), kwargs


def random_histories(ws: Workspace, target: str) -> tuple[bool, str]:
    """Seeded random probe histories (answers on time, late, lost, duplicated, stale,
    never sent), random miss_limit / up_after / starting state, some verdicts held."""
    import random

    rng = random.Random(PROPERTY_SEED)
    cases = [_random_history(rng) for _ in range(PROPERTY_CASES)]
    ok, detail = _compare(ws, cases)
    if not ok:
        return False, (f"seed {PROPERTY_SEED} ('a' answered in its round, '1'-'3' that many "
                       f"rounds late, '-' never): {detail}")
    return True, f"{PROPERTY_CASES} random probe histories: every verdict in the right round"


# --- the simulator: the controller's probing, with the student's rule, in virtual time
SPEC = "fattree:k=4"
PROBE_S, MISS_LIMIT, UP_AFTER = 100e-6, 3, 2
FAIL_AT, RESTORE_AT, RUN_UNTIL = 1.0e-3, 3.0e-3, 4.5e-3
BUSY_UNTIL = 2.0e-3  # 20 probe rounds
STARTS = 4  # each flow starts anew this many times over the run, so the load lasts


def _sim(ws: Workspace, flows: list[tuple[str, str]], size: int, until: float):
    """A fat-tree k=4 in virtual time whose controller judges links with the student's
    LinkVerdict, busy with `flows` until `until`."""
    from mrclab.endpoint.host import FlowSpec
    from mrclab.fabric.spec import parse_spec
    from mrclab.sim import SimNetwork, SimSettings

    verdict = _student(ws)
    net = SimNetwork(parse_spec(SPEC), SimSettings(probe_interval_s=PROBE_S,
                                                   miss_limit=MISS_LIMIT), verdict=verdict)
    net.start()
    for i, (src, dst) in enumerate(flows):
        for k in range(STARTS):
            net.add_flow(FlowSpec(src, dst, size, start=k * until / STARTS,
                                  seed=STARTS * i + k))
    return net


def _link_of(net, a: str, b: str) -> str:
    """The link's name in the controller's events."""
    (x, px), (y, py) = link_id(net.fabric.find_link(a, b))
    return f"{x}:{px}-{y}:{py}"


def sim_gray_failure_found(ws: Workspace, target: str) -> tuple[bool, str]:
    from mrclab.sim.links import LinkState

    net = _sim(ws, [("h1", "h16"), ("h5", "h12"), ("h9", "h4")], 200_000, RUN_UNTIL)
    net.set_link("c1", "a1", LinkState.GRAY, at=FAIL_AT)
    net.set_link("c1", "a1", LinkState.UP, at=RESTORE_AT)
    net.run(RUN_UNTIL)
    dead = _link_of(net, "c1", "a1")
    events = net.controller.events
    downs = [e for e in events if e.status == LinkStatus.DOWN.value]
    ups = [e for e in events if e.status == LinkStatus.UP.value]
    us = 1e6
    if [e.link for e in downs] != [dead]:
        return False, (f"c1-a1 ({dead}) failed at {FAIL_AT * us:.0f} us: links declared down "
                       f"{[e.link for e in downs] or 'none'}; expected {dead} once")
    detect = downs[0].detected_at - FAIL_AT
    if not 0 < detect <= (MISS_LIMIT + 1) * PROBE_S:
        return False, (f"c1-a1 declared down {detect * us:.0f} us after it failed; probes every "
                       f"{PROBE_S * us:.0f} us, miss_limit {MISS_LIMIT}: within "
                       f"{(MISS_LIMIT + 1) * PROBE_S * us:.0f} us")
    if [e.link for e in ups] != [dead]:
        return False, (f"c1-a1 restored at {RESTORE_AT * us:.0f} us: links declared up "
                       f"{[e.link for e in ups] or 'none'}; expected {dead} once")
    back = ups[0].detected_at - RESTORE_AT
    if not 0 < back <= (UP_AFTER + 1) * PROBE_S:
        return False, (f"c1-a1 declared up {back * us:.0f} us after it was restored; within "
                       f"{(UP_AFTER + 1) * PROBE_S * us:.0f} us ({UP_AFTER} answers)")
    return True, (f"c1-a1 declared down {detect * us:.0f} us after failing, up {back * us:.0f} "
                  f"us after its return; no other link event")


def sim_no_false_downs_under_load(ws: Workspace, target: str) -> tuple[bool, str]:
    # a permutation and an incast at once: every core busy, one edge port trimming
    pairs = [(f"h{i}", f"h{(i + 7) % 16 + 1}") for i in range(1, 17)]
    incast = [(f"h{i}", "h16") for i in (2, 6, 10, 14)]
    net = _sim(ws, pairs + incast, 40_000, BUSY_UNTIL)
    net.run(BUSY_UNTIL)
    events = net.controller.events
    detail = (f"{len(net.flows)} flows over {BUSY_UNTIL * 1e3:.1f} ms, no link failed: "
              f"{net.controller.core.monitor.held_verdicts} silences held; link events: ")
    if events:
        return False, detail + ", ".join(f"{e.link} {e.status} at {e.detected_at * 1e6:.0f} us"
                                         for e in events[:4])
    return True, detail + "none"


def fabric_ping_loss(ws: Workspace, target: str) -> tuple[bool, str]:
    """The failover exercise's fabric check, with the student's rule in the lab's controller:
    pings across a core link that is cut (gray) must lose < 5 %."""
    from mrclab.exercises.fabric_checks import ping_loss_across_a_cut
    from mrclab.exercises.student_controller import LIVENESS_FLAG

    _student(ws)  # a file that does not load fails here, in one line, not in the lab
    return ping_loss_across_a_cut(ws, target, [LIVENESS_FLAG, str(ws.path(LIVENESS_FILE))])
