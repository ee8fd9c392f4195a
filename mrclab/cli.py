"""`mrclab`: one parser for the lab, the experiments and the exercises."""

from __future__ import annotations

import argparse
import sys

from mrclab.exercises import cli as exercise_cli
from mrclab.experiments import cli as experiment_cli
from mrclab.lab import cli as lab_cli
from p4emu.cmdline import OneLineParser


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(prog="mrclab", description="MRC Lab fabric runner",
                           error_prefix="mrclab")
    sub = parser.add_subparsers(dest="command", required=True)
    lab_cli.add_parsers(sub)
    experiment_cli.add_parser(sub)
    exercise_cli.add_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(sys.argv[1:] if argv is None else argv)
    if args.command in ("experiment", "sim"):  # sim: the short form of --engine sim
        return experiment_cli.main(args)
    if args.command == "sweep":
        return experiment_cli.sweep_main(args, argv)
    if args.command == "exercise":  # checks start their own labs
        return exercise_cli.run(args)
    return lab_cli.run(args)
