"""Options of a run and the setup an experiment derives from them (pure, no Mininet)."""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

from mrclab.endpoint.wire import ETH_IP_UDP_LEN, HEADER_LEN, payload_fit
from mrclab.fabric.spec import parse_duration
from mrclab.mininet.mtu import DEFAULT_MTU, MAX_MTU
from mrclab.mininet.mtu import check_mtu as check_interface_mtu
from mrclab.mininet.rates import bps_to_pps

TARGETS = ("p4emu", "bmv2")
ENGINES = ("lab", "sim")
FIGURES = ("own", "lab")  # a simulated run's figures: its own, or the lab's  # DESIGN.md, "Engines": real time, or the simulator's virtual time
ACK_FRAME_BYTES = ETH_IP_UDP_LEN + HEADER_LEN  # Ethernet/IPv4/UDP/MRC header, no payload
# Throughput experiments run jumbo frames, as AI-training fabrics do: headers cost 1 % of a
# frame instead of 5 %, and a software fabric, whose cost is per packet, carries six times
# the bits. Experiments about queues counted in packets keep 1500 bytes.
JUMBO_MTU = MAX_MTU


def frame_bytes(mtu: int) -> int:
    """An MTU-sized IPv4 packet in its Ethernet frame."""
    return mtu + 14


def mss(mtu: int) -> int:
    """Payload of a full MRC DATA packet."""
    return payload_fit(mtu)

# What a target can emulate per link on this kind of machine. p4emu forwards 30-40 k
# packets/s per switch on one core (README); beyond the rate a Python endpoint reaches
# (~600 Mb/s) nothing is left to measure. BMv2 shapes whole packets per second; its
# switches forward 1-2 k packets/s each on a 2-core machine (tests/integration), and below
# 1 packet/s it cannot shape at all.
# The simulator's cost is per packet, not per second of traffic: any rate of MRC's range.
RATE_LIMITS_BPS = {"p4emu": (100_000, 200_000_000), "bmv2": (12_000, 24_000_000),
                   "sim": (1_000_000, 800_000_000_000)}


class ExperimentError(Exception):
    """Bad input or a run that cannot be done; one-line message."""


@dataclass(frozen=True)
class Options:
    """What the user asked for."""

    name: str
    target: str = "p4emu"
    quick: bool = False
    out: Path = Path("results")
    seed: int = 1
    rate: str | None = None  # "auto", a rate like "4M", or None for the experiment's default
    mtu: int | None = None  # None: the experiment's default
    incast_n: tuple[int, ...] | None = None  # incast sender counts (default per experiment)
    engine: str = "lab"  # lab | sim
    # the fabric, instead of the experiment's (None: its own)
    spec: str | None = None
    queue_depth: int | None = None
    trim: int | None = None
    ecn: int | None = None
    delay: str | None = None  # sim only: "1us", "500ns"
    modes: tuple[str, ...] | None = None  # the experiment's modes to run (None: all)
    # sim only: "lab" runs the experiment's lab figures (rates, MTU, queues, thresholds,
    # durations, the senders' timers) on the simulator, to set the engines side by side
    figures: str = "own"
    duration: str | None = None  # permutation, failover: each flow's length at the link rate, "1.5ms"
    fail_at: str | None = None  # failover: when the link, then the plane fail, "400us,900us"
    pipeline: str | None = None  # sim: the switches' P4 pipeline (auto, native, python)
    # collective: the training job (None: the experiment's default)
    pattern: str | None = None  # ring-allreduce, halving-doubling, alltoall
    ranks: int | None = None  # one per host
    size: str | None = None  # bytes per rank, "64MiB"
    slice: str | None = None  # bytes per message, "64KiB"
    placement: str | None = None  # spread, packed
    iterations: int | None = None
    compute: str | None = None  # each iteration's compute phase, "200us"
    jitter: float | None = None  # per-rank compute spread, a fraction
    straggler: str | None = None  # "FACTOR" or "RANK:FACTOR"
    scenarios: tuple[str, ...] | None = None  # baseline, link-gray, ...
    flap_every: int | None = None  # iterations between a flapping link's changes
    window: int | None = None  # messages a rank has in flight at most


