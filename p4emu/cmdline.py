"""Command lines whose errors are one line: argparse without its usage dump, and
`run_main`, the one way a command's `main` turns its expected errors into a line on stderr
and an exit status.

Every command line of the project uses it (p4emu's tools, the endpoint, `mrclab`). It lives
in p4emu, which stands alone and imports no `mrclab` code, so that both packages share one
parser and one error ladder rather than each keep a copy.
"""

from __future__ import annotations

import argparse
import functools
import os
import sys
from collections.abc import Callable, Mapping
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


ErrorTypes = type[BaseException] | tuple[type[BaseException], ...]  # as isinstance takes


def error_message(exc: BaseException) -> str:
    """What `exc` says: an OSError's reason after the file it names (not "[Errno 2] ..."),
    a KeyError's message unquoted, else str()."""
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror if exc.filename is None else f"{exc.filename}: {exc.strerror}"
    if isinstance(exc, KeyError) and exc.args:  # str() of a KeyError is its key's repr
        return str(exc.args[0])
    return str(exc)


def run_main(prog: str, body: Callable[[], int], errors: Mapping[ErrorTypes, int], *,
             plain: tuple[type[BaseException], ...] = (), interrupted: str | None = None,
             broken_pipe: int | None = None) -> int:
    """`body()`'s exit status; an error it raises of a type in `errors` (the first entry
    that matches) is the line "prog: message" on stderr and that entry's status.

    `plain`: types whose message is a whole line already (a compiler's "FILE:LINE:COL:
    error: ..."), printed without "prog: ". Ctrl-C is status 130, after the line
    `interrupted` when given. `broken_pipe`: the status when stdout's reader has gone
    (`| head`); None lets BrokenPipeError through to `errors`."""
    try:
        return body()
    except KeyboardInterrupt:
        if interrupted is not None:
            print(interrupted, file=sys.stderr)
        return 130
    except Exception as exc:
        if broken_pipe is not None and isinstance(exc, BrokenPipeError):
            # later writes, the interpreter's own flush at exit among them, must not fail
            # again: stdout goes nowhere from here on
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return broken_pipe
        for types, status in errors.items():
            if isinstance(exc, types):
                line = str(exc) if isinstance(exc, plain) else f"{prog}: {error_message(exc)}"
                print(line, file=sys.stderr)
                return status
        raise
