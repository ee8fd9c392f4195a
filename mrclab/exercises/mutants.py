"""Mutants of an exercise's reference solution: each breaks one step the way a student might
(a TODO left out, or a plausible wrong answer), and the no-root checks must catch it with a
hint that names the step. mrclab/exercises/material/NAME/mutants.toml lists them:

    [[mutant]]
    name = "no high-priority queue"     # unique within the exercise
    step = 4                            # the TODO it breaks; a failed check's hint names it
    file = "mrc.p4"                     # a student file of the exercise
    after = "action trim()"             # optional: look for `find` after this text
    find = "standard_metadata.priority = PRIO_HIGH;"
    replace = ""                        # what a student wrote instead

The first `find` after `after` is replaced (without `after`, `find` must occur once); a
`find` that is not there is an error, so a solution that moves on cannot leave a mutant
silently applying nowhere.

The same file lists rewrites of the solution that keep its behaviour (statements reordered,
a condition inverted, a helper inlined, an equivalent expression): each must keep full marks
in the no-root checks, so a checker that judges how the code is written rather than what it
does fails CI (tests/unit/exercises/test_rewrites.py):

    [[rewrite]]
    name = "priority set first"         # unique within the exercise
    file = "mrc.p4"
    after = "action trim()"             # optional, as for a mutant
    find = "truncate(TRIM_BYTES);"
    replace = "..."                     # the same behaviour, written otherwise
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, replace
from pathlib import Path

from mrclab.exercises.catalog import Exercise, ExerciseError
from mrclab.exercises.results import FAIL, Report
from mrclab.exercises.workspace import start

_STEPS = re.compile(r"TODOs?\s+([\d\s,/\-–and]+)")


@dataclass(frozen=True)
class Mutant:
    name: str
    step: int
    file: str
    find: str
    replace: str
    after: str = ""


@dataclass(frozen=True)
class Rewrite:
    """A rewrite of the solution that keeps its behaviour: it must keep full marks."""

    name: str
    file: str
    find: str
    replace: str
    after: str = ""


@dataclass(frozen=True)
class MutantVerdict:
    mutant: Mutant
    earned: int
    possible: int
    failed: tuple[str, ...]  # the checks it failed
    named: bool  # a failed check's hint names the mutant's step

    @property
    def caught(self) -> bool:
        return self.earned < self.possible and self.named


def steps_named(hint: str) -> set[int]:
    """The TODO numbers a hint names: 'TODO 4', 'TODOs 1-5', 'TODOs 2, 3 and 5', 'TODO 1/3'."""
    steps: set[int] = set()
    for group in _STEPS.findall(hint):
        for part in re.split(r",|/|\band\b", group):
            bounds = [int(x) for x in re.findall(r"\d+", part)]
            if len(bounds) == 2 and re.search(r"[-–]", part):
                steps.update(range(bounds[0], bounds[1] + 1))
            else:
                steps.update(bounds)
    return steps


def _load_table(exercise: Exercise) -> tuple[dict, str]:
    path = exercise.folder / "mutants.toml"
    where = f"{exercise.name}/mutants.toml"
    if not path.is_file():
        return {}, where
    try:
        return tomllib.loads(path.read_text()), where
    except tomllib.TOMLDecodeError as exc:
        raise ExerciseError(f"{where}: {exc}") from None


def _edits(exercise: Exercise, raw: list, kind: str, where: str, make) -> list:
    edits = []
    for i, m in enumerate(raw):
        try:
            edit = make(m)
        except (KeyError, TypeError, ValueError) as exc:
            raise ExerciseError(f"{where} {kind} {i + 1}: missing or bad {exc}") from None
        if edit.file not in exercise.files:
            raise ExerciseError(f"{where}: {edit.name!r} edits {edit.file}, not a student "
                                f"file ({', '.join(exercise.files)})")
        edits.append(edit)
    names = [e.name for e in edits]
    if len(set(names)) != len(names):
        raise ExerciseError(f"{where}: {kind} names must be unique")
    return edits


def load_mutants(exercise: Exercise) -> list[Mutant]:
    """The exercise's mutants ([] when it has no mutants.toml); ExerciseError when malformed."""
    raw, where = _load_table(exercise)
    return _edits(exercise, raw.get("mutant", []), "mutant", where, lambda m: Mutant(
        name=m["name"], step=int(m["step"]), file=m["file"], find=m["find"],
        replace=m["replace"], after=m.get("after", "")))


def load_rewrites(exercise: Exercise) -> list[Rewrite]:
    """The exercise's behaviour-preserving rewrites of its solution ([] when none)."""
    raw, where = _load_table(exercise)
    return _edits(exercise, raw.get("rewrite", []), "rewrite", where, lambda m: Rewrite(
        name=m["name"], file=m["file"], find=m["find"], replace=m["replace"],
        after=m.get("after", "")))


def mutate(text: str, mutant: Mutant | Rewrite) -> str:
    """`text` with the mutant's edit: the first `find` after `after`, or without `after` the
    only one; ExerciseError when there is none (or, without `after`, several)."""
    start_at = 0
    kind = type(mutant).__name__.lower()
    if mutant.after:
        start_at = text.find(mutant.after)
        if start_at < 0:
            raise ExerciseError(f"{kind} {mutant.name!r}: {mutant.after!r} not in {mutant.file}")
    head, tail = text[:start_at], text[start_at:]
    count = tail.count(mutant.find)
    if count == 0 or (count > 1 and not mutant.after):
        raise ExerciseError(f"{kind} {mutant.name!r}: {mutant.find!r} occurs {count} times in "
                            f"{mutant.file}{' after ' + repr(mutant.after) if mutant.after else ''}"
                            ", not once")
    return head + tail.replace(mutant.find, mutant.replace, 1)


def judge(mutant: Mutant, report: Report) -> MutantVerdict:
    failed = [r for r in report.results if r.status == FAIL]
    return MutantVerdict(mutant, report.earned, report.possible,
                         tuple(r.name for r in failed),
                         any(mutant.step in steps_named(r.hint) for r in failed))


def run_mutant(exercise: Exercise, mutant: Mutant, folder: Path,
               target: str = "p4emu", naming_only: bool = False) -> MutantVerdict:
    """Start the solution in `folder` (new), apply `mutant`, run the no-root checks (with
    `naming_only`, only those whose hint names the mutant's step: enough to tell whether
    it is caught, and quicker). ExerciseError when the mutant does not compile: the
    compiler, not a check, would have told the student, so such a mutant tests nothing."""
    from mrclab.exercises.runner import run_checks

    if naming_only:
        exercise = replace(exercise, checks=tuple(
            c for c in exercise.checks if mutant.step in steps_named(c.hint)))
    ws = start(exercise, folder, solution=True)
    path = ws.path(mutant.file)
    path.write_text(mutate(path.read_text(), mutant))
    return judge(mutant, run_checks(ws, target, fabric=False))


def run_rewrite(exercise: Exercise, rewrite: Rewrite, folder: Path,
                target: str = "p4emu") -> Report:
    """Start the solution in `folder` (new), apply `rewrite`, run every no-root check: the
    report must give full marks. ExerciseError when the rewrite does not compile."""
    from mrclab.exercises.runner import run_checks

    ws = start(exercise, folder, solution=True)
    path = ws.path(rewrite.file)
    path.write_text(mutate(path.read_text(), rewrite))
    return run_checks(ws, target, fabric=False)
