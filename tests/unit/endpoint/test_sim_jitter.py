"""Loss inference under delay jitter and reordering (simulator): few spurious retransmits and
retirements on a fabric that loses nothing, fast retirement when a path does fail.

Every inferred loss on a loss-free fabric is spurious, and each one reaches the receiver
twice, so the receiver's duplicate count is the number of spurious retransmissions."""

import pytest

from mrclab.endpoint.core.sender import SenderConfig
from mrclab.sim.pathmodel import PathSpec, ev_path_index, payload_capacity, run_transfer

MB = 1 << 20
MSS = SenderConfig().mss


def jittery(n: int = 8, **kw) -> list[PathSpec]:
    # Every packet up to 6x the base delay late, 5 % of them up to 60x (a switch process
    # waiting for a CPU): a caricature of p4emu switches sharing two cores.
    base = dict(jitter=300e-6, reorder=0.05, reorder_delay=3e-3)
    base.update(kw)
    return [PathSpec(**base) for _ in range(n)]


def test_jitter_alone_is_not_taken_for_loss():
    r = run_transfer(8 * MB, [jittery(reorder=0.0)], seed=1)
    assert r.completed and r.intact and len(r.messages) == 1
    s = r.sender.stats
    assert r.receiver.stats.duplicates <= 5
    assert s.timeouts == 0 and len(r.sender.pool.retirements) <= 3


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_jitter_and_reordering_cause_few_spurious_retransmits(seed):
    specs = jittery()
    r = run_transfer(8 * MB, [specs], seed=seed)
    assert r.completed and r.intact and len(r.messages) == 1
    s = r.sender.stats
    dups = r.receiver.stats.duplicates
    # Before the adaptive window: ~200-250 spurious retransmits and as many retirements.
    assert dups <= 30, dups
    assert s.spurious_retransmits >= dups - s.nack_retransmits  # the sender noticed them
    assert len(r.sender.pool.retirements) <= 10
    assert s.timeouts == 0
    assert r.goodput_bps >= 0.7 * payload_capacity(specs, MSS)


@pytest.mark.parametrize("seed", [1, 2])
def test_heavy_tailed_delay_keeps_recovery_quiet(seed):
    specs = [PathSpec(delay=200e-6, jitter=2e-3, reorder=0.02, reorder_delay=10e-3)
             for _ in range(8)]
    r = run_transfer(4 * MB, [specs], seed=seed)
    assert r.completed and r.intact
    assert r.receiver.stats.duplicates <= 15
    assert len(r.sender.pool.retirements) <= 5 and r.sender.stats.timeouts == 0


@pytest.mark.parametrize("seed", [1, 2])
def test_failed_paths_still_retired_fast_under_jitter(seed):
    fail_at = 0.04
    specs = jittery()
    for spec in specs[:2]:
        spec.fail_at = fail_at
    r = run_transfer(8 * MB, [specs], seed=seed)
    assert r.completed and r.intact and len(r.messages) == 1
    s = r.sender
    dead = {st.ev for st in s.pool.planes[0] if ev_path_index(st.ev, 8) < 2}
    first_send: dict[int, float] = {}
    for t, _plane, ev in r.sends:
        if ev in dead and t >= fail_at:
            first_send.setdefault(ev, t)
    retired_at: dict[int, float] = {}
    for ret in s.pool.retirements:
        if ret.time >= fail_at:
            retired_at.setdefault(ret.ev, ret.time)
    assert first_send and set(first_send) <= set(retired_at)
    for ev, t in first_send.items():
        assert retired_at[ev] - t <= 6 * s.rtt.srtt, (ev, retired_at[ev] - t, s.rtt.srtt)
    # Dead EVs once each (none comes back), plus only a few healthy ones by mistake.
    assert len(s.pool.retirements) <= len(dead) + 8
    assert s.stats.timeouts == 0
    surviving = payload_capacity(specs, MSS, at=fail_at)
    assert r.goodput_between(fail_at, r.finish_time) >= 0.8 * surviving
