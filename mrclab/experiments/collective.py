"""Collective: a training job's steps, not independent flows. R ranks, one per host, run I
iterations; each is a compute phase (a fixed time, optionally jittered per rank, one rank
possibly a straggler) then a collective of S bytes per rank (ring all-reduce, halving-
doubling all-reduce or all-to-all), and the iteration ends when the last rank is done.
Every message of the collective is a transfer of the endpoint's sender and receiver; a ring
forwards each chunk in slices as they arrive, as NCCL does.

What to see: per iteration the step time, the collective's time, algbw and busbw as
nccl-tests defines them, against the ideal of the links' payload rate; how much of the
GPUs' time goes to waiting on the network; what a core link failing mid-collective, a
whole plane failing, a flapping link or a straggler do to the step time. Under ECMP the
ring's transfers are hashed onto paths whole, so two of them share a core link while
another idles, and the step waits for the slowest; sprayed (ev, source), every transfer
uses every path.
"""

from __future__ import annotations

from mrclab.experiments import plans
from mrclab.experiments.collective_analysis import (  # noqa: F401 (the module's interface)
    analyse,
    figures,
    goals,
    sweep_figures,
    tables,
)
from mrclab.experiments.collective_plan import IterationAction, JobPlan
from mrclab.experiments.config import (
    JUMBO_MTU,
    ExperimentError,
    Options,
    Setup,
    mss,
    parse_seconds,
    parse_size,
    payload_ceiling,
    simulator_defaults,
)
from mrclab.experiments.plans import Flow
from mrclab.experiments.validity import Verdict
from mrclab.fabric.collective import (
    CollectiveError,
    build_schedule,
    bus_factor,
    ideal_seconds,
    place_ranks,
)
from mrclab.fabric.spec import parse_spec
from mrclab.fabric.training_job import DEFAULT_WINDOW, JobSpec

NAME = "collective"
ENGINES = ("sim", "lab")
TITLE = "Collective: training steps with barriers, failures and stragglers"
MODES = ("ecmp", "ev", "random", "source")
OWN_OPTIONS = ("pattern", "ranks", "size", "slice", "placement", "iterations", "compute",
               "jitter", "straggler", "scenarios", "flap_every", "window")
SCENARIOS = ("baseline", "link-gray", "link-admin", "plane", "flap", "straggler")
# each scenario's modes; --quick runs fewer. `plane` needs a multi-plane fabric.
SCENARIO_MODES = {"baseline": MODES, "link-gray": ("ecmp", "ev", "source"),
                  "link-admin": ("ev",), "plane": ("ev",), "flap": ("ev",),
                  "straggler": ("ev",)}
QUICK_SCENARIOS = {"baseline": ("ecmp", "ev"), "link-gray": ("ev",), "straggler": ("ev",)}
# the lab's: fewer phases, each a real-time run of 16 processes beside the switches
LAB_SCENARIO_MODES = {"baseline": ("ecmp", "ev", "source"), "link-gray": ("ecmp", "ev"),
                      "flap": ("ev",), "straggler": ("ev",)}
LAB_QUICK_SCENARIOS = {"baseline": ("ecmp", "ev"), "link-gray": ("ev",)}
# The simulator's own figures: the permutation's queues (ECN at half a BDP, trimming at
# three quarters), k=4 with a rank per host. --quick moves 512 KiB per rank, latency-bound
# (30 ring steps of a 32 KiB chunk, each a slice's one-way trip), in a few seconds; the
# full run 4 MiB (256 KiB chunks in four slices), six iterations per phase in 15-30 s of
# wall time each (docs/experiments.md, "collective").
SIM_QUEUES = {"queue_depth": 48, "trim_threshold": 32, "ecn_threshold": 24}
SIM_SIZE = {True: 512 << 10, False: 4 << 20}
SIM_ITERATIONS = {True: 3, False: 6}
# The lab's figures (--figures lab; the lab engine to come): the permutation's jumbo
# frames and queues at its rate, small transfers
LAB_RATE = 8_000_000
LAB_QUEUES = {"queue_depth": 64, "trim_threshold": 16, "ecn_threshold": 8}
LAB_SIZE = {True: 128 << 10, False: 256 << 10}
LAB_ITERATIONS = {True: 3, False: 5}
# a slice, in full DATA packets per plane: about 64 KiB at the simulator's 4 KiB MTU on
# one plane, 512 KiB on 8 (NCCL's 4 MiB buffer over its 8 steps): the window of slices in
# flight then covers the same round trip at each plane count. A block just over it (512
# KiB on 8 planes, 503.5 KiB of payload) goes as two messages of 256 KiB; slices of 512
# KiB, a message per block, did worse there (halving-doubling 82.5 % against 88.3 % of
# the ideal, alltoall 71.0 % against 77.6 %): twice the bytes per first window
SLICE_PACKETS = 16
FAIL_FRACTION = 0.5  # a failure lands halfway through the collective's expected time
STRAGGLER = 2.0  # the straggler scenario's slowdown
FLAP_EVERY = 2  # iterations between a flapping link's changes (down, up, down ...)


