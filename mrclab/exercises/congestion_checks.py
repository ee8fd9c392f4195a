"""Checks of the congestion exercise: the student's `Window` (window.py) fed feedback
sequences that exercise one rule each, judged against the project's `DctcpWindow` fed the
same; and the project's sender with that window in three flows sharing a port on the
simulator (fairness, queue depth). All deterministic."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import partial

from mrclab.endpoint.core.congestion import DctcpWindow
from mrclab.endpoint.core.sender import MrcSender
from mrclab.endpoint.core.sender_config import SenderConfig
from mrclab.endpoint.wire import MsgType
from mrclab.exercises.student_code import load_student_module
from mrclab.exercises.workspace import Workspace

WINDOW_FILE = "window.py"
NEEDS = ("Window",)
SRTT = 10e-6
TOLERANCE = 1e-6  # relative: the same rule in another order of arithmetic still passes

# One sample: (marked, loss, trimmed). A window of them arrives spaced evenly over one srtt.
Sample = tuple[bool, bool, bool]
CLEAN: Sample = (False, False, False)
MARK: Sample = (True, False, False)
LOSS: Sample = (False, True, False)
TRIM: Sample = (False, False, True)


def window_class(ws: Workspace) -> Callable[..., object]:
    return load_student_module(ws.path(WINDOW_FILE), NEEDS).Window


def _pattern(n: int, fraction: float, kind: Sample = MARK) -> list[Sample]:
    """`n` samples, `fraction` of them `kind`, spread evenly (the rest clean)."""
    return [kind if math.floor((i + 1) * fraction) > math.floor(i * fraction) else CLEAN
            for i in range(n)]


class _Pair:
    """The student's window and the reference, given the same state and the same samples;
    the first sample after which they differ is kept."""

    def __init__(self, cls: Callable[..., object], cwnd: float, avoidance: bool = False,
                 alpha: float | None = None, max_cwnd: float = 512.0, **params: float) -> None:
        """`params`: the window's other parameters (min_cwnd, loss_min_cwnd, gain)."""
        params = {"min_cwnd": 1.0} | params
        self.mine = cls(cwnd=cwnd, max_cwnd=max_cwnd, **params)
        self.ref = DctcpWindow(cwnd=cwnd, max_cwnd=max_cwnd, **params)
        for w in (self.mine, self.ref):
            if avoidance:  # past slow start: as after the draining window
                w.ssthresh = cwnd
            if alpha is not None:
                w.alpha, w.alpha_measured = alpha, True
        # the reference has heard samples before (slow start and its draining window), so
        # its current window began at 0: not a window that starts with no slow start at all
        # (`SenderConfig.init_ssthresh`), whose first window starts at its first sample
        if avoidance:
            self.ref.window_began(0.0)
        self.now = 0.0
        self.samples = 0
        self.history: list[Sample] = []
        self.diverged = ""

    def feed(self, samples: list[Sample], srtt: float = SRTT, span: float | None = None) -> None:
        """`samples` spread over `span` (one srtt by default: then every call is one
        window, its last sample ending it)."""
        step = (span or srtt) / len(samples)
        for marked, loss, trimmed in samples:
            self.now += step
            self.samples += 1
            self.history.append((marked, loss, trimmed))
            # a window ends at the sample `srtt` after it began: floating point must not
            # move that by one sample, hence the margin
            for w in (self.mine, self.ref):
                w.on_feedback(marked, self.now, srtt * 0.999, loss=loss, trimmed=trimmed)
            if not self.diverged:
                self.diverged = self.compare()

    def compare(self) -> str:
        for field in ("cwnd", "ssthresh", "alpha", "decreases"):
            got, want = getattr(self.mine, field), getattr(self.ref, field)
            if not (got == want or abs(got - want) <= TOLERANCE * max(1.0, abs(want))):
                return f"after sample {self.samples}: {field} {_fmt(got)}, expected {_fmt(want)}"
        return ""

    def state(self) -> str:
        w = self.mine
        return (f"cwnd {_fmt(w.cwnd)}, ssthresh {_fmt(w.ssthresh)}, alpha {_fmt(w.alpha)}, "
                f"{w.decreases} cuts")


