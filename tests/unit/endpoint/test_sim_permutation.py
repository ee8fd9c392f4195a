"""The simulated permutation: the fabric's spray modes ranked as the lab ranks them."""

from __future__ import annotations

import random
import statistics

import pytest

from endpoint.sim.permutation import (
    HOSTS,
    PermutationSpec,
    cross_pod_permutation,
    run_permutation,
    switch_hash,
)

QUICK = PermutationSpec(seconds=4.0, warmup=1.0)


def test_the_permutation_crosses_pods_and_pairs_every_host_once():
    pairs = cross_pod_permutation(random.Random(3))
    assert sorted(s for s, _ in pairs) == sorted(d for _, d in pairs) == list(range(HOSTS))
    assert all(s // 4 != d // 4 for s, d in pairs)


def test_switches_hash_the_same_key_independently():
    """Salted hashes of one key are uncorrelated across switches (no polarization)."""
    keys = [bytes([a, b, 0, ev]) for a in range(4) for b in range(4) for ev in range(64)]
    same = sum(switch_hash(k, 1) % 2 == switch_hash(k, 9) % 2 for k in keys)
    assert 0.4 < same / len(keys) < 0.6


@pytest.fixture(scope="module")
def runs():
    return {mode: run_permutation(mode, seed=2, spec=QUICK)
            for mode in ("ecmp", "ev", "source")}


def test_every_flow_is_delivered_whole(runs):
    assert all(r.intact == HOSTS for r in runs.values())


def test_spraying_beats_ecmp_and_knowing_the_paths_beats_hashing(runs):
    mean = {m: statistics.mean(r.goodputs()) for m, r in runs.items()}
    low = {m: min(r.goodputs()) for m, r in runs.items()}
    assert mean["ecmp"] < 0.75 and low["ecmp"] < 0.5  # hash collisions: flows at half or less
    assert mean["ev"] > mean["ecmp"] + 0.15 and low["ev"] > low["ecmp"] + 0.2
    assert mean["source"] > mean["ev"] + 0.05 and low["source"] > low["ev"] + 0.1


def test_a_run_is_reproducible(runs):
    again = run_permutation("ev", seed=2, spec=QUICK)
    assert again.goodputs() == runs["ev"].goodputs()


def test_unknown_mode_is_one_clear_error():
    with pytest.raises(ValueError, match="unknown spray mode 'hash'"):
        run_permutation("hash")
