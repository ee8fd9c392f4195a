"""Fabric benchmarks (prints figures; needs root for the bring-up part).

  bring-up: start → controller ready → all pairs reachable, for fat-tree k=4 and k=6 (p4emu)
  write throughput: table entries per second the controller writes to one p4emu switch

Usage: bench_fabric.py [--k 4 6] [--entries 2000] [--batch 500] [--skip-bringup]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from controller.p4rt_codec import Codec, P4Ids, load_p4info, pipeline_cookie  # noqa: E402
from controller.switch_session import SwitchSession  # noqa: E402
from controller.write_plan import Kind, Op, OpType  # noqa: E402
from fabric_model.generators import PortBases  # noqa: E402
from fabric_model.places import REPO_ROOT  # noqa: E402
from fabric_model.processes import stop_process_group  # noqa: E402
from lab.target import compile_program  # noqa: E402
from topologies.local_ports import port_open  # noqa: E402


def bench_bring_up(k: int, build_dir: Path) -> dict[str, float]:
    from lab.lab import Lab, LabConfig
    from topologies.reachability import ping_all_pairs

    lab = Lab(LabConfig(spec=f"fattree:k={k}", target="p4emu", build_dir=build_dir,
                        bases=PortBases(grpc=54100, thrift=13100)))
    try:
        started = time.monotonic()
        lab.start()
        ready = time.monotonic() - started
        deadline = time.monotonic() + 120
        failed = ping_all_pairs(lab.net.net, lab.fabric)
        while failed and time.monotonic() < deadline:
            failed = ping_all_pairs(lab.net.net, lab.fabric)
        reachable = time.monotonic() - started
        status = lab.ask("status")
        return {"switches": len(lab.fabric.switches), "hosts": len(lab.fabric.hosts),
                "entries": status["entries"], "controller_ready_s": status["ready_s"],
                "lab_ready_s": ready, "all_pairs_s": reachable,
                "unreachable_pairs": len(failed)}
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
    proc = subprocess.Popen(cmd, cwd=REPO_ROOT, start_new_session=True,
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
    parser.add_argument("--k", type=int, nargs="*", default=[4, 6])
    parser.add_argument("--entries", type=int, default=2000)
    parser.add_argument("--batch", type=int, default=500)
    parser.add_argument("--skip-bringup", action="store_true")
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
        for k in args.k:
            r = bench_bring_up(k, tmp_dir / f"k{k}")
            print(f"fat-tree k={k} (p4emu): {r['switches']} switches, {r['hosts']} hosts, "
                  f"{r['entries']} entries; controller ready {r['controller_ready_s']:.2f} s, "
                  f"lab ready {r['lab_ready_s']:.2f} s, all pairs reachable "
                  f"{r['all_pairs_s']:.2f} s ({r['unreachable_pairs']} unreachable)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
