"""Project-wide pytest policy: integration tests need root and Mininet, and say so when
skipped; the fabric and MRC integration tests run on the target MRCLAB_TARGET names
(p4emu, the default, or bmv2)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.targets import INTEGRATION_TARGETS, TARGET_ENV, integration_target

INTEGRATION_DIR = Path(__file__).parent / "integration"


def pytest_configure(config: pytest.Config) -> None:
    target = integration_target()
    if target not in INTEGRATION_TARGETS:
        raise pytest.UsageError(f"{TARGET_ENV}={target!r}: use one of "
                                f"{', '.join(INTEGRATION_TARGETS)}")
    if target == "bmv2":
        from mrclab.lab.target import resolve_target

        try:
            resolve_target("bmv2")
        except ValueError as exc:
            raise pytest.UsageError(f"{TARGET_ENV}=bmv2: {exc}") from None


def pytest_report_header(config: pytest.Config) -> str:
    return f"integration target: {integration_target()} (set {TARGET_ENV}=p4emu|bmv2)"


def _integration_skip_reason() -> str | None:
    if os.geteuid() != 0:
        return "integration test needs root (Mininet and network namespaces): run `sudo make test`"
    try:
        import mininet.net  # noqa: F401
    except ImportError:
        return "integration test needs Mininet's Python module: run `sudo make setup`"
    return None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    reason = _integration_skip_reason()
    for item in items:
        if INTEGRATION_DIR in Path(item.fspath).parents:
            item.add_marker(pytest.mark.integration)
        if reason and item.get_closest_marker("integration"):
            item.add_marker(pytest.mark.skip(reason=reason))
