"""Classroom exercises: the catalog in mrclab/exercises/material/, student workspaces, checks and grading.

`mrclab exercise list | start | check | grade` (mrclab.exercises.cli) drives it. Exercise content
(README, skeleton, solution, checker.toml, STF files) lives in mrclab/exercises/material/NAME/; this package
holds the machinery and the Python checks those checker.toml files name.
"""
