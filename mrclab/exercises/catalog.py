"""The exercise catalog: mrclab/exercises/material/NAME/checker.toml parsed and validated (no side effects).

checker.toml holds the title, the minutes it takes, the files a student edits (`files`,
stored in skeleton/ and solution/), project files copied beside them (`project_files`),
the P4 program the checks compile (`program`, P4 exercises only) and the checks. A file
whose reference solution *is* a project file names it in `solution_from` instead of
keeping a copy in solution/ (the P4 exercises' solution is mrclab/p4src/mrc.p4 itself), and
a skeleton file made from a project file names it in `skeleton_from` instead of keeping a
copy in skeleton/: the project file with each region it marks `// EXERCISE NAME BEGIN` ...
`// EXERCISE NAME END` replaced by the same region of skeleton/FILE.regions (see
mrclab/exercises/skeleton.py, which builds it):

    solution_from = { "mrc.p4" = "p4src/mrc.p4" }  # inside the mrclab package
    skeleton_from = { "mrc.p4" = "p4src/mrc.p4" }  # skeleton/mrc.p4.regions holds the TODOs

    [[check]]
    name = "ev mode spreads one flow"   # unique within the exercise
    kind = "stf"                        # stf | python (no root) | fabric (root + Mininet)
    stf = "checks/ev_mode.stf"          # stf: the STF file, relative to the exercise
    priority = 1                        # stf, optional: judge only that every packet it
                                        # sends out joins this egress priority queue (what
                                        # STF cannot see), not the STF expectations; or a
                                        # list, one queue per packet in the order they
                                        # reach egress ([1, 0, 1]: a packet type per queue)
    queue_depth = 5                     # stf, optional: every packet meets this egress
                                        # queue depth (STF's queues are always empty)
    run = "mrclab.exercises.x:function"       # python, fabric: the check function
    points = 2
    timeout = 120                       # seconds (python, fabric; stf: the whole STF group)
    hint = "what to look at when it fails"
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

from mrclab.places import package_file

EXERCISES_DIR = package_file("exercises/material")
KINDS = ("stf", "python", "fabric")
DEFAULT_TIMEOUT = {"stf": 180.0, "python": 120.0, "fabric": 600.0}
ORDER = ("spray", "source", "trim", "signals", "congestion", "failover", "liveness",
         "endpoint", "planes", "open")  # course order


class ExerciseError(Exception):
    """Bad input (unknown exercise, bad folder, uncompilable program); one-line message."""


@dataclass(frozen=True)
class Check:
    name: str
    kind: str
    hint: str
    points: int = 1
    timeout: float = 120.0
    stf: str | None = None
    run: str | None = None
    # stf: the egress queue every packet out must join, or one per packet, in order
    priority: int | tuple[int, ...] | None = None
    queue_depth: int = 0  # stf: the egress queue depth every packet meets


@dataclass(frozen=True)
class Exercise:
    name: str
    folder: Path
    title: str
    minutes: int
    files: tuple[str, ...]
    project_files: tuple[str, ...]
    program: str | None
    checks: tuple[Check, ...]
    solution_from: tuple[tuple[str, str], ...] = ()  # (file, project file it is)
    skeleton_from: tuple[tuple[str, str], ...] = ()  # (file, project file it is made from)

    @property
    def skeleton(self) -> Path:
        return self.folder / "skeleton"

    @property
    def generated_files(self) -> tuple[str, ...]:
        """The student files whose skeleton is made from a project file, not kept in skeleton/."""
        return tuple(name for name, _ in self.skeleton_from)

    def skeleton_source(self, name: str) -> str | None:
        """The project file (relative to the mrclab package) that student file `name`'s
        skeleton is made from; None when skeleton/`name` is kept as it is."""
        return dict(self.skeleton_from).get(name)

    def regions_file(self, name: str) -> Path:
        """What the student gets in place of the marked regions of `name`'s project file."""
        return self.skeleton / f"{name}.regions"

    def solution_file(self, name: str) -> Path:
        """The reference solution of student file `name`."""
        project = dict(self.solution_from).get(name)
        if project is not None:
            return package_file(project)
        return self.folder / "solution" / name

    def checks_of(self, kind: str) -> list[Check]:
        return [c for c in self.checks if c.kind == kind]


