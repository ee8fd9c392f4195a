"""`mrclab demo`: pingall, one ev-sprayed MRC transfer, a summary table."""

from __future__ import annotations

from mrclab.lab.counters import switch_counters
from mrclab.lab.lab import Lab
from mrclab.lab.transfers import TransferError, transfer


def _demo_transfer(lab: Lab, size: str) -> tuple[list[tuple[str, str]], bool]:
    """One ev-sprayed MRC transfer h1 → last host, with the packets each core carried."""
    net = lab.net.net
    src, dst = net.hosts[0], net.hosts[-1]
    cores = [n for n, sw in lab.fabric.switches.items() if sw.role in ("core", "spine")]

    def core_tx() -> dict[str, int]:
        return {c: switch_counters(lab, c).tx_packets() for c in cores}

    lab.ask("spray", mode="ev")
    before = core_tx()
    try:
        result = transfer(lab, [src.name], dst.name, size, lab.build_dir / "demo",
                          timeout=60.0)
    except (TransferError, OSError) as exc:
        return [("transfer", f"failed: {exc}")], False
    finally:
        lab.ask("spray", mode=lab.config.spray)
    received, (sent,) = result.receiver, result.senders
    spread = {c: n - before[c] for c, n in core_tx().items()}
    intact = received.stats.messages_ok == 1 and received.stats.messages_bad == 0
    return [
        (f"transfer {src.name}->{dst.name} (ev)",
         f"{size}B in {sent.completion_time_s:.2f} s, {sent.goodput_mbps:.1f} Mb/s, "
         f"{'intact' if intact else 'CORRUPT'}"),
        ("packets per core/spine", ", ".join(f"{c}={n}" for c, n in spread.items())),
    ], intact


def run_demo(lab: Lab, size: str | None) -> int:
    loss = lab.net.net.pingAll(timeout="1")
    status = lab.status()
    extra, transfer_ok = _demo_transfer(lab, size) if size else ([], True)
    rows = [
        ("topology", lab.fabric.spec),
        ("target", lab.target),
        ("switches", str(len(lab.fabric.switches))),
        ("hosts", str(len(lab.fabric.hosts))),
        ("links", str(len(lab.fabric.links))),
        ("entries installed", str(status.entries)),
        ("controller ready (s)", f"{status.ready_s:.2f}"),
        ("bring-up total (s)", f"{lab.bring_up_s:.2f}"),
        ("pingall loss (%)", f"{loss:.1f}"),
        *extra,
    ]
    width = max(len(k) for k, _ in rows)
    for key, value in rows:
        print(f"{key:<{width}}  {value}")
    return 0 if loss == 0 and transfer_ok else 1
