"""Topology spec strings → `Fabric`.

Syntax: `KIND:key=value,key=value,...`
  fattree:k=4
  leafspine:leaves=4,spines=2,hosts=2
  multiplane:planes=2,base=fattree:k=4        (`base=` must come last; it takes the rest)
Link options valid for every kind: bw=<Mbit/s>, delay=<tc time, e.g. 1ms>, loss=<percent>.
Errors are ValueError with a one-line message naming the bad input.
"""

from __future__ import annotations

import re

from mrclab.fabric.generators import DEFAULT_BASES, PortBases, fattree, leafspine
from mrclab.fabric.model import Fabric, LinkParams

LINK_KEYS = ("bw", "delay", "loss")
KIND_KEYS = {
    "fattree": ("k",),
    "leafspine": ("leaves", "spines", "hosts"),
    "multiplane": ("planes", "base"),
}
MAX_PLANES = 16
_DELAY_RE = re.compile(r"^\d+(\.\d+)?(us|ms|s)$")  # what Mininet's tc takes for delay=
_DURATION = re.compile(r"(\d+(?:\.\d+)?(?:e-?\d+)?)(ns|us|ms|s)")
_SECONDS_PER = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}


def parse_duration(text: str) -> float:
    """'1us', '500ns', '0.5ms', '2e-6s' -> seconds (a spec's delay=, the simulator's
    --delay); ValueError naming `text`."""
    m = _DURATION.fullmatch(text.strip())
    if m is None:
        raise ValueError(f"{text!r} is not a time like 1us, 500ns or 0.5ms")
    return float(m.group(1)) * _SECONDS_PER[m.group(2)]


def _split_options(kind: str, body: str) -> dict[str, str]:
    options: dict[str, str] = {}
    if not body:
        return options
    rest = body
    while rest:
        if kind == "multiplane" and rest.startswith("base="):
            options["base"] = rest[len("base="):]
            break
        item, _, rest = rest.partition(",")
        key, eq, value = item.partition("=")
        if not eq or not key or not value:
            raise ValueError(f"bad option {item!r} in topology spec (expected key=value)")
        if key in options:
            raise ValueError(f"option {key!r} given twice in topology spec")
        options[key] = value
    return options


def _int_option(options: dict[str, str], key: str, default: int | None = None) -> int:
    if key not in options:
        if default is None:
            raise ValueError(f"topology spec is missing {key}=")
        return default
    try:
        return int(options[key])
    except ValueError:
        raise ValueError(f"{key}={options[key]!r} is not an integer") from None


def _link_params(options: dict[str, str]) -> LinkParams:
    bw = delay = loss = None
    if "bw" in options:
        try:
            bw = float(options["bw"])
        except ValueError:
            raise ValueError(f"bw={options['bw']!r} is not a number (Mbit/s)") from None
        if not 0 < bw <= 1000:
            raise ValueError(f"bw={options['bw']} out of range (0, 1000] Mbit/s")
    if "delay" in options:
        delay = options["delay"]
        if not _DELAY_RE.match(delay):
            raise ValueError(f"delay={delay!r} is not a time like 1ms, 500us or 0.1s")
    if "loss" in options:
        try:
            loss = float(options["loss"])
        except ValueError:
            raise ValueError(f"loss={options['loss']!r} is not a number (percent)") from None
        if not 0 <= loss <= 100:
            raise ValueError(f"loss={options['loss']} out of range [0, 100] percent")
    return LinkParams(bw_mbps=bw, delay=delay, loss_pct=loss)


def parse_spec(spec: str, bases: PortBases = DEFAULT_BASES, planes: int = 1) -> Fabric:
    """Build the fabric a spec string describes."""
    kind, _, body = spec.strip().partition(":")
    if kind not in KIND_KEYS:
        known = ", ".join(KIND_KEYS)
        raise ValueError(f"unknown topology {kind!r} (known: {known})")
    options = _split_options(kind, body)
    allowed = set(KIND_KEYS[kind]) | (set(LINK_KEYS) if kind != "multiplane" else set())
    for key in options:
        if key not in allowed:
            raise ValueError(f"unknown option {key!r} for topology {kind}")
    if kind == "multiplane":
        if planes != 1:
            raise ValueError("multiplane specs cannot be nested")
        count = _int_option(options, "planes")
        if not 1 <= count <= MAX_PLANES:
            raise ValueError(f"planes={count} out of range 1..{MAX_PLANES}")
        if "base" not in options:
            raise ValueError("multiplane spec is missing base=<spec>")
        fabric = parse_spec(options["base"], bases, planes=count)
        fabric.spec = spec.strip()
        return fabric
    link = _link_params(options)
    if kind == "fattree":
        return fattree(_int_option(options, "k"), link, planes=planes, spec=spec.strip(),
                       bases=bases)
    return leafspine(
        _int_option(options, "leaves"),
        _int_option(options, "spines"),
        _int_option(options, "hosts", 1),
        link,
        planes=planes,
        spec=spec.strip(),
        bases=bases,
    )
