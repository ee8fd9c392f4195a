"""`python -m p4emu SUBCOMMAND ...`: the pure-Python v1model target."""

from __future__ import annotations

import importlib
import sys

# subcommand -> module whose main(argv) -> int implements it
SUBCOMMANDS = {
    "compile": "p4emu.compile_cmd",
    "stf": "p4emu.stf.cli",
    "bench": "p4emu.bench",
    "switch": "p4emu.switch.main",
    "fabric": "p4emu.switch.fabric_main",
    "cli": "p4emu.switch.runtime_cli",
    "shims": "p4emu.shims",
}

USAGE = "usage: python -m p4emu {" + "|".join(SUBCOMMANDS) + "} ..."


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] in ("-h", "--help"):
        print(USAGE)
        return 0 if argv else 2
    module = SUBCOMMANDS.get(argv[0])
    if module is None:
        print(f"p4emu: unknown subcommand {argv[0]!r}; {USAGE}", file=sys.stderr)
        return 2
    return importlib.import_module(module).main(argv[1:])


if __name__ == "__main__":
    sys.exit(main())
