"""The `mrclab` command: the lab's subcommands (mrclab.lab.cli), `experiment` (mrclab.experiments.cli)
and `exercise` (mrclab.exercises.cli) under one parser."""
