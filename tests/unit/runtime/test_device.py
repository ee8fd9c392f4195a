import pytest
from runtime_info_builders import ACTIONS, FWD

from p4emu.runtime.actions import ActionCall
from p4emu.runtime.device import DeviceState, DirectCounter
from p4emu.runtime.match import Exact
from p4emu.runtime.model import (
    ActionRef,
    CounterInfo,
    CounterUnit,
    KeyField,
    MatchKind,
    ProgramInfo,
    RegisterInfo,
    TableInfo,
)
from p4emu.runtime.tables import TableEntry


def program() -> ProgramInfo:
    keys = (KeyField(1, "hdr.ethernet.dstAddr", MatchKind.EXACT, 48),)
    t1 = TableInfo(10, "MyIngress.fwd_table", keys, (ActionRef(1), ActionRef(2)),
                   default_action_id=1, direct_counter="MyIngress.hits")
    t2 = TableInfo(11, "MyEgress.fwd_table", keys, (ActionRef(1),), default_action_id=1)
    return ProgramInfo(
        actions=dict(ACTIONS), tables={10: t1, 11: t2},
        counters={20: CounterInfo(20, "MyIngress.hits", 0, CounterUnit.BOTH,
                                  direct_table_id=10),
                  21: CounterInfo(21, "MyIngress.port_count", 8, CounterUnit.PACKETS)},
        registers={30: RegisterInfo(30, "MyIngress.seen", 4, 32)})


def test_collections_by_name_and_id_and_resolution():
    dev = DeviceState.from_program(program(), clock_us=lambda: 0)
    assert dev.tables[10] is dev.tables["MyIngress.fwd_table"]
    assert dev.resolve_table("MyIngress.fwd_table").info.id == 10
    with pytest.raises(KeyError, match="ambiguous"):
        dev.resolve_table("fwd_table")
    assert dev.resolve_table("MyEgress.fwd_table").info.id == 11
    with pytest.raises(KeyError):
        dev.resolve_table("nothing")
    assert dev.resolve_action("fwd") is FWD
    assert dev.resolve_action("NoAction").id == 1
    assert dev.resolve_counter("port_count").info.size == 8
    assert dev.resolve_register("seen").info.bitwidth == 32
    assert len(dev.objects("tables")) == 2


def test_direct_counter_reads_entry_cells():
    dev = DeviceState.from_program(program(), clock_us=lambda: 0)
    table = dev.tables[10]
    table.insert(TableEntry((Exact(0xAA),), action=ActionCall(2, (1,))))
    table.lookup((0xAA,), 64)
    counter = dev.counters["MyIngress.hits"]
    assert isinstance(counter, DirectCounter)
    data = counter.read(table.get((Exact(0xAA),)))
    assert (data.packets, data.bytes) == (1, 64)


def test_direct_meter_and_idle_time_through_device():
    from p4emu.runtime.meters import RED, MeterConfig
    from p4emu.runtime.model import MeterInfo, MeterUnit

    info = program()
    t1 = info.tables[10]
    info.tables[10] = TableInfo(t1.id, t1.name, t1.keys, t1.actions, default_action_id=1,
                                direct_meter="MyIngress.dm", idle_timeout=True)
    info.meters = {40: MeterInfo(40, "MyIngress.dm", 0, MeterUnit.PACKETS)}
    now = [5]
    dev = DeviceState.from_program(info, clock_us=lambda: now[0])
    table = dev.tables["MyIngress.fwd_table"]
    table.insert(TableEntry((Exact(1),), action=ActionCall(2, (1,))))
    entry = table.get((Exact(1),))
    dev.resolve_meter("dm").set_config(entry, MeterConfig(0, 0, 0, 0))
    now[0] = 42
    result = table.lookup((1,), 64)
    assert result.meter_color == RED and entry.last_hit_us == 42
