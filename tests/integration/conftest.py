"""Fixtures for integration tests: namespaces, veths, processes and Mininet networks that
are always torn down, whether the test passes, fails or is interrupted (pytest runs fixture
finalizers on KeyboardInterrupt too)."""

from __future__ import annotations

import itertools
import logging
import os
from collections.abc import Callable, Iterator

import pytest

from .lab import LabResources, remove_leftovers

_counter = itertools.count()
log = logging.getLogger(__name__)


@pytest.fixture(scope="session", autouse=True)
def _clean_host() -> Iterator[None]:
    if os.geteuid() == 0:
        remove_leftovers()
    yield
    if os.geteuid() == 0:
        remove_leftovers()


@pytest.fixture
def lab() -> Iterator[LabResources]:
    """Namespaces, veth pairs and processes for one test, removed afterwards."""
    resources = LabResources()
    try:
        yield resources
    finally:
        resources.cleanup()


@pytest.fixture
def unique() -> Callable[[str], str]:
    """Short unique names (interface names are limited to 15 characters)."""
    run = next(_counter)
    return lambda base: f"{base}{os.getpid() % 1000}{run}"


@pytest.fixture
def mininet_net(lab: LabResources):
    """Factory: `net = mininet_net(topo, **Mininet kwargs)` builds and starts a network;
    it is stopped when the test ends. Mininet's own `mn -c` is not used: it acts on the
    whole machine and would break other labs running beside the tests."""
    from mininet.net import Mininet

    nets: list[Mininet] = []

    def make(topo, **kwargs) -> Mininet:
        kwargs.setdefault("controller", None)
        net = Mininet(topo=topo, **kwargs)
        nets.append(net)
        net.start()
        return net

    try:
        yield make
    finally:
        for net in reversed(nets):
            try:
                net.stop()
            except Exception:  # keep tearing down the rest; the test already reports
                log.exception("stopping a Mininet network failed")
