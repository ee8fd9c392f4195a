"""Simulated records without what the machine decides, for comparing two runs of the same
inputs (the native and Python fabrics, the compiled and Python endpoints)."""

from __future__ import annotations


def machine_free(value):
    """`value` without its wall-clock times and load and the rates per wall-clock second
    (of the environment only the packet-hops stay)."""
    if isinstance(value, dict):
        return {k: machine_free(v) if k != "environment" else v.get("packet_hops")
                for k, v in value.items() if k != "wall_s"}
    if isinstance(value, list):
        return [machine_free(v) for v in value]
    return value