def _fmt(x: object) -> str:
    return f"{x:.4g}" if isinstance(x, float) else str(x)


def _verdict(pair: _Pair, ok_detail: str) -> tuple[bool, str]:
    return (False, pair.diverged) if pair.diverged else (True, f"{ok_detail}: {pair.state()}")


# ------------------------------------- the rules as tables: feeds, stages, what each shows
@dataclass(frozen=True)
class _Feed:
    """`samples` fed `times` over, each time as one window of `srtt` whose samples are spread
    over `span` (the srtt when None)."""

    samples: tuple[Sample, ...]
    times: int = 1
    srtt: float = SRTT
    span: float | None = None


@dataclass(frozen=True)
class _Rule:
    """A check: the student's window and the reference from one state (`cwnd`, past slow
    start with `avoidance`, `alpha`, `params`), fed stage by stage; a stage after which they
    differ fails, named by its text. A check function: `rule(ws, target)`."""

    cwnd: float
    stages: tuple[tuple[str, tuple[_Feed, ...]], ...]
    passed: str  # the detail of a pass, before the window's state
    avoidance: bool = False
    alpha: float | None = None
    params: tuple[tuple[str, float], ...] = ()  # (name, value): min_cwnd, loss_min_cwnd

    def __call__(self, ws: Workspace, target: str) -> tuple[bool, str]:
        pair = _Pair(window_class(ws), self.cwnd, avoidance=self.avoidance, alpha=self.alpha,
                     **dict(self.params))
        for what, feeds in self.stages:
            for feed in feeds:
                for _ in range(feed.times):
                    pair.feed(list(feed.samples), srtt=feed.srtt, span=feed.span)
            if pair.diverged:
                return False, f"{what}: {pair.diverged}"
        return _verdict(pair, self.passed)


@dataclass(frozen=True)
class _EachKind:
    """A check: for each (name, kind) of marked sample, a fresh pair past slow start at cwnd
    20, alpha 0, fed 3 windows of 20 samples, 5 of them that kind. A check function."""

    kinds: tuple[tuple[str, Sample], ...]
    passed: str
    sep: str = ": "  # samples_counted's messages have always had ", " here

    def __call__(self, ws: Workspace, target: str) -> tuple[bool, str]:
        cls = window_class(ws)
        for name, kind in self.kinds:
            pair = _Pair(cls, 20.0, avoidance=True, alpha=0.0)
            for _ in range(3):
                pair.feed(_pattern(20, 0.25, kind))
            if pair.diverged:
                return False, f"3 windows with 5 {name} in 20 samples{self.sep}{pair.diverged}"
        return _verdict(pair, self.passed)


# Every sample that is an ECN mark, a NACK or a loss is a mark.
samples_counted = _EachKind((("ECN marks", MARK), ("NACKs", TRIM), ("losses", LOSS)),
                            "5 of 20 samples marked (ECN, NACK or loss), 3 windows", sep=", ")

# A NACK or a loss that also echoes CE is one marked sample, not two.
combined_signals_count_once = _EachKind(
    (("NACKs echoing CE", (True, False, True)), ("losses echoing CE", (True, True, False))),
    "5 of 20 samples both a NACK or loss and CE-marked, 3 windows")


SLOW_START_CUT = _Feed((MARK,), span=SRTT / 20)  # the first mark in slow start: 40 -> 20
DRAINING = _Feed((MARK,) * 20)  # the overshoot draining: no cut, no measurement


def _marked(fraction: float, times: int = 1) -> _Feed:
    """`times` windows of 20 samples, `fraction` of them marked."""
    return _Feed(tuple(_pattern(20, fraction)), times)


