"""Permutation traffic on a simulated fat-tree k=4: every host sends one long flow to a
distinct host of another pod, each switch port a trimming, ECN-marking `Path` queue.

It is the permutation experiment (experiments/permutation.py) without the emulation: the
same topology, rates, thresholds and sender settings, in virtual time and reproducible, so
a congestion-control change can be compared over many seeds in seconds before it is tried
in the lab. A packet's path is its choice of aggregation switch and core: fixed per flow
(`ecmp`), drawn per packet (`random`), hashed from its EV (`ev`, as the fabric does) or
named by the source route the sender bound to the EV (`source`: labels agg + 1, core + 1).
Replies ride the high-priority queues, modelled as a delay line: per hop the ACK frame's
time plus, as often as the port is busy, part of the data frame being sent.

    result = run_permutation("ev", seed=1)
    result.goodputs()  # per flow, normalised to the link rate, from warm-up to first finish
"""

from __future__ import annotations

import random
import zlib
from dataclasses import dataclass, replace

from endpoint.core.packets import Outgoing
from endpoint.core.receiver import MrcReceiver, ReceiverConfig
from endpoint.core.sender import MrcSender
from endpoint.core.sender_config import SenderConfig, emulated_fabric_config
from endpoint.sim.events import EventLoop
from endpoint.sim.links import HEADER_FRAME, Path, PathSpec, SimPacket
from endpoint.sim.senders import SenderGroup
from endpoint.wire import MrcHeader, payload_fit, route_word