# the options only some experiments take, by the `Options` field; each module that takes
# one lists it in its OWN_OPTIONS
EXPERIMENT_OPTIONS = {"pattern": "--pattern", "ranks": "--ranks", "size": "--size",
                      "slice": "--slice", "placement": "--placement",
                      "iterations": "--iterations", "compute": "--compute",
                      "jitter": "--jitter", "straggler": "--straggler",
                      "scenarios": "--scenarios", "flap_every": "--flap-every",
                      "window": "--window"}


def parse_size(what: str, text: str) -> int:
    """'64MiB', '512K', '4096' -> bytes. K, M and G are binary (KiB, MiB, GiB), as
    nccl-tests' sizes are; ExperimentError naming `what`."""
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([kKmMgG]?)(?:i?B)?\s*", text)
    if not m:
        raise ExperimentError(f"bad {what} {text!r}: expected bytes, e.g. 4096, 512KiB "
                              "or 64MiB")
    return int(float(m.group(1)) * {"": 1, "k": 1 << 10, "m": 1 << 20,
                                    "g": 1 << 30}[m.group(2).lower()])


def parse_rate(text: str) -> int:
    """'4M', '4Mb/s', '500k', '2000000' -> bits per second."""
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([kKmMgG]?)(?:bps|b/s|bit/s|b)?\s*", text)
    if not m:
        raise ExperimentError(f"bad rate {text!r}: expected e.g. 4M, 500k or auto")
    scale = {"": 1, "k": 1e3, "m": 1e6, "g": 1e9}[m.group(2).lower()]
    return int(float(m.group(1)) * scale)


def parse_delay(text: str) -> float:
    """'1us', '500ns', '0.5ms' -> seconds (`mrclab.fabric.spec.parse_duration`)."""
    return parse_seconds("delay", text)


def parse_seconds(what: str, text: str) -> float:
    """A time option ('1us', '1.5ms', '10s') in seconds; ExperimentError naming `what`."""
    try:
        return parse_duration(text)
    except ValueError:
        raise ExperimentError(f"bad {what} {text!r}: expected e.g. 1us, 500ns or 0.5ms") from None


def check_mtu(mtu: int) -> None:
    try:
        check_interface_mtu(mtu)
    except ValueError as exc:
        raise ExperimentError(f"bad {exc}") from None


def check_rate(target: str, bps: int, mtu: int = DEFAULT_MTU) -> None:
    """Raise ExperimentError when `target` (or the engine "sim") cannot emulate `bps` per
    link."""
    low, high = RATE_LIMITS_BPS[target]
    if not low <= bps <= high:
        extra = (f" ({bps_to_pps(bps, mtu)} packets/s of {mtu}-byte packets)"
                 if target == "bmv2" else "")
        raise ExperimentError(f"rate {bps / 1e6:g} Mb/s{extra} is outside what {target} "
                              f"emulates per link: {low / 1e6:g}..{high / 1e6:g} Mb/s")


def effective_rate(target: str, bps: int, mtu: int) -> int:
    """Bits/s of full frames a port really carries at `bps`: BMv2 shapes packets/s."""
    return bps_to_pps(bps, mtu) * mtu * 8 if target == "bmv2" else bps


def payload_ceiling(mtu: int, acks_share_link: bool) -> float:
    """Largest goodput (payload) share of a link's rate: headers cost 82 bytes per frame,
    and in a permutation each host link also carries the ACKs of the host's own outgoing
    flow (one per DATA packet)."""
    wire = frame_bytes(mtu) + (ACK_FRAME_BYTES if acks_share_link else 0)
    return mss(mtu) / wire