additive_increase = _Rule(
    10.0, avoidance=True, alpha=0.5,
    stages=(("past slow start at cwnd 10, 5 windows of 10 clean ACKs",
             (_Feed((CLEAN,) * 10, times=5),)),),
    passed="5 windows of clean ACKs past slow start, from cwnd 10")

first_mark_ends_slow_start = _Rule(
    20.0,
    stages=(("slow start from 20: 4 clean ACKs, then a mark",  # long before an RTT is over
             (_Feed((CLEAN,) * 4 + (MARK,), srtt=1.0, span=SRTT),)),),
    passed="a mark in slow start halves the window at once")

one_cut_per_rtt = _Rule(
    64.0, avoidance=True, alpha=1.0,
    stages=(("cwnd 64, alpha 1, 5 RTTs of 16 marks each", (_Feed((MARK,) * 16, times=5),)),),
    passed="5 RTTs of marks, 5 cuts")

# From slow start: the first mark, the draining window (all marked), then windows a quarter
# marked (alpha must be 0.25 at once), one window half marked (one step of the average), and
# half marked until alpha is about 0.5.
alpha_follows_marked_fraction = _Rule(
    40.0,
    stages=(("the first whole window after slow start, a quarter marked",
             (SLOW_START_CUT, DRAINING, _marked(0.25))),
            ("30 more windows a quarter marked", (_marked(0.25, 30),)),
            ("then one window half marked", (_marked(0.5),)),
            ("then 30 windows half marked", (_marked(0.5, 30),))),
    passed="alpha 0.25 after the first measured window, then 0.5")

draining_window = _Rule(
    40.0,
    stages=(("the window after slow start's cut, all marked", (SLOW_START_CUT, DRAINING)),
            ("the windows after the draining one, a quarter marked", (_marked(0.25, 3),))),
    passed="slow start's cut, a draining window, 3 windows measured")

# The window's own floors, and a loss window followed by windows without loss.
floors_are_the_windows = _Rule(
    64.0, avoidance=True, alpha=1.0, params=(("min_cwnd", 3.0), ("loss_min_cwnd", 5.0)),
    stages=(("min_cwnd 3, loss_min_cwnd 5, cwnd 64, 8 windows all marked with a loss in each",
             (_Feed((LOSS,) + (MARK,) * 7, times=8),)),
            ("min_cwnd 3, loss_min_cwnd 5: at the loss floor, then 4 windows all marked "
             "without a loss", (_Feed((MARK,) * 8, times=4),)),
            ("min_cwnd 3, loss_min_cwnd 5: then 2 windows with a loss again",
             (_Feed((MARK,) * 3 + (LOSS,), times=2),))),
    passed="the window's floors; the loss floor only for windows with a loss")


# ---------------------------------------------------------------- the rules, check by check
def slow_start(ws: Workspace, target: str) -> tuple[bool, str]:
    cls = window_class(ws)
    pair = _Pair(cls, 10.0)
    pair.feed([CLEAN] * 10, srtt=1.0, span=SRTT)  # within one long RTT: growth alone
    if pair.diverged:
        return False, f"slow start from cwnd 10, 10 clean ACKs: {pair.diverged}"
    capped = _Pair(cls, 500.0, max_cwnd=505.0)
    capped.feed([CLEAN] * 10, srtt=1.0, span=SRTT)
    if capped.diverged:
        return False, f"slow start from 500 with max_cwnd 505, 10 clean ACKs: {capped.diverged}"
    return _verdict(pair, "10 clean ACKs in slow start from cwnd 10")


