"""`python -m mrclab.endpoint.accelerate build|status`: compile the endpoint's per-packet
modules with mypyc into the cache, or say which endpoint a process runs and why
(`mrclab.endpoint.compiled` has the design; `make endpoint` and scripts/setup.sh build)."""

from __future__ import annotations

import argparse
import sys

from mrclab.endpoint import compiled


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m mrclab.endpoint.accelerate",
                                 description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build", help="compile the endpoint's modules (unless built already)")
    b.add_argument("--force", action="store_true", help="build even when built")
    b.add_argument("--quiet", action="store_true", help="print nothing when up to date")
    sub.add_parser("status", help="which endpoint this process runs, and why")
    args = ap.parse_args(argv)
    if args.command == "build":
        try:
            compiled.build(force=args.force, quiet=args.quiet)
        except RuntimeError as exc:
            print(f"mrclab.endpoint.accelerate: {exc}", file=sys.stderr)
            return 1
        return 0
    try:
        import mrclab.endpoint.wire  # noqa: F401  (whichever endpoint install() chose)
    except ImportError as exc:  # MRCLAB_ENDPOINT_COMPILED=1 without a build
        print(f"mrclab.endpoint.accelerate: {exc}", file=sys.stderr)
        return 1

    kind = "compiled" if compiled.active() else "pure-Python"
    print(f"{kind} endpoint: {compiled.state()['reason']} "
          f"({compiled.ENV}={compiled.state()['choice']})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