def setup(opts: Options) -> Setup:
    if opts.incast_n:
        raise ExperimentError("--senders applies to the incast experiment only")
    sim = opts.engine == "sim"
    if sim:
        base = {**simulator_defaults(), **SIM_QUEUES}
        spec, size, iterations = "fattree:k=4", SIM_SIZE[opts.quick], SIM_ITERATIONS[opts.quick]
    else:
        base = {"rate_bps": LAB_RATE, "mtu": JUMBO_MTU, **LAB_QUEUES,
                "probe_interval": 0.1, "miss_limit": 4}
        spec, size, iterations = "fattree:k=4", LAB_SIZE[opts.quick], LAB_ITERATIONS[opts.quick]
    spec = opts.spec or spec
    try:
        fabric = parse_spec(spec)
    except ValueError as exc:
        raise ExperimentError(f"--spec {spec!r}: {exc}") from None
    mtu = opts.mtu or base.get("mtu", 1500)
    params = _job_params(opts, fabric, size, iterations, mtu)
    phases = [(label, _phase_seconds(opts.quick, sim)) for label, _, _ in params["phases"]]
    return Setup(experiment=NAME, target=opts.target, spec=spec, seed=opts.seed,
                 quick=opts.quick, **base, params=params, phases=phases)


def _job_params(opts: Options, fabric, size: int, iterations: int, mtu: int) -> dict:
    """The job's figures from the options; ExperimentError naming a bad one."""
    pattern = opts.pattern or "ring-allreduce"
    ranks = opts.ranks if opts.ranks is not None else len(fabric.hosts)
    size = parse_size("--size", opts.size) if opts.size is not None else size
    slice_bytes = (parse_size("--slice", opts.slice) if opts.slice is not None
                   else SLICE_PACKETS * mss(mtu) * fabric.planes)
    placement = opts.placement or "spread"
    iterations = opts.iterations if opts.iterations is not None else iterations
    try:
        hosts = place_ranks(fabric, ranks, placement)
        schedule = build_schedule(pattern, ranks, size, slice_bytes)
    except CollectiveError as exc:
        raise ExperimentError(str(exc)) from None
    straggler, factor = _straggler(opts.straggler, ranks)
    jitter = opts.jitter if opts.jitter is not None else 0.0
    flap = opts.flap_every if opts.flap_every is not None else FLAP_EVERY
    window = opts.window if opts.window is not None else DEFAULT_WINDOW
    try:
        JobSpec(iterations, 0.0, jitter, straggler, factor, window).check(ranks)
    except ValueError as exc:
        raise ExperimentError(f"bad job: {exc}") from None
    if flap < 1:
        raise ExperimentError(f"--flap-every {flap}: at least 1")
    compute = parse_seconds("--compute", opts.compute) if opts.compute is not None else None
    return {"pattern": pattern, "ranks": ranks, "size": size, "slice": slice_bytes,
            "placement": placement, "iterations": iterations, "compute_s": compute,
            "jitter": jitter, "straggler": straggler, "straggler_factor": factor,
            "window": window, "flap_every": flap,
            "fail_iteration": iterations // 2, "fail_fraction": FAIL_FRACTION,
            "transfers": len(schedule.transfers), "first_hosts": hosts[:4],
            "planes": fabric.planes, "modes": list(MODES),
            "phases": _phases(opts, fabric.planes, opts.engine == "sim")}


