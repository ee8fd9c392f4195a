"""`p4emu.cmdline.run_main`: the one error ladder of every command's `main`."""

from __future__ import annotations

import subprocess
import sys

import pytest

from p4emu.cmdline import UsageError, error_message, run_main


class OwnError(Exception):
    pass


def raising(exc: BaseException):
    def body() -> int:
        raise exc
    return body


def test_the_body_s_status_is_the_command_s(capsys):
    assert run_main("cmd", lambda: 7, {UsageError: 2}) == 7
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("exc, status, line", [
    (UsageError("--x: bad"), 2, "cmd: --x: bad"),
    (OwnError("the lab is gone"), 1, "cmd: the lab is gone"),
    (FileNotFoundError(2, "No such file or directory", "a.json"), 3,
     "cmd: a.json: No such file or directory"),
    (ConnectionResetError(104, "Connection reset by peer"), 3, "cmd: Connection reset by peer"),
    (KeyError("P4Info has no table t"), 4, "cmd: P4Info has no table t"),
])
def test_an_expected_error_is_one_line_and_its_status(exc, status, line, capsys):
    errors = {UsageError: 2, OwnError: 1, OSError: 3, KeyError: 4}
    assert run_main("cmd", raising(exc), errors) == status
    assert capsys.readouterr().err == line + "\n"


def test_the_first_matching_entry_wins(capsys):
    errors = {PermissionError: 2, OSError: 1}
    assert run_main("cmd", raising(PermissionError(13, "Permission denied")), errors) == 2
    assert run_main("cmd", raising(TimeoutError(110, "Timed out")), errors) == 1


def test_a_plain_error_is_printed_as_it_is(capsys):
    exc = OwnError("prog.p4:3:7: error: x: not declared")
    assert run_main("cmd", raising(exc), {OwnError: 2}, plain=(OwnError,)) == 2
    assert capsys.readouterr().err == "prog.p4:3:7: error: x: not declared\n"


def test_an_unexpected_error_goes_through():
    with pytest.raises(ZeroDivisionError):
        run_main("cmd", raising(ZeroDivisionError("bug")), {UsageError: 2})


def test_ctrl_c_is_130_with_the_line_asked_for(capsys):
    assert run_main("cmd", raising(KeyboardInterrupt()), {}) == 130
    assert capsys.readouterr().err == ""
    assert run_main("cmd", raising(KeyboardInterrupt()), {},
                    interrupted="cmd: interrupted; stopping") == 130
    assert capsys.readouterr().err == "cmd: interrupted; stopping\n"


def test_a_reader_gone_away_ends_quietly_with_the_status_asked_for():
    # a child process: the helper points the real stdout at /dev/null
    code = ("import sys\n"
            "from p4emu.cmdline import run_main\n"
            "def body():\n"
            "    print('partial output')\n"
            "    raise BrokenPipeError(32, 'Broken pipe')\n"
            "sys.exit(run_main('cmd', body, {OSError: 2}, broken_pipe=5))\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60)
    assert (proc.returncode, proc.stderr) == (5, "")


def test_without_broken_pipe_it_is_an_os_error_like_any(capsys):
    exc = BrokenPipeError(32, "Broken pipe")
    assert run_main("cmd", raising(exc), {OSError: 1}) == 1
    assert capsys.readouterr().err == "cmd: Broken pipe\n"


def test_error_message_of_an_os_error_without_reason_is_its_text():
    assert error_message(OSError("no such device")) == "no such device"