def simulator_defaults() -> dict:
    """`Setup` fields of a simulated run: the simulator's datacenter figures (100 Gb/s,
    4 KiB MTU, 1 us links, tens of KiB of buffer), which no experiment's lab figures fit."""
    from mrclab.sim.network import SimSettings

    s = SimSettings()
    return {"engine": "sim", "rate_bps": int(s.link_rate_bps), "mtu": s.mtu,
            "queue_depth": s.queue_depth, "trim_threshold": s.trim_threshold,
            "ecn_threshold": s.ecn_threshold, "probe_interval": s.probe_interval_s,
            "miss_limit": s.miss_limit, "link_delay_s": s.link_delay_s,
            "pace_resends": s.pace_resends}


@dataclass
class Setup:
    """Everything a run of one experiment is made of; recorded in results.json."""

    experiment: str
    target: str
    spec: str
    seed: int
    quick: bool
    rate_bps: int  # host links (and every link unless fabric_rate_bps says otherwise)
    mtu: int = DEFAULT_MTU  # every fabric interface
    fabric_rate_bps: int | None = None  # switch-to-switch links, when they differ
    queue_depth: int = 64  # packets per egress queue
    trim_threshold: int = 8  # packets; 0 = never trim
    ecn_threshold: int = 4  # packets; 0 = never mark
    # Link probing: every probe is a packet-out and packet-in through the controller's
    # Python gRPC sessions; at the controller's default (50 ms) on 32 links that takes
    # ~40 % of one core here, CPU the fabric then lacks, and probes delayed by CPU stalls
    # make links flap. Experiments without failures probe slowly.
    probe_interval: float = 0.25
    miss_limit: int = 4
    rate_source: str = "default"  # default / option / auto (calibrated)
    engine: str = "lab"  # lab | sim (virtual time: every time below is virtual)
    link_delay_s: float = 0.0  # propagation per link (sim; the lab's links have none)
    figures: str = "own"  # sim: "lab" when the lab's figures run on the simulator
    pipeline: str = "auto"  # sim: the switches' P4 pipeline (auto, native, python)
    # receivers give trimmed packets' resends turns at the host link's rate (mrclab/endpoint/
    # README.md, "Resend turns"); the simulator's figures do, the lab's NACK at once
    pace_resends: bool = False
    params: dict = field(default_factory=dict)  # the experiment's own knobs
    phases: list[tuple[str, float]] = field(default_factory=list)  # (name, seconds estimate)

    def as_dict(self) -> dict:
        return asdict(self)

    def at_rate(self, bps: int, source: str | None = None) -> Setup:
        """This setup with host links at `bps`, its fabric links keeping their ratio to the
        host links; `source` (default: unchanged) says where the rate came from."""
        fabric = (None if not self.fabric_rate_bps
                  else int(self.fabric_rate_bps * bps / self.rate_bps))
        return replace(self, rate_bps=bps, fabric_rate_bps=fabric,
                       rate_source=source or self.rate_source)

    @property
    def link_rate(self) -> int:
        """The host link rate as the target really applies it."""
        return effective_rate(self.target, self.rate_bps, self.mtu)

    @property
    def fabric_rate(self) -> int:
        return effective_rate(self.target, self.fabric_rate_bps or self.rate_bps, self.mtu)

    def queue_delay_bound_s(self, hops: int) -> float:
        """The most delay per queued packet that `hops` egress queues explain: each holds
        a packet up for one full frame time per packet ahead of it (at the slower of the
        two link rates, as the target applies it). See `validity.late_share`."""
        return hops * frame_bytes(self.mtu) * 8 / min(self.link_rate, self.fabric_rate)

    @property
    def high_priority_depth(self) -> int:
        """Packets in the trimmed-header/ACK queue: the bytes of `queue_depth` full frames
        in header-only packets, as a switch's byte buffer holds them (with 64 packets for
        either, a trimmed 15-sender burst overflowed the header queue and cost timeouts)."""
        return self.queue_depth * frame_bytes(self.mtu) // ACK_FRAME_BYTES

    def payload_ceiling(self, acks_share_link: bool) -> float:
        return payload_ceiling(self.mtu, acks_share_link)
