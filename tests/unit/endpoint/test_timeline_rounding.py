"""The timeline's `round_decimal` is Python's `round`, result for result (the records are
byte-identical to those `round` made)."""

from __future__ import annotations

import math
import random
import struct

import pytest

from mrclab.endpoint.core.timeline import round_decimal


def _same(a, b) -> bool:
    """Identical results: the same type, and the same bits for floats (-0.0, NaN)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return struct.pack("<d", a) == struct.pack("<d", b)
    return a == b


def _cases() -> list[float]:
    rng = random.Random(7)
    cases = [0.0, -0.0, 1e-300, -1e-300, 5e-324, 0.5e-9, -0.5e-9, 1.5e-9, 2.5e-9, 2.675,
             0.125, 0.375, -2.5e-9, 1.0000000005, 123.4567890125, 2.0 ** 52 / 1e9,
             2.0 ** 53, 1e20, -1e20, math.inf, -math.inf, math.nan, 0.49999999999999994]
    cases += [rng.uniform(0, 1e-3) for _ in range(20000)]  # virtual times of a simulation
    cases += [rng.uniform(0, 5e4) for _ in range(20000)]  # the lab's clock, windows
    cases += [rng.uniform(-1e6, 1e6) for _ in range(5000)]
    # decimal ties and their neighbours, where the float product is least to be trusted
    for _ in range(5000):
        n = rng.randrange(1, 10 ** 12)
        for scale in (1e9, 1e2):
            tie = (n + 0.5) / scale
            cases += [tie, math.nextafter(tie, 0.0), math.nextafter(tie, math.inf), -tie]
    return cases


@pytest.mark.parametrize("digits", [9, 2, 0, 6])
def test_round_decimal_is_round(digits):
    for x in _cases():
        assert _same(round_decimal(x, digits), round(x, digits)), (x, digits)


def test_round_decimal_leaves_ints_ints():
    assert _same(round_decimal(17, 2), 17)
    assert _same(round_decimal(True, 9), round(True, 9))
