import pytest

from p4emu.runtime.counters import CounterArray
from p4emu.runtime.digests import DigestConfig, DigestQueue
from p4emu.runtime.errors import EntryExists, EntryNotFound, InvalidEntry, TableFull
from p4emu.runtime.match import Exact, Ternary
from p4emu.runtime.meters import GREEN, RED, YELLOW, MeterArray, MeterConfig
from p4emu.runtime.model import (
    CounterInfo,
    CounterUnit,
    KeyField,
    MatchKind,
    MeterInfo,
    MeterUnit,
    RegisterInfo,
    ValueSetInfo,
)
from p4emu.runtime.pre import CloneSession, Pre
from p4emu.runtime.registers import RegisterArray
from p4emu.runtime.value_sets import ValueSet


def test_counter_packets_bytes_and_bounds():
    c = CounterArray(CounterInfo(1, "c", 4, CounterUnit.BOTH))
    assert c.count(2, 100) and c.count(2, 50)
    assert not c.count(4, 10)
    assert (c.read(2).packets, c.read(2).bytes) == (2, 150)
    c.write(0, 7, 8)
    assert c.read(0).packets == 7
    with pytest.raises(InvalidEntry):
        c.read(4)
    c.reset()
    assert c.read(2).packets == 0


def test_register_bounds_and_wrap():
    r = RegisterArray(RegisterInfo(1, "r", 2, 8))
    assert r.write(1, 0x1FF) and r.read(1) == 0xFF
    assert r.read(2) is None and not r.write(-1, 1)
    with pytest.raises(InvalidEntry):
        r.set(0, 256)
    r.set(0, 3)
    assert r.get(0) == 3


def test_meter_colors_with_fake_clock():
    now = [0]
    m = MeterArray(MeterInfo(1, "m", 2, MeterUnit.PACKETS), lambda: now[0])
    assert m.execute(0, 100) == GREEN  # unconfigured
    assert m.execute(5, 100) is None  # out of range
    # committed 1000 pkt/s burst 2, peak 2000 pkt/s burst 4
    m.set_config(0, MeterConfig(cir=1000, cburst=2, pir=2000, pburst=4))
    colors = [m.execute(0, 100) for _ in range(5)]
    assert colors == [GREEN, GREEN, YELLOW, YELLOW, RED]
    now[0] = 1000  # 1 ms later: +1 committed token, +2 peak tokens
    assert [m.execute(0, 100) for _ in range(3)] == [GREEN, YELLOW, RED]


def test_byte_meter_uses_packet_length():
    m = MeterArray(MeterInfo(1, "m", 1, MeterUnit.BYTES), lambda: 0)
    m.set_config(0, MeterConfig(cir=0, cburst=100, pir=0, pburst=250))
    assert [m.execute(0, 100) for _ in range(3)] == [GREEN, YELLOW, RED]


def test_pre_replication_order_and_clone_sessions():
    pre = Pre()
    pre.create_group(1)
    n0 = pre.create_node(5, [4, 2])
    n1 = pre.create_node(3, [1])
    assert (n0, n1) == (0, 1)
    pre.associate(1, n1)
    pre.associate(1, n0)
    assert pre.replicas(1) == [(3, 1), (5, 2), (5, 4)]
    assert pre.replicas(99) == []
    with pytest.raises(EntryExists):
        pre.associate(1, n0)
    pre.insert_group(2, [(1, 7), (2, 3), (1, 5)])
    assert pre.replicas(2) == [(1, 5), (1, 7), (2, 3)]
    with pytest.raises(InvalidEntry):
        pre.insert_group(3, [(1, 1), (1, 1)])
    pre.delete_group(2)
    with pytest.raises(EntryNotFound):
        pre.delete_group(2)
    pre.set_clone_session(CloneSession(5, egress_port=9))
    assert pre.clone_targets(5) == [(0, 9)]
    assert pre.clone_targets(5 | 0x8000) == [(0, 9)]
    assert pre.clone_targets(6) == []
    pre.insert_clone_session(CloneSession(6, replicas=((1, 2), (1, 3))))
    assert pre.clone_targets(6) == [(1, 2), (1, 3)]


def test_value_set_membership_and_size():
    info = ValueSetInfo(1, "pvs", 2, (KeyField(1, "f", MatchKind.EXACT, 16),))
    vs = ValueSet(info)
    vs.set_members([(Exact(0x800),), (Ternary(0x8600, 0xFF00),)])
    assert vs.contains((0x800,)) and vs.contains((0x86DD,)) and not vs.contains((0x801,))
    with pytest.raises(TableFull):
        vs.set_members([(Exact(1),)] * 3)


def test_digest_batching_ack_and_suppression():
    q = DigestQueue({10})
    q.push(10, (1,), 0)  # unconfigured: dropped
    q.insert_config(10, DigestConfig(max_timeout_ns=1000, max_list_size=2, ack_timeout_ns=0))
    q.push(10, (1,), 0)
    assert q.poll(10) == []  # neither full nor timed out
    q.push(10, (1,), 20)  # duplicate while buffered
    q.push(10, (2,), 30)
    [first] = q.poll(40)
    assert (first.list_id, first.messages) == (1, ((1,), (2,)))
    q.push(10, (1,), 50)  # suppressed until acked
    q.push(10, (3,), 60)
    assert q.poll(5000) == []  # waiting for the ack
    q.ack(10, 1)
    [second] = q.poll(5000)
    assert (second.list_id, second.messages) == (2, ((3,),))
    assert q.pushed[10] == 6
    with pytest.raises(InvalidEntry):
        q.insert_config(11, DigestConfig())


def test_digest_timeout_and_immediate_lists():
    q = DigestQueue({1, 2})
    q.insert_config(1, DigestConfig(max_timeout_ns=0, max_list_size=1))
    q.insert_config(2, DigestConfig(max_timeout_ns=500, max_list_size=0, ack_timeout_ns=100))
    q.push(1, (7,), 0)
    q.push(2, (8,), 0)
    q.push(2, (9,), 10)
    [now] = q.poll(10)
    assert (now.digest_id, now.messages) == (1, ((7,),))
    [late] = q.poll(500)  # no size limit: the timeout sends everything buffered
    assert (late.digest_id, late.messages) == (2, ((8,), (9,)))
    q.push(2, (8,), 550)  # suppressed: list 1 of digest 2 is not acked yet
    assert q.poll(560) == []
    assert q.poll(700) == []  # ack timeout passed: nothing buffered, nothing to send
    q.push(2, (8,), 710)  # no longer suppressed
    [again] = q.poll(1300)
    assert again.messages == ((8,),) and again.list_id == 2


def test_pre_reset_and_update_node():
    pre = Pre()
    pre.create_group(3)
    handle = pre.create_node(1, [1])
    pre.associate(3, handle)
    pre.update_node(handle, [6, 5])
    assert pre.replicas(3) == [(1, 5), (1, 6)]
    pre.dissociate(3, handle)
    assert pre.replicas(3) == []
    pre.reset()
    assert pre.groups == {} and pre.create_node(0, []) == 0
