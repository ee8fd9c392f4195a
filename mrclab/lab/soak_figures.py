"""What the soak measures of the lab's processes: RSS and open file descriptors over time,
the growth after the warm-up, and their plot. Pure, except for reading /proc."""

from __future__ import annotations

import os
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class ProcessSample:
    role: str  # "controller", a shard's or a switch's name
    pid: int
    t: float  # seconds since the soak started
    rss_kb: int
    fds: int

    @classmethod
    def read(cls, role: str, pid: int, t: float) -> ProcessSample | None:
        """The sample of a running process; None when it is gone."""
        try:
            status = Path(f"/proc/{pid}/status").read_text()
            fds = len(os.listdir(f"/proc/{pid}/fd"))
        except OSError:
            return None
        rss = next((int(line.split()[1]) for line in status.splitlines()
                    if line.startswith("VmRSS:")), 0)
        return cls(role, pid, t, rss, fds)


def _series(samples: list[ProcessSample]) -> dict[tuple[str, int], list[ProcessSample]]:
    """One series per process lifetime (a restarted role starts a new one)."""
    out: dict[tuple[str, int], list[ProcessSample]] = defaultdict(list)
    for s in sorted(samples, key=lambda s: s.t):
        out[(s.role, s.pid)].append(s)
    return dict(out)


def growth(samples: list[ProcessSample], warmup: float) -> dict[str, dict[str, float]]:
    """Per process lifetime that outlived the warm-up: how much its RSS and fds grew from
    the first sample after the warm-up to its last, as a share of the former. Lifetimes
    shorter than that are not judged (a restarted switch starts its own warm-up)."""
    out: dict[str, dict[str, float]] = {}
    for (role, pid), series in sorted(_series(samples).items()):
        settled = [s for s in series if s.t >= series[0].t + warmup]
        if len(settled) < 2:
            continue
        first, last = settled[0], settled[-1]
        out[f"{role} (pid {pid})"] = {
            "rss": (last.rss_kb - first.rss_kb) / first.rss_kb if first.rss_kb else 0.0,
            "fds": (last.fds - first.fds) / first.fds if first.fds else 0.0,
            "minutes": round((last.t - first.t) / 60, 1)}
    return out


def plot_samples(samples: list[ProcessSample], path: Path,
                 markers: list[tuple[float, str]] = ()) -> None:
    """RSS and fds of every process over time, disturbances marked."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (rss_ax, fd_ax) = plt.subplots(2, 1, figsize=(10, 7), sharex=True)
    for (role, pid), series in sorted(_series(samples).items()):
        minutes = [s.t / 60 for s in series]
        rss_ax.plot(minutes, [s.rss_kb / 1024 for s in series], label=f"{role} ({pid})")
        fd_ax.plot(minutes, [s.fds for s in series])
    styles = {"link": ("tab:gray", ":"), "switch": ("tab:red", "--"),
              "controller": ("tab:blue", "-.")}
    for t, what in markers:
        color, style = styles.get(what, ("black", ":"))
        for ax in (rss_ax, fd_ax):
            ax.axvline(t / 60, color=color, linestyle=style, linewidth=0.7)
    rss_ax.set_ylabel("RSS (MiB)")
    fd_ax.set_ylabel("open fds")
    fd_ax.set_xlabel("minutes (dotted: link down, dashed: switch restart, dash-dot: "
                     "controller restart)")
    rss_ax.legend(fontsize=7, ncol=3)
    rss_ax.set_title("lab processes through the soak")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
