"""Checkers that judge behaviour, not writing: each exercise's rewrites of its reference
solution (statements reordered, a condition inverted, an equivalent expression; for the
open exercise's report, its parts reordered or a figure rounded to fewer digits; the
`[[rewrite]]` entries of mutants.toml) keep full marks in every no-root check."""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

import pytest

from mrclab.exercises.catalog import ORDER, load_exercise
from mrclab.exercises.mutants import load_rewrites, mutate, run_rewrite
from mrclab.exercises.results import PASS

EXERCISES = list(ORDER)


@pytest.mark.parametrize("name", EXERCISES)
def test_every_rewrite_of_the_solution_keeps_full_marks(name, tmp_path):
    ex = load_exercise(name)
    rewrites = load_rewrites(ex)
    assert len(rewrites) >= 3, "a few rewrites per exercise"
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        reports = list(pool.map(lambda ir: run_rewrite(ex, ir[1], tmp_path / f"r{ir[0]}"),
                                enumerate(rewrites)))
    lost = [f"{rw.name}: {r.name}: {r.detail}" for rw, report in zip(rewrites, reports, strict=True)
            for r in report.results if r.status not in (PASS, "skip")]
    assert not lost, lost
    assert all(report.passed for report in reports)


def test_a_rewrite_changes_the_solution():
    for name in EXERCISES:
        ex = load_exercise(name)
        for rw in load_rewrites(ex):
            text = ex.solution_file(rw.file).read_text()
            assert mutate(text, rw) != text, (name, rw.name)
