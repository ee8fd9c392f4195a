"""Skeletons made from the project's own files, so a program has one copy, not one per exercise.

A project file (mrclab/p4src/mrc.p4) marks the stretches that exercises leave to the student
with comment lines of their own, which the compiler ignores:

    // EXERCISE spray BEGIN
    ... the solution ...
    // EXERCISE spray END

The exercise's checker.toml names the file in `skeleton_from`, and its skeleton/FILE.regions
holds what the student gets instead, between the same markers: one block per region, in the
order the project file has them. Its lines outside the blocks are notes (// comments or
blank) and are not copied. The skeleton is the project file with every marker line dropped
and each of the exercise's regions replaced by its block; other exercises' regions keep the
solution. Regions do not nest. A marker that is misspelt, unbalanced or names an exercise
that is not made from the file is an ExerciseError naming the file and line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from mrclab.exercises.catalog import (
    EXERCISES_DIR,
    Exercise,
    ExerciseError,
    exercise_names,
    load_exercise,
)
from mrclab.places import IMPORT_ROOT, package_file

MARKER = re.compile(r"^[ \t]*// EXERCISE (?P<name>[\w-]+) (?P<edge>BEGIN|END)[ \t]*\r?\n?$")
# A line meant as a marker but not written as one (case, spacing, trailing words): an error,
# not a comment that silently leaves a region unmarked.
LOOKALIKE = re.compile(r"^\s*//\s*EXERCISE\s+[\w-]+\s+(BEGIN|END)\b", re.IGNORECASE)


@dataclass(frozen=True)
class Region:
    exercise: str
    line: int  # of its BEGIN marker (1-based)
    lines: tuple[str, ...]  # between the markers, each with its line end


Piece = str | Region  # a line outside every region, or a region


def parse(text: str, where: str) -> list[Piece]:
    """The lines and marked regions of `text` (shown as `where` in errors), in order."""
    pieces: list[Piece] = []
    region: Region | None = None
    body: list[str] = []
    for number, line in enumerate(text.splitlines(keepends=True), start=1):
        marker = MARKER.match(line)
        if marker is None:
            if LOOKALIKE.match(line):
                raise ExerciseError(f"{where}:{number}: malformed marker {line.strip()!r}: write "
                                    "'// EXERCISE NAME BEGIN' or '// EXERCISE NAME END' alone "
                                    "on its line")
            (body if region else pieces).append(line)
            continue
        name, edge, shown = marker["name"], marker["edge"], line.strip()
        if edge == "BEGIN":
            if region is not None:
                raise ExerciseError(f"{where}:{number}: {shown!r} inside the {region.exercise} "
                                    f"region begun at line {region.line}: regions do not nest")
            region, body = Region(name, number, ()), []
        elif region is None:
            raise ExerciseError(f"{where}:{number}: {shown!r} without a BEGIN before it")
        elif name != region.exercise:
            raise ExerciseError(f"{where}:{number}: {shown!r} ends the {region.exercise} region "
                                f"begun at line {region.line}")
        else:
            pieces.append(Region(region.exercise, region.line, tuple(body)))
            region = None
    if region is not None:
        raise ExerciseError(f"{where}:{region.line}: '// EXERCISE {region.exercise} BEGIN' has "
                            "no END")
    return pieces


def build(program: str, program_where: str, exercise: str, regions: str, regions_where: str,
          known: list[str]) -> str:
    """`program` with its markers dropped and each region of `exercise` replaced by the
    matching block of `regions`; `known`: the exercises whose skeleton is made from it."""
    pieces = parse(program, program_where)
    for piece in pieces:
        if isinstance(piece, Region) and piece.exercise not in known:
            raise ExerciseError(f"{program_where}:{piece.line}: marker names unknown exercise "
                                f"{piece.exercise!r} (made from this file: {', '.join(known)})")
    blocks = [p for p in parse(regions, regions_where) if isinstance(p, Region)]
    for block in blocks:
        if block.exercise != exercise:
            raise ExerciseError(f"{regions_where}:{block.line}: a region of exercise "
                                f"{block.exercise!r} among the {exercise} skeleton's regions")
    inside = False
    for number, line in enumerate(regions.splitlines(), start=1):
        marker = MARKER.match(line)
        if marker:
            inside = marker["edge"] == "BEGIN"
        elif not inside and line.strip() and not line.lstrip().startswith("//"):
            raise ExerciseError(f"{regions_where}:{number}: text outside the EXERCISE markers "
                                "(notes there are // comments, not copied)")
    marked = [p for p in pieces if isinstance(p, Region) and p.exercise == exercise]
    if len(marked) < len(blocks):
        raise ExerciseError(f"{regions_where}:{blocks[len(marked)].line}: region "
                            f"{len(marked) + 1} of {exercise}, but {program_where} marks "
                            f"{len(marked) or 'no'} EXERCISE {exercise} region(s)")
    if len(marked) > len(blocks):
        raise ExerciseError(f"{program_where}:{marked[len(blocks)].line}: EXERCISE {exercise} "
                            f"region {len(blocks) + 1}, but {regions_where} has "
                            f"{len(blocks) or 'no'} block(s) for it")
    replacements = iter(blocks)
    out: list[str] = []
    for piece in pieces:
        if isinstance(piece, str):
            out.append(piece)
        else:
            out.extend(next(replacements).lines if piece.exercise == exercise else piece.lines)
    return "".join(out)


def shown(path: Path) -> str:
    """`path` as errors name it: mrclab/... inside the package, else as it is."""
    try:
        return str(path.relative_to(IMPORT_ROOT))
    except ValueError:
        return str(path)


def made_from(project: str, root: Path = EXERCISES_DIR) -> list[str]:
    """The exercises (in course order) whose skeleton is made from project file `project`."""
    names = []
    for name in exercise_names(root):
        try:
            exercise = load_exercise(name, root)
        except ExerciseError:  # that exercise's own error, when it is used
            continue
        if project in dict(exercise.skeleton_from).values():
            names.append(name)
    return names


def make_skeleton(exercise: Exercise, name: str) -> str:
    """The skeleton of student file `name`, made from the project file it names in
    `skeleton_from`; ExerciseError (one line, file:line) when the markers are wrong."""
    project = exercise.skeleton_source(name)
    if project is None:
        raise ExerciseError(f"{exercise.name}: the skeleton of {name} is not made from a "
                            "project file (no `skeleton_from` for it)")
    program, regions = package_file(project), exercise.regions_file(name)
    try:
        program_text, regions_text = program.read_text(), regions.read_text()
    except OSError as exc:
        raise ExerciseError(f"{shown(Path(exc.filename or program))}: cannot read it "
                            f"({exc.strerror}); the {exercise.name} skeleton of {name} "
                            "needs it") from None
    return build(program_text, shown(program), exercise.name, regions_text, shown(regions),
                 made_from(project, exercise.folder.parent))


def skeleton_text(exercise: Exercise, name: str) -> str:
    """What `mrclab exercise start` gives the student as `name`: made, or kept in skeleton/."""
    if exercise.skeleton_source(name) is not None:
        return make_skeleton(exercise, name)
    return (exercise.skeleton / name).read_text()
