"""Traffic patterns over a fabric (pure): who sends to whom in a permutation, an incast,
between two pods. The lab's experiments and the simulator draw their pairs from here, so
the same seed gives the same pairs on both engines."""

from __future__ import annotations

import random

from mrclab.fabric.model import Fabric


class PlanError(ValueError):
    """The plan cannot be made on this fabric; one-line message."""


def _hosts(fabric: Fabric) -> list[str]:
    return sorted(fabric.hosts, key=lambda h: (fabric.hosts[h].group, fabric.hosts[h].index))


def cross_group_permutation(fabric: Fabric, seed: int, tries: int = 1000) -> list[tuple[str, str]]:
    """A random permutation in which every host sends to one distinct host of another group
    (fat-tree pod, leaf): [(src, dst)], each host once as source and once as destination.

    Up to `tries` uniform shuffles are drawn until one fits (what small fabrics get, and
    the lab's published runs used); past that (a k=8 fat-tree: 8 pods of 16 hosts, where
    hardly one shuffle in millions fits) the last shuffle is repaired by random swaps."""
    hosts = _hosts(fabric)
    groups = {h: fabric.hosts[h].group for h in hosts}
    if len(set(groups.values())) < 2:
        raise PlanError(f"{fabric.spec}: a cross-pod permutation needs at least 2 pods")
    largest = max(sum(1 for g in groups.values() if g == grp) for grp in set(groups.values()))
    if 2 * largest > len(hosts):
        raise PlanError(f"{fabric.spec}: one pod holds more than half the hosts")
    rng = random.Random(seed)
    targets = hosts[:]
    for _ in range(tries):
        rng.shuffle(targets)
        if all(groups[s] != groups[d] for s, d in zip(hosts, targets, strict=True)):
            return list(zip(hosts, targets, strict=True))
    _repair(hosts, targets, groups, rng)
    return list(zip(hosts, targets, strict=True))


def _repair(hosts: list[str], targets: list[str], groups: dict, rng: random.Random) -> None:
    """Swap targets until no host sends within its own group: each clash is swapped with a
    random position whose host and target both accept the exchange (one exists while no
    group holds more than half the hosts)."""
    n = len(hosts)
    for _ in range(100 * n):
        clashes = [i for i in range(n) if groups[hosts[i]] == groups[targets[i]]]
        if not clashes:
            return
        i = rng.choice(clashes)
        fits = [j for j in range(n) if groups[hosts[i]] != groups[targets[j]]
                and groups[hosts[j]] != groups[targets[i]]]
        if fits:
            j = rng.choice(fits)
            targets[i], targets[j] = targets[j], targets[i]
        else:  # pragma: no cover - the size check above leaves a fit
            rng.shuffle(targets)
    raise PlanError("no cross-pod permutation found")  # pragma: no cover


def incast_senders(fabric: Fabric, receiver: str, n: int, seed: int) -> list[str]:
    """`n` distinct senders for `receiver`, hosts of other groups first (seeded order)."""
    others = [h for h in _hosts(fabric) if h != receiver]
    if receiver not in fabric.hosts:
        raise PlanError(f"unknown receiver {receiver!r}")
    if not 1 <= n <= len(others):
        raise PlanError(f"incast N={n} is larger than {fabric.spec} allows "
                        f"({len(others)} hosts besides the receiver)" if n > len(others)
                        else f"incast N={n} must be at least 1")
    rng = random.Random(seed)
    group = fabric.hosts[receiver].group
    far = [h for h in others if fabric.hosts[h].group != group]
    near = [h for h in others if fabric.hosts[h].group == group]
    rng.shuffle(far)
    rng.shuffle(near)
    return (far + near)[:n]


def pod_pairs(fabric: Fabric, src_group: int, dst_group: int) -> list[tuple[str, str]]:
    """Host i of one group to host i of another (as many pairs as the smaller group has)."""
    src = [h for h in _hosts(fabric) if fabric.hosts[h].group == src_group]
    dst = [h for h in _hosts(fabric) if fabric.hosts[h].group == dst_group]
    if not src or not dst:
        raise PlanError(f"{fabric.spec} has no hosts in group {src_group} or {dst_group}")
    return list(zip(src, dst, strict=False))


def last_host(fabric: Fabric) -> str:
    return _hosts(fabric)[-1]
