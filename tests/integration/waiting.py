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
