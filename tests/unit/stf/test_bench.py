"""The benchmark's L3 scenario forwards every packet through three lookups."""

from pathlib import Path

from p4emu import bench
from p4emu.compiler import load_ir
from p4emu.frontend import compile_file
from p4emu.runtime.device import DeviceState
from p4emu.v1model.pipeline import Pipeline

BENCH_PROGRAM = Path(__file__).resolve().parents[3] / "p4emu" / "bench_l3.p4"


def _pipeline():
    program = load_ir(compile_file(str(BENCH_PROGRAM)).ir)
    state = DeviceState.from_program(program.info, clock_us=lambda: 0)
    return state, Pipeline(program, state)


def test_l3_scenario_hits_all_three_tables():
    state, pipeline = _pipeline()
    bench.install_l3(state, 300)
    packets = bench.l3_packets(300)
    seconds, out = bench.measure(pipeline.process, packets, len(packets))
    assert out == len(packets) and seconds > 0
    for name in ("ipv4_lpm", "nexthop", "smac"):
        hits = sum(e.counter.packets for e in state.resolve_table(name).entries())
        assert hits == len(packets), name
    port, data = packets[0]
    [(out_port, sent)] = pipeline.process(port, data, 0)
    # packet 0 goes to route 0 -> next hop 0 (dst MAC ..bb00, port 1); src MAC per port
    assert out_port == 1
    assert sent[0:6] == (0xBB00).to_bytes(6, "big")
    assert sent[6:12] == (0xF1).to_bytes(6, "big")
    assert sent[22] == data[22] - 1


def test_bench_cli_runs_both_scenarios(capsys):
    assert bench.main([str(BENCH_PROGRAM), "--packets", "300", "--routes", "20"]) == 0
    assert "packets/s" in capsys.readouterr().out
    stf = str(Path(__file__).resolve().parents[2] / "p4" / "bench_l3.stf")
    assert bench.main([str(BENCH_PROGRAM), "--packets", "100", "--entries", stf]) == 0
    assert "STF set-up" in capsys.readouterr().out
    assert bench.main(["/nonexistent.p4"]) == 2
