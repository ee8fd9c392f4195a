"""Waiting for a condition in integration tests."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def wait_for(predicate: Callable[[], T], timeout: float, step: float = 0.2) -> T:
    """Call `predicate` every `step` seconds until it returns something true or `timeout`
    seconds pass; returns its last value (falsy on timeout), for the test to assert on."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(step)
    return predicate()


def wait_stable(read: Callable[[], T], timeout: float, quiet: float = 0.3,
                step: float = 0.1) -> tuple[T, bool]:
    """Call `read` every `step` seconds until its value stays the same for `quiet`
    seconds (a counter that stopped moving: the traffic has drained) or `timeout` seconds
    pass; returns (last value, whether it settled)."""
    deadline = time.monotonic() + timeout
    value, since = read(), time.monotonic()
    while time.monotonic() < deadline:
        time.sleep(step)
        now = read()
        if now != value:
            value, since = now, time.monotonic()
        elif time.monotonic() - since >= quiet:
            return value, True
    return value, False