def _check(raw: dict, where: str) -> Check:
    kind = raw.get("kind")
    if kind not in KINDS:
        raise ExerciseError(f"{where}: kind {kind!r} is not one of {', '.join(KINDS)}")
    if not raw.get("name") or not raw.get("hint"):
        raise ExerciseError(f"{where}: every check needs a name and a hint")
    if (kind == "stf") != bool(raw.get("stf")) or (kind != "stf") != bool(raw.get("run")):
        raise ExerciseError(f"{where}: stf checks name an `stf` file, others a `run` function")
    priority = raw.get("priority")
    if isinstance(priority, list):
        priority = tuple(priority)
    queues = priority if isinstance(priority, tuple) else (priority,)
    if priority is not None and (kind != "stf" or not queues or not all(
            isinstance(q, int) and not isinstance(q, bool) and 0 <= q < 8 for q in queues)):
        raise ExerciseError(f"{where}: `priority` is an stf check's queue, 0-7, or a list "
                            "of them")
    depth = raw.get("queue_depth", 0)
    if (depth and kind != "stf") or not isinstance(depth, int) or not 0 <= depth < 1 << 19:
        raise ExerciseError(f"{where}: `queue_depth` is an stf check's depth, 0 to 2^19 - 1")
    return Check(name=raw["name"], kind=kind, hint=raw["hint"], points=int(raw.get("points", 1)),
                 timeout=float(raw.get("timeout", DEFAULT_TIMEOUT[kind])),
                 stf=raw.get("stf"), run=raw.get("run"), priority=priority, queue_depth=depth)


def parse_exercise(name: str, folder: Path, text: str) -> Exercise:
    """An Exercise from the text of its checker.toml; ExerciseError when malformed."""
    where = f"{folder.name}/checker.toml"
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ExerciseError(f"{where}: {exc}") from None
    checks = tuple(_check(c, f"{where} check {i + 1}") for i, c in enumerate(raw.get("check", [])))
    names = [c.name for c in checks]
    if not checks or len(set(names)) != len(names):
        raise ExerciseError(f"{where}: needs checks with unique names")
    files = tuple(raw.get("files", ()))
    program = raw.get("program")
    if not files or (program is not None and program not in files):
        raise ExerciseError(f"{where}: `files` must list the student's files, `program` among them")
    if checks_need_program(checks) and program is None:
        raise ExerciseError(f"{where}: stf checks need a `program`")
    solution_from = _project_files(raw, "solution_from", files, where)
    skeleton_from = _project_files(raw, "skeleton_from", files, where)
    return Exercise(name=name, folder=folder, title=raw.get("title", name),
                    minutes=int(raw.get("minutes", 60)), files=files,
                    project_files=tuple(raw.get("project_files", ())), program=program,
                    checks=checks, solution_from=solution_from, skeleton_from=skeleton_from)


def _project_files(raw: dict, key: str, files: tuple[str, ...],
                   where: str) -> tuple[tuple[str, str], ...]:
    """checker.toml's table `key`: student files (of `files`) -> project files."""
    table = raw.get(key, {})
    if not isinstance(table, dict) or not set(table) <= set(files) or \
            not all(isinstance(v, str) for v in table.values()):
        raise ExerciseError(f"{where}: `{key}` maps files of `files` to project files")
    return tuple(table.items())


def checks_need_program(checks: tuple[Check, ...]) -> bool:
    return any(c.kind == "stf" for c in checks)


def exercise_names(root: Path = EXERCISES_DIR) -> list[str]:
    """Folders of `root` that hold a checker.toml, in course order (see ORDER)."""
    found = {p.parent.name for p in root.glob("*/checker.toml")}
    return [n for n in ORDER if n in found] + sorted(found - set(ORDER))


def load_exercise(name: str, root: Path = EXERCISES_DIR) -> Exercise:
    names = exercise_names(root)
    if name not in names:
        raise ExerciseError(f"unknown exercise {name!r} (known: {', '.join(names)})")
    folder = root / name
    return parse_exercise(name, folder, (folder / "checker.toml").read_text())