def _straggler(text: str | None, ranks: int) -> tuple[int, float]:
    """--straggler FACTOR or RANK:FACTOR (default: the middle rank, 2x)."""
    if text is None:
        return ranks // 2, STRAGGLER
    rank, sep, factor = text.rpartition(":")
    try:
        return (int(rank) if sep else ranks // 2), float(factor)
    except ValueError:
        raise ExperimentError(f"bad --straggler {text!r}: expected FACTOR or RANK:FACTOR, "
                              "e.g. 2 or 5:2") from None


def _phases(opts: Options, planes: int, sim: bool) -> list[list]:
    """[label, scenario, mode] of each phase, in the order they run (`runner.plan` checks
    the modes and keeps the phases of --modes)."""
    full = SCENARIO_MODES if sim else LAB_SCENARIO_MODES
    quick = QUICK_SCENARIOS if sim else LAB_QUICK_SCENARIOS
    table = quick if opts.quick and opts.scenarios is None else full
    chosen = list(opts.scenarios) if opts.scenarios is not None else list(table)
    for name in chosen:
        if name not in SCENARIOS:
            raise ExperimentError(f"unknown scenario {name!r} (known: {', '.join(SCENARIOS)})")
    if "link-admin" in chosen and not sim and opts.target == "bmv2":
        raise ExperimentError("scenario link-admin: a port taken down freezes a BMv2 switch "
                              "(V1MODEL-NOTES section 8); link-gray fails a link there")
    if "plane" in chosen and planes < 2:
        if opts.scenarios is not None:
            raise ExperimentError("scenario plane: the fabric has one plane (e.g. --spec "
                                  "multiplane:planes=2,base=fattree:k=4)")
        chosen.remove("plane")
    # --modes runs every chosen scenario in those modes; without it each has its own
    return [[mode if name == "baseline" else f"{mode} {name}", name, mode]
            for name in chosen
            for mode in (opts.modes or table.get(name, SCENARIO_MODES[name]))]


def _phase_seconds(quick: bool, sim: bool) -> float:
    """The progress line's guess of a phase's wall time."""
    return (8.0 if quick else 120.0) if sim else (30.0 if quick else 60.0)


def rank_rate(setup: Setup) -> float:
    """Payload bytes/s a rank's NICs carry at most: every plane's link at the payload
    ceiling, the rank's link also carrying the ACKs of what it receives."""
    planes = setup.params.get("planes", 1)
    return planes * setup.link_rate / 8 * payload_ceiling(setup.mtu, True)


def ideal_s(setup: Setup) -> float:
    p = setup.params
    return ideal_seconds(p["pattern"], p["ranks"], p["size"], rank_rate(setup))


def rank_hosts(setup: Setup, fabric) -> list[str]:
    """The host of each rank (`place_ranks`, checked when the setup was made)."""
    return place_ranks(fabric, setup.params["ranks"], setup.params["placement"])


def traffic(setup: Setup, fabric, seconds: float) -> list[Flow]:
    """The collective's load as plain flows (for --rate auto): every rank to its ring
    neighbour, each sized for `seconds`."""
    hosts = rank_hosts(setup, fabric)
    size = int(rank_rate(setup) * seconds)
    return [Flow(src, dst, size, seed=setup.seed * 1000 + i)
            for i, (src, dst) in enumerate(zip(hosts, hosts[1:] + hosts[:1], strict=True))]


def run(session, setup: Setup) -> dict:
    p = setup.params
    schedule = build_schedule(p["pattern"], p["ranks"], p["size"], p["slice"])
    ideal = ideal_s(setup)
    compute = p["compute_s"] if p["compute_s"] is not None else ideal
    hosts = rank_hosts(setup, session.fabric)
    out = {"hosts": hosts, "ideal_s": ideal, "compute_s": compute,
           "rank_bytes_per_s": rank_rate(setup),
           "bus_factor": bus_factor(p["pattern"], p["ranks"]), "phases": {}}
    for label, scenario, mode in p["phases"]:
        if mode not in p["modes"]:
            continue
        if session.interrupted:  # Ctrl-C: the phases after the one cut short do not run
            break
        session.progress(label)
        session.set_spray(mode)
        straggler = scenario == "straggler"
        spec = JobSpec(p["iterations"], compute, p["jitter"],
                       p["straggler"] if straggler else None,
                       p["straggler_factor"] if straggler else 1.0, p["window"], setup.seed)
        plan = JobPlan(tuple(hosts), schedule, spec, ideal,
                       _actions(session, scenario, p),
                       timeout_s=p["iterations"] * (compute * p["straggler_factor"]
                                                    + 100 * ideal) + 0.05)
        record = session.run_job(label.replace(" ", "-"), plan)
        out["phases"][label] = {"scenario": scenario, "mode": mode, "job": record}
    return out


def verdicts(raw: dict) -> list[Verdict]:
    return [phase["job"].verdict for phase in raw["phases"].values()]


def _actions(session, scenario: str, p: dict) -> tuple[IterationAction, ...]:
    """What the scenario does to the fabric, and when (mid-collective)."""
    at, fraction = p["fail_iteration"], p["fail_fraction"]
    chosen: list[tuple[str, str]] = []

    def link() -> tuple[str, str]:
        if not chosen:  # the core link that has carried the most, so ECMP surely uses it
            chosen.append(busiest_core_link(session))
        return chosen[0]

    def fail(admin: bool) -> str:
        a, b = link()
        session.set_link(a, b, up=False, admin=admin)
        return f"{a}-{b} fails ({'admin down' if admin else 'gray'})"

    def restore() -> str:
        a, b = link()
        session.set_link(a, b, up=True)
        return f"{a}-{b} back"

    def plane() -> str:
        links = [(core, agg) for agg, _, core, _ in plans.core_links_on_plane(session.fabric, 1)]
        session.set_links(links, up=False)
        return f"plane 1 fails ({len(links)} core links, gray)"

    if scenario in ("link-gray", "link-admin"):
        return (IterationAction(at, fraction, lambda: fail(scenario == "link-admin")),)
    if scenario == "plane":
        return (IterationAction(at, fraction, plane),)
    if scenario == "flap":
        every = p["flap_every"]
        return tuple(IterationAction(i, fraction,
                                     (lambda: fail(False)) if (i // every) % 2 else restore)
                     for i in range(every, p["iterations"], every))
    return ()


def busiest_core_link(session) -> tuple[str, str]:
    """(core, agg) of the agg-core link whose two ports have sent the most so far."""
    counters = session.counters()

    def sent(link: tuple[str, int, str, int]) -> int:
        agg, agg_port, core, core_port = link
        rows = (counters.get(agg, {}).get(agg_port), counters.get(core, {}).get(core_port))
        return sum(r.tx_bytes for r in rows if r is not None)
    agg, _, core, _ = max(session.core_links(), key=sent)
    return core, agg
