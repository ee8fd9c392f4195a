"""Fabric benchmarks (prints figures; needs root for the bring-up part).

  bring-up: start → controller ready → all pairs reachable, for fat-tree k=4, 6 and 8 (p4emu),
    switches in one process per core (shards) and in one process each
  k=4 switch CPU: idle, and per packet-hop under a cross-pod load
  write throughput: table entries per second the controller writes to one p4emu switch

Usage: bench_fabric.py [--k 4 6 8] [--layouts shards,per-switch] [--load 5 100] [--entries 2000]
                       [--batch 500] [--skip-bringup] [--profile DIR]
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import hop_profile  # noqa: E402  (scripts/, beside this file)

from mrclab.controller.p4rt_codec import Codec, P4Ids, load_p4info, pipeline_cookie  # noqa: E402
from mrclab.controller.switch_session import SwitchSession  # noqa: E402
from mrclab.controller.write_plan import Kind, Op, OpType  # noqa: E402
from mrclab.fabric.generators import PortBases  # noqa: E402
from mrclab.lab.target import compile_program  # noqa: E402
from mrclab.mininet.local_ports import port_open  # noqa: E402
from mrclab.processes import stop_process_group  # noqa: E402


def cpu_s(pids: list[int]) -> float:
    """CPU seconds (user + system, all threads) the processes `pids` have used."""
    import psutil

    total = 0.0
    for pid in pids:
        try:
            t = psutil.Process(pid).cpu_times()
        except psutil.Error:
            continue
        total += t.user + t.system
    return total


def switch_cpu_s(lab) -> float:
    return cpu_s(switch_pids(lab))


def controller_cpu_s(lab) -> float:
    return cpu_s([lab.controller.pid] if lab.controller is not None else [])


def switch_rx_packets(lab) -> int:
    """Frames the kernel delivered to switch ports: one per packet-hop."""
    total = 0
    for sw in lab.fabric.switches.values():
        for port in sw.ports:
            path = Path("/sys/class/net") / sw.interface(port) / "statistics" / "rx_packets"
            total += int(path.read_text())
    return total


def switch_pids(lab) -> list[int]:
    return sorted({p.pid for p in [*(sh.process for sh in lab.net.shards),
                                   *(sw.process for sw in lab.net.net.switches)] if p})


def measure_load(lab, seconds: float, rate_pps: float,
                 profile: Path | None = None) -> dict[str, float]:
    """Idle switch CPU over `seconds`, then CPU per packet-hop while half the hosts
    blast `rate_pps` MRC packets each across pods (5 hops) to the other half; with
    `profile`, py-spy samples every switch process meanwhile (`hop_profile`)."""
    hosts = sorted(lab.fabric.hosts.values(), key=lambda h: h.index)
    half = len(hosts) // 2
    cpu0, controller0 = switch_cpu_s(lab), controller_cpu_s(lab)
    time.sleep(seconds)
    idle = (switch_cpu_s(lab) - cpu0) / seconds
    controller_idle = (controller_cpu_s(lab) - controller0) / seconds
    warm_up = 3.0  # Scapy's start in each sender: not part of the steady state
    count = int(rate_pps * (seconds + 2 * warm_up))
    senders = [lab.net.net.get(src.name).popen(
        [sys.executable, "-m", "mrclab.endpoint", "blast", "--dst", dst.nics[0].ip, "--count",
         str(count), "--rate", str(rate_pps), "--payload", "1000"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for src, dst in zip(hosts[:half], hosts[half:], strict=False)]
    time.sleep(warm_up)
    spies = []
    if profile is not None:
        profile.mkdir(parents=True, exist_ok=True)
        spies = [hop_profile.record(pid, seconds, profile / f"switch-{pid}.txt")
                 for pid in switch_pids(lab)]
    cpu0, rx0, t0 = switch_cpu_s(lab), switch_rx_packets(lab), time.monotonic()
    time.sleep(seconds)
    cpu, hops, wall = (switch_cpu_s(lab) - cpu0, switch_rx_packets(lab) - rx0,
                       time.monotonic() - t0)
    for spy in spies:  # py-spy can take long to attach to a busy process, and to let go
        try:
            spy.wait(timeout=seconds)
        except subprocess.TimeoutExpired:
            spy.send_signal(signal.SIGINT)  # it writes what it has
            spy.wait(timeout=30)
    for proc in senders:
        proc.wait(timeout=seconds * 4 + 30)
    return {"idle_cores": idle, "controller_idle_cores": controller_idle, "hops": hops, "hops_per_s": hops / wall,
            "cpu_per_hop_us": cpu / max(hops, 1) * 1e6,
            "cpu_per_hop_above_idle_us": max(cpu - idle * wall, 0.0) / max(hops, 1) * 1e6}


def bench_bring_up(k: int, build_dir: Path, switch_processes: int | None,
                   load: tuple[float, float] | None,
                   profile: Path | None = None) -> dict[str, float]:
    from mrclab.lab.lab import Lab, LabConfig
    from mrclab.mininet.reachability import ping_all_pairs

    lab = Lab(LabConfig(spec=f"fattree:k={k}", target="p4emu", build_dir=build_dir,
                        bases=PortBases(grpc=54100, thrift=13100),
                        switch_processes=switch_processes))
    try:
        started = time.monotonic()
        lab.start()
        ready = time.monotonic() - started
        deadline = time.monotonic() + 120
        failed = ping_all_pairs(lab.net.net, lab.fabric)
        while failed and time.monotonic() < deadline:
            failed = ping_all_pairs(lab.net.net, lab.fabric)
        reachable = time.monotonic() - started
        status = lab.status()
        result = {"switches": len(lab.fabric.switches), "hosts": len(lab.fabric.hosts),
                  "processes": len(lab.net.shards) or len(lab.fabric.switches),
                  "entries": status.entries, "controller_ready_s": status.ready_s,
                  "lab_ready_s": ready, "all_pairs_s": reachable,
                  "unreachable_pairs": len(failed), "unprogrammed": len(lab.unprogrammed),
                  "phases": {**lab.bring_up_phases, "pingall_s": reachable - ready}}
        if load is not None:
            result.update(measure_load(lab, *load, profile=profile))
        return result
    finally:
        lab.stop()


def bench_writes(entries: int, batch: int, build_dir: Path) -> dict[str, float]:
    program = compile_program("p4emu", build_dir)
    p4info = load_p4info(program.p4info)
    config = program.device_config.read_bytes()
    codec = Codec(P4Ids(p4info))
    grpc_port = 54090
    log_file = build_dir / "bench_switch.log"
    cmd = [sys.executable, "-m", "p4emu", "switch", "--device-id", "1", "--no-p4",
           "--thrift-port", "13090", "--log-file", str(log_file), "--",
           "--grpc-server-addr", f"127.0.0.1:{grpc_port}", "--cpu-port", "255"]
    proc = subprocess.Popen(cmd, start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    session = SwitchSession("bench", 1, f"127.0.0.1:{grpc_port}", 1,
                            lambda s: None, lambda s: None, lambda *a: None)
    try:
        deadline = time.monotonic() + 20
        while not port_open(grpc_port) and time.monotonic() < deadline:
            time.sleep(0.1)
        session.start()
        if not session.primary.wait(20):
            raise RuntimeError("switch did not accept the session")
        started = time.monotonic()
        session.set_pipeline(p4info, config, pipeline_cookie(p4info, config))
        push_s = time.monotonic() - started
        ops = [Op(OpType.INSERT, Kind.DOWNLINK, ((10 << 24) + i, 32), 1 + i % 4)
               for i in range(entries)]
        started = time.monotonic()
        for i in range(0, entries, batch):
            errors = session.write([codec.update(op) for op in ops[i:i + batch]])
            if errors:
                raise RuntimeError(f"write failed: {errors[0]}")
        write_s = time.monotonic() - started
        started = time.monotonic()
        read_back = len(session.read(codec.read_request_entities()))
        read_s = time.monotonic() - started
        return {"pipeline_push_s": push_s, "entries": entries, "batch": batch,
                "write_s": write_s, "writes_per_s": entries / write_s,
                "read_back_entries": read_back, "read_s": read_s}
    finally:
        session.stop()
        stop_process_group(proc)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--k", type=int, nargs="*", default=[4, 6, 8])
    parser.add_argument("--layouts", default="shards,per-switch",
                        help="switch process layouts to compare: shards (one p4emu process "
                             "per core), per-switch, or a number of processes")
    parser.add_argument("--load", type=float, nargs=2, default=[5.0, 100.0],
                        metavar=("SECONDS", "PPS"),
                        help="k=4: idle CPU, then CPU per packet-hop with half the hosts "
                             "sending PPS each across pods (default 5 s, 100)")
    parser.add_argument("--entries", type=int, default=2000)
    parser.add_argument("--batch", type=int, default=500)
    parser.add_argument("--skip-bringup", action="store_true")
    parser.add_argument("--profile", type=Path, metavar="DIR",
                        help="k=4 under load: py-spy samples of the switch processes into "
                             "DIR/LAYOUT, and where a packet-hop's CPU goes (needs py-spy)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench_fabric_") as tmp:
        tmp_dir = Path(tmp)
        writes = bench_writes(args.entries, args.batch, tmp_dir)
        print(f"controller writes (p4emu, one switch): {writes['entries']} entries in batches "
              f"of {writes['batch']}: {writes['write_s']:.2f} s = "
              f"{writes['writes_per_s']:.0f} entries/s; pipeline push "
              f"{writes['pipeline_push_s']:.2f} s; read back {writes['read_back_entries']} "
              f"entities in {writes['read_s']:.2f} s")
        if args.skip_bringup:
            return 0
        if os.geteuid() != 0:
            print("bench_fabric: bring-up needs root (Mininet); use --skip-bringup",
                  file=sys.stderr)
            return 2
        layouts = {"shards": None, "per-switch": 0}
        for k in args.k:
            for name in args.layouts.split(","):
                processes = layouts[name] if name in layouts else int(name)
                profile = args.profile / name if args.profile and k == 4 else None
                r = bench_bring_up(k, tmp_dir / f"k{k}-{name}", processes,
                                   tuple(args.load) if k == 4 else None, profile)
                line = (f"fat-tree k={k} (p4emu, {name}: {r['processes']} switch processes):"
                        f" {r['switches']} switches, {r['hosts']} hosts, {r['entries']} "
                        f"entries; controller ready {r['controller_ready_s']:.2f} s, lab "
                        f"ready {r['lab_ready_s']:.2f} s ({r['unprogrammed']} switches "
                        f"unprogrammed), all pairs reachable {r['all_pairs_s']:.2f} s "
                        f"({r['unreachable_pairs']} unreachable)")
                line += "; " + ", ".join(f"{name[:-2]} {s:.2f} s"
                                         for name, s in r["phases"].items())
                if "hops" in r:
                    line += (f"; idle: switches {r['idle_cores']:.2f} cores, controller "
                             f"{r['controller_idle_cores']:.2f}; under load "
                             f"{r['hops_per_s']:.0f} packet-hops/s, switch CPU "
                             f"{r['cpu_per_hop_us']:.0f} us per hop "
                             f"({r['cpu_per_hop_above_idle_us']:.0f} above idle)")
                print(line, flush=True)
                if profile is not None and "hops" in r:
                    counts = hop_profile.tally(sorted(profile.glob("switch-*.txt")))
                    print("\n".join(hop_profile.report(counts, r["cpu_per_hop_us"])),
                          flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
