"""A check that crashes in a student's code names the student's file and line, not the
checker's own frames."""

from mrclab.exercises.worker import student_error


def test_the_student_s_frame_is_named_not_the_checker_s(tmp_path):
    student = tmp_path / "policy.py"
    student.write_text("def next_hops(fabric, down):\n    return fabric.nothing_here\n")
    namespace: dict = {}
    exec(compile(student.read_text(), str(student), "exec"), namespace)
    try:
        namespace["next_hops"](object(), set())
    except AttributeError as exc:
        line = student_error(exc)
    assert line.startswith("policy.py:2: AttributeError"), line


def test_frames_inside_the_project_are_passed_over():
    try:
        from mrclab.fabric.spec import parse_spec
        parse_spec("nosuchtopology:k=4")
    except Exception as exc:  # noqa: BLE001 - whatever the parser raises
        line = student_error(exc)
    # the last frame outside the project is this test's own call
    assert line.startswith("test_student_error.py:"), line