def cut_and_floors(ws: Workspace, target: str) -> tuple[bool, str]:
    cls = window_class(ws)
    half = _Pair(cls, 40.0, avoidance=True, alpha=0.5)
    half.feed(_pattern(20, 0.5))
    if half.diverged:
        return False, f"cwnd 40, alpha 0.5, a window half marked: {half.diverged}"
    marks = _Pair(cls, 64.0, avoidance=True, alpha=1.0)
    for _ in range(12):
        marks.feed([MARK] * 8)
    if marks.diverged:
        return False, f"cwnd 64, 12 windows all marked (floor min_cwnd 1): {marks.diverged}"
    losses = _Pair(cls, 64.0, avoidance=True, alpha=1.0)
    for _ in range(12):
        losses.feed([LOSS] + [MARK] * 7)
    if losses.diverged:
        return False, (f"cwnd 64, 12 windows all marked, a loss in each (floor "
                       f"loss_min_cwnd 2): {losses.diverged}")
    return True, (f"cut by alpha/2; floors: {_fmt(marks.mine.cwnd)} after marks, "
                  f"{_fmt(losses.mine.cwnd)} after losses")


def marked_samples_do_not_grow(ws: Workspace, target: str) -> tuple[bool, str]:
    """TODO 2's edges: marked samples within one (long) RTT past slow start, growth at
    cwnd == ssthresh, and at max_cwnd."""
    cls = window_class(ws)
    pair = _Pair(cls, 20.0, avoidance=True, alpha=0.5)
    pair.feed([MARK, CLEAN, TRIM, CLEAN, LOSS, CLEAN] * 3, srtt=1.0, span=SRTT)
    if pair.diverged:
        return False, (f"past slow start at cwnd 20, marks, NACKs and losses among clean "
                       f"ACKs within one RTT: {pair.diverged}")
    edge = _Pair(cls, 16.0, max_cwnd=17.5)
    edge.mine.ssthresh = edge.ref.ssthresh = 17.0  # slow start ends at 17
    edge.feed([CLEAN] * 6, srtt=1.0, span=SRTT)
    if edge.diverged:
        return False, (f"slow start from cwnd 16 up to ssthresh 17, max_cwnd 17.5, 6 clean "
                       f"ACKs: {edge.diverged}")
    top = _Pair(cls, 64.0, avoidance=True, alpha=0.5, max_cwnd=64.0)
    for _ in range(3):
        top.feed([CLEAN] * 16)
    if top.diverged:
        return False, f"past slow start at max_cwnd 64, 3 windows of clean ACKs: {top.diverged}"
    return _verdict(pair, "marked samples never grow; growth stops at ssthresh and max_cwnd")


def gain_is_the_windows(ws: Workspace, target: str) -> tuple[bool, str]:
    cls = window_class(ws)
    for gain in (1 / 16, 1 / 2):
        pair = _Pair(cls, 40.0, gain=gain)
        pair.feed([MARK], span=SRTT / 20)  # slow start's cut
        pair.feed([MARK] * 20)  # draining
        for f in [0.25] * 4 + [0.75] * 4:
            pair.feed(_pattern(20, f))
        if pair.diverged:
            return False, (f"a window made with gain {gain:g}: slow start's cut, the draining "
                           f"window, 4 windows a quarter marked, 4 three quarters: "
                           f"{pair.diverged}")
    return _verdict(pair, "alpha moves by the window's own gain")


# ------------------------------------------------------------------ random histories
LETTERS = {CLEAN: "c", MARK: "m", TRIM: "n", LOSS: "l", (True, False, True): "N",
           (True, True, False): "L", (False, True, True): "x"}
KINDS = tuple(LETTERS)


def _random_case(rng) -> tuple[dict, bool, float | None, list[tuple[list[Sample], float]]]:
    cwnd = rng.choice((1.0, 2.0, 10.0, 40.0, 200.0, 500.0))
    params = {"min_cwnd": rng.choice((1.0, 0.5, 2.0)),
              "loss_min_cwnd": rng.choice((2.0, 1.0, 4.0)),
              "max_cwnd": rng.choice((cwnd + 5, 512.0, 64.0)),
              "gain": rng.choice((1 / 4, 1 / 16, 1 / 2))}
    avoidance = rng.random() < 0.5
    alpha = rng.choice((None, 0.0, 0.3, 1.0)) if avoidance else None
    windows = []
    for _ in range(rng.randrange(3, 12)):
        p = rng.choice((0.0, 0.0, 0.1, 0.5, 1.0))
        n = rng.randrange(1, 30)
        samples = [rng.choice(KINDS[1:]) if rng.random() < p else CLEAN for _ in range(n)]
        windows.append((samples, SRTT * rng.choice((0.3, 0.7, 1.0, 1.0, 1.5))))
    return params | {"cwnd": cwnd}, avoidance, alpha, windows


