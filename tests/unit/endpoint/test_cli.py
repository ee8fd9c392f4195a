"""CLI input handling: one-line errors, exit status 2, no tracebacks, no network needed."""

import pytest

from mrclab.endpoint.cli import UsageError, main, parse_size, pseudo_random_bytes
from mrclab.endpoint.core.receiver import Message
from mrclab.endpoint.runner import write_message


@pytest.mark.parametrize("text,size", [("8M", 8 << 20), ("512", 512), ("4k", 4096),
                                       ("1G", 1 << 30), ("2MiB", 2 << 20), ("3MB", 3 << 20)])
def test_parse_size(text, size):
    assert parse_size(text) == size


@pytest.mark.parametrize("text", ["", "8X", "-1", "1.5M", "M", "8 M M", "5G"])
def test_parse_size_rejects(text):
    with pytest.raises(UsageError):
        parse_size(text)


@pytest.mark.parametrize("argv,needle", [
    (["send", "--dst", "10.0.0.2", "--size", "8Q"], "bad size '8Q'"),
    (["send", "--dst", "10.0.0.2"], "--size --file"),
    (["send", "--dst", "not-an-ip", "--size", "1M"], "bad destination IPv4 address"),
    (["send", "--dst", "10.0.0.2", "--size", "1M", "--evs", "0"], "--evs must be positive"),
    (["send", "--dst", "10.0.0.2", "--size", "1M", "--timeout", "abc"], "bad --timeout"),
    (["send", "--dst", "10.0.0.2", "--size", "1M", "--route", "3,x"], "--route: route '3,x'"),
    (["send", "--dst", "10.0.0.2", "--size", "1M", "--route", "1:3,1"], "plane '1' is not"),
    (["send", "--dst", "10.0.0.2", "--size", "1M", "--route", "3,300"], "each 1..255"),
    (["send", "--dst", "10.0.0.2", "--size", "1M", "--evs", "1", "--route", "1",
      "--route", "2"], "--route: plane 0: 2 source routes but only 1 EVs"),
    (["recv", "--out", "/nonexistent-dir/x.bin"], "/nonexistent-dir"),
    (["recv", "--link-rate", "0"], "--link-rate must be positive"),
    (["frobnicate"], "invalid choice"),
])
def test_bad_input_is_one_line_exit_2(argv, needle, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert needle in err and err.count("\n") == 1 and "Traceback" not in err


def test_pseudo_random_payload_is_reproducible_and_sized():
    a = pseudo_random_bytes(3 * (1 << 20) + 7, 5)
    assert len(a) == 3 * (1 << 20) + 7 and a == pseudo_random_bytes(len(a), 5)
    assert a != pseudo_random_bytes(len(a), 6)


def test_write_message_file_and_directory(tmp_path):
    msg = Message("10.0.0.1", 0xAB, b"payload", True, "", 0.0, 1.0, 7)
    target = write_message(msg, tmp_path / "out.bin")
    assert target.read_bytes() == b"payload"
    target = write_message(msg, tmp_path)
    assert target.name == "10.0.0.1-000000ab.bin" and target.read_bytes() == b"payload"
    bad = Message("10.0.0.1", 1, b"x", False, "CRC32 mismatch", 0.0, 1.0, 1)
    assert write_message(bad, tmp_path / "bad.bin") is None
    assert not (tmp_path / "bad.bin").exists()
