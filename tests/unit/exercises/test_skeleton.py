"""The P4 exercises' skeletons are made from the marked regions of mrclab/p4src/mrc.p4
(mrclab/exercises/skeleton.py): the program outside them, the exercise's TODO text inside;
wrong markers are one-line errors naming the file and line. That each made skeleton compiles
and fails its checker, and the program passes it, is test_skeleton_and_solution's."""

from __future__ import annotations

import re
import shutil

import pytest

from mrclab.exercises.catalog import EXERCISES_DIR, ExerciseError, load_exercise
from mrclab.exercises.skeleton import build, made_from, make_skeleton, skeleton_text
from mrclab.exercises.workspace import start
from mrclab.places import package_file

P4_EXERCISES = ["spray", "source", "trim", "signals"]
PROGRAM = package_file("p4src/mrc.p4")


def marker_lines(name: str = r"[\w-]+") -> str:
    return rf"(?m)^[ \t]*// EXERCISE {name} (?:BEGIN|END)[ \t]*\n"


def test_the_p4_exercises_are_made_from_the_program():
    assert made_from("p4src/mrc.p4") == P4_EXERCISES
    for name in P4_EXERCISES:
        ex = load_exercise(name)
        assert ex.generated_files == ("mrc.p4",)
        assert ex.skeleton_source("mrc.p4") == "p4src/mrc.p4"
        assert ex.solution_file("mrc.p4") == PROGRAM
        assert not (ex.skeleton / "mrc.p4").exists(), "made, not kept: delete the copy"
    assert load_exercise("failover").generated_files == ()


@pytest.mark.parametrize("name", P4_EXERCISES)
def test_skeleton_is_the_program_outside_its_regions(name):
    """Split both files at this exercise's markers: the skeleton is the program's pieces
    outside its regions and the regions file's pieces inside, without any marker line."""
    ex = load_exercise(name)
    program = re.split(marker_lines(name), PROGRAM.read_text())
    todo = re.split(marker_lines(name), ex.regions_file("mrc.p4").read_text())[1::2]
    assert len(program) % 2 == 1 and len(todo) == len(program) // 2 >= 1
    program[1::2] = todo
    skeleton = make_skeleton(ex, "mrc.p4")
    assert skeleton == re.sub(marker_lines(), "", "".join(program))
    assert not re.search(marker_lines(), skeleton)
    assert f"// EXERCISE {name}." in skeleton  # what the README tells the student to find
    # only the regions differ: every line of the program outside them is in the skeleton
    outside = re.sub(marker_lines(), "", "".join(program[0::2]))
    assert all(line in skeleton for line in outside.splitlines())
    assert skeleton_text(ex, "mrc.p4") == skeleton


def test_the_program_is_its_markers_and_the_solution():
    """The markers are comment lines and nothing else: drop them and no other exercise's
    region changes what the compiler sees."""
    text = PROGRAM.read_text()
    for line in re.findall(r"(?m)^.*EXERCISE.*$", text):
        assert re.fullmatch(r"[ \t]*// EXERCISE (spray|source|trim|signals) (BEGIN|END)", line)
    assert len(re.findall(marker_lines(), text)) == 2 * len(P4_EXERCISES)


SOURCE = """control C() {
    // EXERCISE a BEGIN
    action f() { x = 1; }
    // EXERCISE a END
    // EXERCISE b BEGIN
    action g() { y = 1; }
    // EXERCISE b END
    apply { }
}
"""
REGIONS = """// notes: not copied

    // EXERCISE a BEGIN
    action f() {
        // TODO 1: x = 1
    }
    // EXERCISE a END
"""


def made(program: str = SOURCE, regions: str = REGIONS) -> str:
    return build(program, "prog.p4", "a", regions, "a/mrc.p4.regions", ["a", "b"])


def test_build_replaces_its_exercises_regions_and_drops_every_marker():
    assert made() == ("control C() {\n    action f() {\n        // TODO 1: x = 1\n    }\n"
                      "    action g() { y = 1; }\n    apply { }\n}\n")


@pytest.mark.parametrize("program, regions, message", [
    (SOURCE.replace("    // EXERCISE a BEGIN\n", "").replace("    // EXERCISE a END\n", ""),
     REGIONS, "a/mrc.p4.regions:3: region 1 of a, but prog.p4 marks no EXERCISE a region"),
    (SOURCE.replace("    // EXERCISE a END\n", ""), REGIONS,
     "prog.p4:4: '// EXERCISE b BEGIN' inside the a region begun at line 2"),
    (SOURCE.replace("    // EXERCISE b END\n", ""), REGIONS,
     "prog.p4:5: '// EXERCISE b BEGIN' has no END"),
    (SOURCE.replace("    // EXERCISE b BEGIN\n", ""), REGIONS,
     "prog.p4:6: '// EXERCISE b END' without a BEGIN before it"),
    (SOURCE.replace("EXERCISE a END", "EXERCISE b END"), REGIONS,
     "prog.p4:4: '// EXERCISE b END' ends the a region begun at line 2"),
    (SOURCE.replace("EXERCISE b", "EXERCISE sprya"), REGIONS,
     "prog.p4:5: marker names unknown exercise 'sprya' (made from this file: a, b)"),
    (SOURCE.replace("EXERCISE a BEGIN", "EXERCISE a begin"), REGIONS,
     "prog.p4:2: malformed marker '// EXERCISE a begin'"),
    (SOURCE.replace("// EXERCISE b END", "// EXERCISE b END here"), REGIONS,
     "prog.p4:7: malformed marker '// EXERCISE b END here'"),
    (SOURCE.replace("EXERCISE b", "EXERCISE a"), REGIONS,
     "prog.p4:5: EXERCISE a region 2, but a/mrc.p4.regions has 1 block(s)"),
    (SOURCE, REGIONS.replace("EXERCISE a", "EXERCISE b"),
     "a/mrc.p4.regions:3: a region of exercise 'b' among the a skeleton's regions"),
    (SOURCE, "x = 1;\n" + REGIONS, "a/mrc.p4.regions:1: text outside the EXERCISE markers"),
    (SOURCE, REGIONS.replace("    // EXERCISE a END\n", ""),
     "a/mrc.p4.regions:3: '// EXERCISE a BEGIN' has no END"),
])
def test_wrong_markers_are_one_line_naming_file_and_line(program, regions, message):
    with pytest.raises(ExerciseError) as caught:
        made(program, regions)
    assert str(caught.value).startswith(message) and "\n" not in str(caught.value)


def test_a_broken_regions_file_stops_start_before_it_writes(tmp_path):
    root = tmp_path / "material"
    for name in P4_EXERCISES:  # the program marks regions of all four
        shutil.copytree(EXERCISES_DIR / name, root / name)
    regions = root / "spray" / "skeleton" / "mrc.p4.regions"
    regions.write_text(regions.read_text().replace("// EXERCISE spray END", "// EXERCISE spray"))
    ex = load_exercise("spray", root)
    with pytest.raises(ExerciseError, match=r"^.*spray/skeleton/mrc\.p4\.regions:\d+: "
                                            r"'// EXERCISE spray BEGIN' has no END$"):
        start(ex, tmp_path / "ws")
    assert not (tmp_path / "ws").exists()
    regions.unlink()
    with pytest.raises(ExerciseError, match=r"mrc\.p4\.regions: cannot read it"):
        make_skeleton(ex, "mrc.p4")