PROPERTY_SEED, PROPERTY_CASES = 53, 60


def random_histories(ws: Workspace, target: str) -> tuple[bool, str]:
    """Seeded random windows (any mix of clean ACKs, CE, NACKs, losses and their
    combinations, windows ending early or late) from random states and parameters,
    compared sample by sample with the reference."""
    import random

    cls = window_class(ws)
    rng = random.Random(PROPERTY_SEED)
    samples = 0
    for k in range(1, PROPERTY_CASES + 1):
        params, avoidance, alpha, windows = _random_case(rng)
        init = params.pop("cwnd")
        pair = _Pair(cls, init, avoidance=avoidance, alpha=alpha, **params)
        for samples_, span in windows:
            pair.feed(samples_, span=span)
            if pair.diverged:
                start = ("past slow start" + (f", alpha {alpha:g}" if alpha is not None
                                              else ", alpha its prior 1")
                         if avoidance else "in slow start")
                shown = "".join(LETTERS[x] for x in pair.history[-24:])
                return False, (f"case {k} (seed {PROPERTY_SEED}): from cwnd {_fmt(init)} "
                               f"{start}, "
                               + ", ".join(f"{n} {_fmt(v)}" for n, v in params.items())
                               + f"; the last samples (c clean, m CE, n NACK, l loss, N NACK+CE, "
                               f"L loss+CE, x NACK+loss) ...{shown}: {pair.diverged}")
        samples += pair.samples
    return True, f"{PROPERTY_CASES} random histories, {samples} samples: every one as the reference"


# ------------------------------------------------------------------ three flows, one port
FLOWS = ("h1", "h5", "h9")  # from three pods into h16
BOTTLENECK_BPS = 25e9  # h16's link; the rest of the fabric runs at 100 Gb/s
STAGGER_S, TOGETHER_S = 50e-6, 1e-3
ECN_THRESHOLD, TRIM_THRESHOLD, QUEUE_DEPTH = 4, 32, 64  # trims only far above the marks
SETTLE_S = 20e-6  # after the last flow joined, before fairness is measured


