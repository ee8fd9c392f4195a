"""PNG plots (matplotlib, no display). Each function draws one figure from plain data and
returns (file name, caption) for the report."""

from __future__ import annotations

import warnings
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # headless: experiments run as root in a terminal or in CI

with warnings.catch_warnings():
    # Debian's python3-matplotlib (visible through --system-site-packages) brings its own
    # mpl_toolkits, whose 3D axes do not load with the venv's matplotlib: not used here.
    warnings.simplefilter("ignore", UserWarning)
    import matplotlib.pyplot as plt  # noqa: E402

from mrclab.experiments.metrics import cdf  # noqa: E402

COLOURS = {"ecmp": "tab:red", "ev": "tab:blue", "random": "tab:green",
           "source": "tab:purple", "trim": "tab:blue",
           "droptail": "tab:red", "1 plane": "tab:red", "all planes": "tab:blue",
           "all planes, 1 failed": "tab:orange"}


def _save(fig, path: Path, caption: str) -> tuple[str, str]:
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path.name, caption


def _finish(fig, ax, path: Path, xlabel: str, ylabel: str, title: str) -> tuple[str, str]:
    """Labels, grid and a small legend; saved."""
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    return _save(fig, path, title)


def _look(name: str, styles: dict[str, str]) -> dict:
    """A series' colour: its own, or its first word's (a mode) with a line style per the
    rest of its name ("ev link-gray", "ev straggler"), kept in `styles`."""
    if name in COLOURS:
        return {"color": COLOURS[name]}
    first, _, rest = name.partition(" ")
    if first not in COLOURS:
        return {}
    return {"color": COLOURS[first],
            "linestyle": styles.setdefault(rest, ("--", ":", "-.")[len(styles) % 3])}


def cdf_plot(path: Path, series: dict[str, list[float]], xlabel: str, title: str,
             marks: dict[str, float] | None = None,
             ylabel: str = "share of flows") -> tuple[str, str]:
    fig, ax = plt.subplots(figsize=(6.4, 4))
    styles: dict[str, str] = {}
    for name, values in series.items():
        if not values:
            continue
        points = cdf(values)
        xs = [points[0][0]] + [x for x, _ in points]
        ys = [0.0] + [p for _, p in points]
        ax.step(xs, ys, where="post", label=name, **_look(name, styles))
    for label, x in (marks or {}).items():
        ax.axvline(x, color="grey", linestyle=":", label=label)
    ax.set_xlim(0, 1.05)
    ax.set_ylim(0, 1.02)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend()
    return _save(fig, path, title)


def grouped_bars(path: Path, groups: dict[str, dict[str, float]], ylabel: str,
                 title: str) -> tuple[str, str]:
    """One bar per (category, series): `groups` maps series -> {category: value}."""
    names = list(groups)
    categories = sorted({c for g in groups.values() for c in g})
    width = 0.8 / max(1, len(names))
    fig, ax = plt.subplots(figsize=(min(11.0, max(6.4, 0.25 * len(categories) * len(names))), 4))
    for i, name in enumerate(names):
        xs = [j + (i - (len(names) - 1) / 2) * width for j in range(len(categories))]
        ax.bar(xs, [groups[name].get(c, 0.0) for c in categories], width, label=name,
               color=COLOURS.get(name))
    ax.set_xticks(range(len(categories)))
    ax.set_xticklabels(categories, rotation=45, ha="right", fontsize=8)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(axis="y", alpha=0.3)
    ax.legend()
    return _save(fig, path, title)


