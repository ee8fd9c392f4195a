"""Desired switch state and the reconciliation diff."""

from __future__ import annotations

import pytest

from mrclab.controller.next_hops import compute_next_hops, link_id
from mrclab.controller.switch_state import (
    PROBE_GROUP,
    THRESHOLD_NEVER,
    ForwardingPolicy,
    SwitchState,
    build_switch_state,
    group_id_for,
    hash_salt,
    ip_to_int,
    ports_of_group,
)
from mrclab.controller.write_plan import Kind, OpType, apply_ops, plan
from mrclab.fabric.spec import parse_spec


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
    assert state.spray_salt == 0  # build_switch_state's default; the controller passes one


def test_groups_have_plain_weights_and_each_switch_its_own_salt():
    fabric = parse_spec("fattree:k=4")
    hops = compute_next_hops(fabric)
    states = {name: build_switch_state(sorted(sw.ports), hops[name], ForwardingPolicy(1),
                                       hash_salt(sw.device_id))
              for name, sw in fabric.switches.items()}
    # polarization is the data plane's salt's job now: no tier-dependent member weights
    assert {w for st in states.values() for g in st.groups.values() for _, w in g} == {1}
    salts = [st.spray_salt for st in states.values()]
    assert len(set(salts)) == len(salts) and 0 not in salts
    assert {st.spray_mode for st in states.values()} == {1}
    with pytest.raises(ValueError, match="device id"):
        hash_salt(1 << 32)


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
    current = SwitchState(downlink={(1, 32): 5}, spray_mode=0, spray_salt=9)
    desired = SwitchState(downlink={(1, 32): 6}, spray_mode=2, spray_salt=9)
    (phase,) = plan(current, desired)
    assert {(op.type, op.kind) for op in phase} == {(OpType.MODIFY, Kind.DOWNLINK),
                                                    (OpType.MODIFY, Kind.SPRAY)}
    assert next(op for op in phase if op.kind is Kind.SPRAY).value == (2, 9)
    unknown = SwitchState(downlink={(1, 32): 6}, spray_mode=None, spray_salt=None)
    assert plan(unknown, desired)[0][0].kind is Kind.SPRAY


def test_salt_alone_differing_rewrites_the_spray_entry():
    """A switch holding the right mode with another salt (e.g. set by hand, or by an older
    controller) is fixed on reconcile; once equal, nothing is written."""
    current = SwitchState(spray_mode=1, spray_salt=0)
    desired = SwitchState(spray_mode=1, spray_salt=5)
    (phase,) = plan(current, desired)
    assert [(op.type, op.kind, op.value) for op in phase] == [
        (OpType.MODIFY, Kind.SPRAY, (1, 5))]
    apply_ops(current, phase)
    assert (current.spray_mode, current.spray_salt) == (1, 5)
    assert plan(current, desired) == []


def test_probe_group_is_reconciled_like_a_table_entry():
    """A switch that lost its probe group, holds a stale one, or holds one the program no
    longer uses (a copy of mrc.p4 without probe groups) is brought back by the diff."""
    group = {PROBE_GROUP: frozenset({1, 2})}
    (phase,) = plan(SwitchState(), SwitchState(multicast=group))
    assert [(op.type, op.kind, op.key, op.value) for op in phase] == [
        (OpType.INSERT, Kind.MULTICAST, PROBE_GROUP, frozenset({1, 2}))]
    stale = SwitchState(multicast={PROBE_GROUP: frozenset({1})})
    (phase,) = plan(stale, SwitchState(multicast=group))
    assert [(op.type, op.value) for op in phase] == [(OpType.MODIFY, frozenset({1, 2}))]
    apply_ops(stale, phase)
    assert stale.multicast == group and stale.entry_count() == 2
    (phase,) = plan(stale, SwitchState())
    assert [(op.type, op.kind) for op in phase] == [(OpType.DELETE, Kind.MULTICAST)]
    apply_ops(stale, phase)
    assert stale.multicast == {}