K = 4  # fat-tree arity: 4 pods of 2 edge and 2 aggregation switches, 4 cores, 16 hosts
HOSTS = K ** 3 // 4
PATHS = (K // 2) ** 2  # (aggregation switch, core) choices between two pods
MODES = ("ecmp", "ev", "random", "source")


@dataclass(slots=True)
class PermutationSpec:
    """The fabric and traffic: the lab permutation experiment's full-run settings."""

    rate: float = 4e6  # bit/s, every port
    mtu: int = 9000
    hop_delay: float = 0.5e-3  # per hop, beside serialisation (a software switch's latency)
    hop_jitter: float = 0.0  # per hop, up to this much more delay (uniform): a busy CPU
    queue_limit: int = 64
    trim_threshold: int | None = 16
    ecn_threshold: int | None = 8
    seconds: float = 10.0  # each flow's size: this long at the link's payload rate
    warmup: float = 2.0
    busy_share: float = 0.9  # how often a reply finds its port sending a data frame
    planes: int = 1  # fat-trees side by side, every host with one NIC on each
    failed_plane: int | None = None  # every core link of this plane fails at `fail_at`
    fail_at: float = 1.0

    @property
    def mss(self) -> int:
        return payload_fit(self.mtu)

    @property
    def frame_bytes(self) -> int:
        """A full-size DATA packet on the wire."""
        return self.mss + HEADER_FRAME

    @property
    def payload_rate(self) -> float:
        """Payload bit/s of one link carrying full-size packets."""
        return self.rate * self.mss / self.frame_bytes


@dataclass(slots=True)
class PermutationResult:
    spec: PermutationSpec
    pairs: list[tuple[int, int]]
    senders: list[MrcSender]
    progress: list[list[tuple[float, int]]]  # per flow: (time, payload bytes placed)
    intact: int  # flows delivered whole and correct

    def goodputs(self) -> list[float]:
        """Each flow's payload rate, normalised to the link rate, from the warm-up until the
        first flow finished (when all of them were still sending)."""
        ends = [s.finish_time for s in self.senders if s.finish_time is not None]
        end = min(ends) if ends else max(t for p in self.progress for t, _ in p)
        start = self.spec.warmup
        return [(placed_by(p, end) - placed_by(p, start)) * 8 / (end - start) / self.spec.rate
                for p in self.progress]

    def total(self, stat: str) -> int:
        """One `SenderStats` field summed over the senders."""
        return sum(getattr(s.stats, stat) for s in self.senders)


def placed_by(progress: list[tuple[float, int]], t: float) -> int:
    """Bytes placed by time `t`, from (time, bytes placed) samples in time order."""
    placed = 0
    for when, value in progress:
        if when > t:
            break
        placed = value
    return placed


def switch_hash(key: bytes, salt: int) -> int:
    """A switch's 32-bit path hash of `key`: CRC-32, then a non-linear mix with the switch's
    salt (the murmur3 finalizer), so two switches split the same packets independently."""
    h = zlib.crc32(key) ^ (salt * 0x9E3779B1 & 0xFFFFFFFF)
    h = (h ^ (h >> 16)) * 0x85EBCA6B & 0xFFFFFFFF
    h = (h ^ (h >> 13)) * 0xC2B2AE35 & 0xFFFFFFFF
    return h ^ (h >> 16)


def source_route(choice: int) -> int:
    """The `route` word of path `choice`: labels aggregation switch + 1, core + 1."""
    agg, core = divmod(choice, K // 2)
    return route_word((agg + 1, core + 1))


def route_choice(word: int) -> int:
    """The path a `source_route` word names."""
    return ((word >> 56) - 1) * (K // 2) + (word >> 48 & 0xFF) - 1


def cross_pod_permutation(rng: random.Random) -> list[tuple[int, int]]:
    """A random derangement of the hosts in which nobody sends inside its own pod."""
    per_pod = HOSTS // K
    while True:
        dst = list(range(HOSTS))
        rng.shuffle(dst)
        if all(s // per_pod != d // per_pod for s, d in enumerate(dst)):
            return list(enumerate(dst))


class _FatTree:
    """The ports of the fat-tree as `Path` queues, and a flow's hops for a path choice."""

    def __init__(self, loop: EventLoop, spec: PermutationSpec, rng: random.Random,
                 fail_at: float | None = None) -> None:
        self.spec = spec
        port = PathSpec(delay=spec.hop_delay, jitter=spec.hop_jitter, bandwidth=spec.rate,
                        queue_limit=spec.queue_limit,
                        trim_threshold=spec.trim_threshold, ecn_threshold=spec.ecn_threshold)
        self._port, self._loop, self._rng = port, loop, rng
        self.fail_at = fail_at  # when every aggregation-core link fails (both directions)
        self.ports: dict[tuple, Path] = {}

    def core_down(self, t: float) -> bool:
        return self.fail_at is not None and t >= self.fail_at

    def _get(self, name: tuple) -> Path:
        path = self.ports.get(name)
        if path is None:
            core_link = name[0] == "core" or name[-2] == "up" and name[0] == "agg"
            spec = replace(self._port, fail_at=self.fail_at if core_link else None)
            path = Path(self._loop, spec, random.Random(self._rng.getrandbits(64)),
                        "-".join(map(str, name)))
            self.ports[name] = path
        return path

    def hops(self, src: int, dst: int, choice: int) -> list[Path]:
        """Egress ports from `src` to `dst` in another pod via path `choice` (0..PATHS-1)."""
        half = K // 2
        spod, sedge = divmod(src // half, half)
        dpod, dedge = divmod(dst // half, half)
        agg, j = divmod(choice, half)
        core = agg * half + j  # core c links to aggregation switch c // (k/2) of every pod
        return [self._get(("edge", spod, sedge, "up", agg)),
                self._get(("agg", spod, agg, "up", j)),
                self._get(("core", core, "down", dpod)),
                self._get(("agg", dpod, agg, "down", dedge)),
                self._get(("edge", dpod, dedge, "host", dst % half))]


class _Permutation(SenderGroup):
    def __init__(self, mode: str, spec: PermutationSpec, seed: int,
                 sender_cfg: SenderConfig) -> None:
        rng = random.Random(seed)
        self.mode, self.spec, self.rng = mode, spec, rng
        loop = EventLoop()
        self.fabrics = [_FatTree(loop, spec, random.Random(rng.getrandbits(64)),
                                 spec.fail_at if plane == spec.failed_plane else None)
                        for plane in range(spec.planes)]
        self.pairs = cross_pod_permutation(random.Random(seed))
        size = int(spec.payload_rate * spec.seconds * spec.planes / 8)
        base = replace(sender_cfg, mss=spec.mss)
        if mode == "source":
            base = replace(base, routes=(tuple(map(source_route, range(PATHS))),) * spec.planes)
        super().__init__(loop, [rng.randbytes(size) for _ in self.pairs], base, rng,
                         spec.planes)
        self.receivers = [MrcReceiver(ReceiverConfig(seed=rng.getrandbits(32)))
                          for _ in self.pairs]
        self.progress: list[list[tuple[float, int]]] = [[(0.0, 0)] for _ in self.pairs]
        self._ack_hop = spec.hop_delay + HEADER_FRAME * 8 / spec.rate
        self._frame_time = spec.frame_bytes * 8 / spec.rate

    def choice(self, i: int, header: MrcHeader, plane: int = 0) -> int:
        """The path (aggregation switch * k/2 + core index) of flow i's packet."""
        half = K // 2
        if self.mode == "random":
            return self.rng.randrange(PATHS)
        if self.mode == "source":
            return route_choice(header.route)
        src, dst = self.pairs[i]
        key = bytes([src, dst]) + (header.ev.to_bytes(2, "big") if self.mode == "ev" else b"")
        edge = src // half + plane * HOSTS  # switch ids: edges 0..7, then aggregation switches
        agg = switch_hash(key, edge) % half
        return agg * half + switch_hash(key, HOSTS // half + edge // half * half + agg) % half

    def forward(self, i: int, out: Outgoing) -> None:
        src, dst = self.pairs[i]
        hops = self.fabrics[out.plane].hops(src, dst, self.choice(i, out.header, out.plane))
        self._hop(SimPacket(out.header, out.payload, out.plane), hops, 0, i)

    def _hop(self, pkt: SimPacket, hops: list[Path], at: int, i: int) -> None:
        if at == len(hops):
            self.at_receiver(i, pkt)
        else:
            hops[at].forward(pkt, lambda p: self._hop(p, hops, at + 1, i))

    def _reply_delay(self, hops: int) -> float:
        busy = sum(self.rng.random() * self._frame_time for _ in range(hops)
                   if self.rng.random() < self.spec.busy_share)
        jitter = sum(self.rng.random() * self.spec.hop_jitter for _ in range(hops)) \
            if self.spec.hop_jitter else 0.0
        return hops * self._ack_hop + busy + jitter

    def at_receiver(self, i: int, pkt: SimPacket) -> None:
        now = self.loop.now
        receiver = self.receivers[i]
        replies = receiver.on_packet(i, pkt.header, pkt.payload, pkt.ce, now)
        if self.fabrics[pkt.plane].core_down(now):
            replies = []  # they would cross the failed plane's core
        for reply in replies:
            self.loop.after(self._reply_delay(5), self.at_sender, i,
                            SimPacket(reply.header, b"", pkt.plane))
        self.progress[i].append((now, receiver.stats.bytes_placed))
        for msg in receiver.take_messages():
            if msg.ok:
                self.delivered[i] = bytes(msg.data)


def run_permutation(mode: str, seed: int = 1, spec: PermutationSpec | None = None,
                    sender_cfg: SenderConfig | None = None,
                    max_time: float = 120.0) -> PermutationResult:
    """Run one spray `mode` (see MODES) of the seeded permutation to completion."""
    if mode not in MODES:
        raise ValueError(f"unknown spray mode {mode!r} (known: {', '.join(MODES)})")
    h = _Permutation(mode, spec or PermutationSpec(), seed,
                     sender_cfg or emulated_fabric_config())
    h.run(max_time)
    return PermutationResult(h.spec, h.pairs, h.senders, h.progress, h.intact())
