"""Desired switch state and the reconciliation diff."""

from __future__ import annotations

import pytest

from controller.reconcile import Kind, OpType, apply_ops, plan
from controller.routes import compute_next_hops, link_id, switch_tiers
from controller.switch_state import (
    THRESHOLD_NEVER,
    ForwardingPolicy,
    SwitchState,
    build_switch_state,
    group_id_for,
    ip_to_int,
    member_weight,
    ports_of_group,
)
from topologies.spec import parse_spec


def test_group_ids_are_port_masks():
    assert group_id_for(frozenset({3, 4})) == 0b11000
    assert ports_of_group(0b11000) == {3, 4}
    with pytest.raises(ValueError, match="port 40"):
        group_id_for(frozenset({1, 40}))


def test_edge_switch_state_in_fattree():
    fabric = parse_spec("fattree:k=4")
    hops = compute_next_hops(fabric)
    state = build_switch_state([1, 2, 3, 4], hops["e1"], ForwardingPolicy(1, 40, 10))
    assert state.downlink == {(ip_to_int("10.0.0.1"), 32): 1, (ip_to_int("10.0.0.2"), 32): 2}
    assert len(state.uplink) == 14  # every other host through the aggregation group
    assert set(state.uplink.values()) == {group_id_for(frozenset({3, 4}))}
    assert state.groups == {0b11000: frozenset({(3, 1), (4, 1)})}
    assert state.members == {3: 3, 4: 4}
    assert state.source_label == {1: 1, 2: 2, 3: 3, 4: 4}
    assert state.thresholds == dict.fromkeys([1, 2, 3, 4], (40, 10))
    assert state.spray_mode == 1


def test_group_weights_use_a_different_hash_digit_per_tier():
    fabric = parse_spec("fattree:k=4")
    tiers = switch_tiers(fabric)
    assert (tiers["e1"], tiers["a1"], tiers["c1"]) == (0, 1, 2)
    hops = compute_next_hops(fabric)
    agg = build_switch_state([1, 2, 3, 4], hops["a1"], ForwardingPolicy(), tiers["a1"])
    assert agg.groups[0b11000] == {(3, 2), (4, 2)}
    # slot = hash % total weight over members in id order, each repeated weight times:
    # edge and aggregation choices are independent, so every core is reachable from e1
    def pick(state, gid, h):
        slots = [m for m, w in sorted(state.groups[gid]) for _ in range(w)]
        return slots[h % len(slots)]
    edge = build_switch_state([1, 2, 3, 4], hops["e1"], ForwardingPolicy(), tiers["e1"])
    combos = {(pick(edge, 0b11000, h), pick(agg, 0b11000, h)) for h in range(16)}
    assert combos == {(3, 3), (3, 4), (4, 3), (4, 4)}
    assert member_weight(3, 1) == 3
    assert member_weight(16, 2) == 16  # 16 * 16^2 slots would exceed the cap: one tier less


def test_threshold_policy():
    assert ForwardingPolicy(0, 0, 0).thresholds() is None
    assert ForwardingPolicy(0, 20, 0).thresholds() == (20, THRESHOLD_NEVER)
    state = build_switch_state([1], {}, ForwardingPolicy(0, 0, 0))
    assert state.thresholds == {}


def test_plan_from_empty_orders_members_groups_tables():
    fabric = parse_spec("fattree:k=4")
    desired = build_switch_state([1, 2, 3, 4], compute_next_hops(fabric)["e1"],
                                 ForwardingPolicy())
    phases = plan(SwitchState(), desired)
    kinds = [{op.kind for op in phase} for phase in phases]
    assert kinds[0] == {Kind.MEMBER}
    assert kinds[1] == {Kind.GROUP}
    assert kinds[2] == {Kind.DOWNLINK, Kind.UPLINK, Kind.SOURCE_LABEL, Kind.THRESHOLDS,
                        Kind.SPRAY}
    assert len(phases) == 3
    assert all(op.type is OpType.INSERT for op in phases[0] + phases[1])
    current = SwitchState()
    for phase in phases:
        apply_ops(current, phase)
    assert current == desired
    assert plan(current, desired) == []  # converged: nothing to write


def test_failure_moves_destination_from_group_to_downlink_without_a_gap():
    fabric = parse_spec("fattree:k=4")
    policy = ForwardingPolicy()
    before = build_switch_state([1, 2, 3, 4], compute_next_hops(fabric)["a1"], policy)
    dead = link_id(fabric.find_link("c1", "a7"))
    after = build_switch_state([1, 2, 3, 4], compute_next_hops(fabric, {dead})["a1"], policy)
    phases = plan(before, after)
    ops = [op for phase in phases for op in phase]
    prefix = (ip_to_int("10.0.3.4"), 32)
    insert_at = next(i for i, ph in enumerate(phases)
                     if any(op.key == prefix and op.kind is Kind.DOWNLINK for op in ph))
    delete_at = next(i for i, ph in enumerate(phases)
                     if any(op.key == prefix and op.kind is Kind.UPLINK for op in ph))
    assert insert_at < delete_at
    assert all(op.type is OpType.DELETE for op in phases[delete_at])
    # only the four pod-3 destinations change; the group itself stays (still used)
    assert {op.key for op in ops} == {(ip_to_int(f"10.0.3.{i}"), 32) for i in (1, 2, 3, 4)}
    current = SwitchState(**{k: dict(v) if isinstance(v, dict) else v
                             for k, v in before.__dict__.items()})
    for phase in phases:
        apply_ops(current, phase)
    assert current == after


def test_modify_and_spray_change():
    current = SwitchState(downlink={(1, 32): 5}, spray_mode=0)
    desired = SwitchState(downlink={(1, 32): 6}, spray_mode=2)
    (phase,) = plan(current, desired)
    assert {(op.type, op.kind) for op in phase} == {(OpType.MODIFY, Kind.DOWNLINK),
                                                    (OpType.MODIFY, Kind.SPRAY)}
    unknown = SwitchState(downlink={(1, 32): 6}, spray_mode=None)
    assert plan(unknown, desired)[0][0].kind is Kind.SPRAY