class _QmaxSender(MrcSender):
    """The project's sender, keeping (time, qmax) of every ACK."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.qmax_seen: list[tuple[float, int]] = []

    def on_packet(self, plane, hdr, now: float) -> None:
        if hdr.type == MsgType.ACK:
            self.qmax_seen.append((now, hdr.qmax))
        super().on_packet(plane, hdr, now)


def _shared_port(ws: Workspace) -> dict:
    """Three flows join one after the other into h16's port (slower than the fabric), each
    sized to run its fair share until TOGETHER_S after the last joined."""
    from mrclab.endpoint.host import FlowSpec
    from mrclab.fabric.model import LinkParams
    from mrclab.fabric.spec import parse_spec
    from mrclab.sim import SimNetwork, SimSettings

    settings = SimSettings(queue_depth=QUEUE_DEPTH, trim_threshold=TRIM_THRESHOLD,
                           ecn_threshold=ECN_THRESHOLD)
    fabric = parse_spec("fattree:k=4")
    slow = LinkParams(bw_mbps=BOTTLENECK_BPS / 1e6)
    fabric.links = [replace(lk, params=slow) if "h16" in (lk.a, lk.b) else lk
                    for lk in fabric.links]
    net = SimNetwork(fabric, settings)
    net.start(probing=False)
    min_rto, initial_rto, max_rto = settings.rto_timers()
    # a first window of about the bottleneck's BDP
    init = settings.bdp_packets(fabric.max_switch_hops()) * BOTTLENECK_BPS / settings.link_rate_bps
    cfg = SenderConfig(min_rto=min_rto, initial_rto=initial_rto, max_rto=max_rto,
                       init_cwnd=float(round(init)), max_cwnd=256.0)
    make = partial(_QmaxSender, window_class=window_class(ws))
    frame = settings.mtu + 14
    n = len(FLOWS)
    for i, src in enumerate(FLOWS):
        fair_s = sum((TOGETHER_S if m == n else STAGGER_S) / m for m in range(i + 1, n + 1))
        size = int(BOTTLENECK_BPS * fair_s / 8 * settings.mss / frame)
        net.add_flow(FlowSpec(src, "h16", size, seed=i + 1, start=i * STAGGER_S), cfg,
                     sender_class=make)
    completed = net.run_flows(0.02, expected=n)
    flows = net.flows
    start = (n - 1) * STAGGER_S + SETTLE_S
    end = min((f.sender.finish_time for f in flows if f.sender.finish_time), default=0.0)
    rates = [(_acked_at(f.progress, end) - _acked_at(f.progress, start)) * 8 / (end - start)
             if end > start else 0.0 for f in flows]
    qmax = sorted(q for f in flows for t, q in f.sender.qmax_seen if start <= t <= end)
    return {"completed": completed and all(f.sender.done for f in flows),
            "errors": [f.sender.error for f in flows if f.sender.failed],
            "rates": rates, "window_s": end - start, "qmax": qmax,
            "timeouts": sum(f.sender.stats.timeouts for f in flows),
            "nacks": sum(f.sender.stats.nacks for f in flows)}


def _acked_at(progress: list[tuple[float, int]], t: float) -> int:
    acked = 0
    for when, count in progress:
        if when > t:
            break
        acked = count
    return acked


def _jain(values: list[float]) -> float:
    squares = sum(v * v for v in values)
    return sum(values) ** 2 / (len(values) * squares) if squares else 1.0


def _problem(r: dict) -> str:
    if not r["completed"]:
        return f"the flows did not all complete: {'; '.join(filter(None, r['errors'])) or 'time limit'}"
    if r["window_s"] <= 0 or not r["qmax"]:
        return "the flows never ran together (one finished before the last joined)"
    return ""


def three_flows_share_fairly(ws: Workspace, target: str) -> tuple[bool, str]:
    r = _shared_port(ws)
    problem = _problem(r)
    if problem:
        return False, problem
    jain, busy = _jain(r["rates"]), sum(r["rates"]) / BOTTLENECK_BPS
    detail = (f"3 flows into a {BOTTLENECK_BPS / 1e9:g} Gb/s port, {r['window_s'] * 1e6:.0f} us "
              f"together: " + ", ".join(f"{x / 1e9:.1f}" for x in r["rates"])
              + f" Gb/s, Jain {jain:.3f} (>= 0.9), port {busy:.0%} busy (>= 80 %)")
    return jain >= 0.9 and busy >= 0.8, detail


def queue_stays_short(ws: Workspace, target: str) -> tuple[bool, str]:
    r = _shared_port(ws)
    problem = _problem(r)
    if problem:
        return False, problem
    q = r["qmax"]
    median, p90 = q[len(q) // 2], q[int(len(q) * 0.9)]
    detail = (f"qmax echoed while 3 flows share the port: median {median}, 90th percentile "
              f"{p90} packets (ECN threshold {ECN_THRESHOLD}, trims above {TRIM_THRESHOLD}); "
              f"{r['nacks']} NACKs, {r['timeouts']} timeouts")
    return median <= 2 * ECN_THRESHOLD and p90 <= 4 * ECN_THRESHOLD \
        and r["timeouts"] == 0, detail