def timeline_plot(path: Path, series: dict[str, tuple[list[float], list[float]]],
                  ylabel: str, title: str, events: list[tuple[float, str, str]] = (),
                  ticks: dict[str, list[float]] | None = None,
                  xlabel: str = "time since start (s)") -> tuple[str, str]:
    """Lines over time; `events` are (time, label, colour) vertical lines; `ticks` are
    short marks per series (e.g. EV retirements) drawn at the bottom."""
    fig, ax = plt.subplots(figsize=(8, 4))
    for name, (xs, ys) in series.items():
        ax.plot(xs, ys, label=name, color=COLOURS.get(name), linewidth=1.2)
    for t, label, colour in events:
        ax.axvline(t, color=colour, linestyle="--", linewidth=1, label=label)
    for name, times in (ticks or {}).items():
        if times:
            ax.plot(times, [0] * len(times), "|", markersize=12,
                    color=COLOURS.get(name.split()[0]), label=name)
    return _finish(fig, ax, path, xlabel, ylabel, title)


def stacked_timelines(path: Path, panels: list[tuple[str, dict[str, tuple[list, list]]]],
                      title: str, xlabel: str = "time since start (s)") -> tuple[str, str]:
    """Several panels sharing the time axis: [(ylabel, {series: (xs, ys)})]."""
    fig, axes = plt.subplots(len(panels), 1, figsize=(8, 2.2 * len(panels)), sharex=True)
    axes = axes if len(panels) > 1 else [axes]
    for ax, (ylabel, series) in zip(axes, panels, strict=True):
        for name, (xs, ys) in series.items():
            ax.plot(xs, ys, label=name, linewidth=1)
        ax.set_ylabel(ylabel, fontsize=8)
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=7, ncol=4)
    axes[0].set_title(title)
    axes[-1].set_xlabel(xlabel)
    return _save(fig, path, title)


def errorbar_plot(path: Path, series: dict[str, tuple[list, list[float], list[float]]],
                  xlabel: str, ylabel: str, title: str) -> tuple[str, str]:
    """Means with 95 % intervals: `series` maps a name to (x values, means, half-widths);
    x values that are not numbers are drawn as categories in their order."""
    fig, ax = plt.subplots(figsize=(6.4, 4))
    categories: list = []
    for _, (xs, _, _) in series.items():
        categories += [x for x in xs if x not in categories]
    numeric = all(isinstance(x, int | float) for x in categories)
    for name, (xs, ys, errs) in series.items():
        pos = xs if numeric else [categories.index(x) for x in xs]
        ax.errorbar(pos, ys, yerr=errs, label=name, capsize=4, marker="o",
                    color=COLOURS.get(name.split()[0]))
    if not numeric:
        ax.set_xticks(range(len(categories)), [str(c) for c in categories])
    return _finish(fig, ax, path, xlabel, ylabel, title)


def iteration_plot(path: Path, series: dict[str, tuple[list[int], list[float]]],
                   marks: list[tuple[int, float, str]], ylabel: str,
                   title: str) -> tuple[str, str]:
    """A figure per iteration: one line of points per series, coloured by its first word
    (the spray mode) and dashed by the rest (the scenario); `marks` are (iteration, value,
    label) drawn as crosses (a failure in that iteration)."""
    from matplotlib.ticker import MaxNLocator

    fig, ax = plt.subplots(figsize=(9.5, 4.2))
    dashes = ("-", "--", ":", "-.", (0, (5, 1, 1, 1, 1, 1)), (0, (1, 3)))
    styles: dict[str, object] = {}
    for name, (xs, ys) in series.items():
        mode, _, rest = name.partition(" ")
        style = styles.setdefault(rest, dashes[len(styles) % len(dashes)])
        ax.plot(xs, ys, linestyle=style, marker="o", markersize=3, label=name,
                color=COLOURS.get(mode), linewidth=1.2)
    for i, (x, y, label) in enumerate(marks):
        ax.plot([x], [y], "X", color="black", markersize=9,
                label="failure / change" if i == 0 else None)
        ax.annotate(label, (x, y), textcoords="offset points", xytext=(6, 4), fontsize=6)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_ylim(bottom=0)
    ax.set_xlabel("iteration")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    return _save(fig, path, title)
