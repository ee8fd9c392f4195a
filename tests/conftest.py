"""Project-wide pytest policy: integration tests need root and Mininet, and say so when skipped."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

INTEGRATION_DIR = Path(__file__).parent / "integration"


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
