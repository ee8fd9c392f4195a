"""The checkout the tests run from: tests start the project's commands from its root."""

from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
