"""Classroom exercises: the catalog in exercises/, student workspaces, checks and grading.

`mrclab exercise list | start | check | grade` (coursework.cli) drives it. Exercise content
(README, skeleton, solution, checker.toml, STF files) lives in exercises/NAME/; this package
holds the machinery and the Python checks those checker.toml files name.
"""
