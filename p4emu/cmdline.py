"""Command-line parsing whose errors are one line, without argparse's usage dump.

Every command line of the project uses it (p4emu's tools, the endpoint, `mrclab`). It lives
in p4emu, which stands alone and imports no `mrclab` code, so that both packages share one
parser rather than each keep a copy.
"""

from __future__ import annotations

import argparse
import functools
import sys
from typing import NoReturn


class UsageError(Exception):
    """A bad command line; the message names the bad input."""


class OneLineParser(argparse.ArgumentParser):
    """An ArgumentParser that reports a bad command line in one line.

    With `error_prefix` it prints "<prefix>: <message>" and exits with status 2 (argparse's
    own status); without, it raises UsageError for the caller to report."""

    def __init__(self, *args: object, error_prefix: str | None = None, **kwargs: object):
        super().__init__(*args, **kwargs)
        self.error_prefix = error_prefix

    def error(self, message: str) -> NoReturn:
        if self.error_prefix is None:
            raise UsageError(message)
        print(f"{self.error_prefix}: {message}", file=sys.stderr)
        raise SystemExit(2)

    def add_subparsers(self, **kwargs: object) -> argparse._SubParsersAction:
        """Subcommands' parsers report their errors the same way."""
        kwargs.setdefault("parser_class",
                          functools.partial(OneLineParser, error_prefix=self.error_prefix))
        return super().add_subparsers(**kwargs)
