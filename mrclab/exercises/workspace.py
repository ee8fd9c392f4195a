"""Student workspaces: `start` copies an exercise's skeleton into a folder (making the files
the catalog says are made from a project file, see skeleton.py) and marks it; the checker
accepts only a folder so marked, for the exercise it names."""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path

from mrclab.exercises.catalog import Exercise, ExerciseError
from mrclab.exercises.skeleton import make_skeleton
from mrclab.places import package_file

MARKER = ".mrclab-exercise"


@dataclass(frozen=True)
class Workspace:
    exercise: Exercise
    folder: Path

    def path(self, name: str) -> Path:
        return self.folder / name

    @property
    def program(self) -> Path | None:
        return self.folder / self.exercise.program if self.exercise.program else None


def start(exercise: Exercise, folder: Path, solution: bool = False) -> Workspace:
    """Copy the skeleton (or, for instructors, the solution) and the project files it needs
    into `folder`; refuses to overwrite a student's edited files."""
    existing = [f for f in exercise.files if (folder / f).exists()]
    if existing:
        raise ExerciseError(f"{folder} already holds {', '.join(existing)}: choose another --dir")
    made = {} if solution else {name: make_skeleton(exercise, name)
                                for name in exercise.generated_files}  # errors before writing
    folder.mkdir(parents=True, exist_ok=True)
    for name in exercise.files:
        if name in made:
            (folder / name).write_text(made[name])
        else:
            source = exercise.solution_file(name) if solution else exercise.skeleton / name
            shutil.copyfile(source, folder / name)
    solved = exercise.folder / "solution"
    if solution and solved.is_dir():  # an open experiment's reference holds its results too
        for extra in sorted(p for p in solved.iterdir() if p.is_dir()):
            shutil.copytree(extra, folder / extra.name)
    for rel in exercise.project_files:
        shutil.copyfile(package_file(rel), folder / Path(rel).name)
    (folder / MARKER).write_text(json.dumps({"exercise": exercise.name,
                                             "solution": solution}) + "\n")
    return Workspace(exercise, folder)


def open_workspace(exercise: Exercise, folder: Path) -> Workspace:
    """The started workspace in `folder`; ExerciseError when it is not one for `exercise`."""
    started = f"start it with: mrclab exercise start {exercise.name} --dir {folder}"
    if not folder.is_dir():
        raise ExerciseError(f"{folder} is not a folder; {started}")
    try:
        marker = json.loads((folder / MARKER).read_text())
    except (OSError, ValueError):
        raise ExerciseError(f"{folder} is not a started exercise; {started}") from None
    if not isinstance(marker, dict) or marker.get("exercise") != exercise.name:
        other = marker.get("exercise") if isinstance(marker, dict) else None
        raise ExerciseError(f"{folder} holds exercise {other!r}, not {exercise.name!r}")
    missing = [f for f in exercise.files if not (folder / f).is_file()]
    if missing:
        raise ExerciseError(f"{folder} lacks {', '.join(missing)}; {started} (in a new folder)")
    return Workspace(exercise, folder)
