"""The `mrclab` command: the lab's subcommands (lab.cli), `experiment` (experiments.cli)
and `exercise` (coursework.cli) under one parser."""
