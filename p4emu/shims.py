"""`python -m p4emu shims DIR`: BMv2's tool names, running p4emu, for harnesses written for BMv2.

Writes ``p4c-bm2-ss``, ``p4c`` (``--target bmv2 --arch v1model``), ``simple_switch_grpc``
and ``simple_switch_CLI`` into DIR. Each is a /bin/sh script that runs this interpreter
(absolute path) with this repository on PYTHONPATH, so it works from any directory:
``python -m p4emu shims --run TOOL ARGS...`` translates the tool's usual command line to
``p4emu compile`` / ``p4emu switch`` / the simple_switch_CLI front end and runs it in the
same process (a harness that signals the pid it started reaches p4emu).

Options p4emu cannot honour are accepted and ignored with a one-line note on stderr; an
unknown option is a one-line error naming it (exit status 2).
"""

from __future__ import annotations

import os
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path

from p4emu.cmdline import UsageError, run_main

# the directory holding the p4emu package, for the shims' PYTHONPATH (p4emu stands alone:
# it asks no other package where it lives)
P4EMU_PARENT = Path(__file__).resolve().parent.parent
USAGE = "usage: python -m p4emu shims DIR"
P4INFO_SUFFIXES = (".txt", ".txtpb", ".json", ".bin")  # p4c's, with p4c 1.2.4's .txtpb


class ShimError(Exception):
    """A command line the tool refuses; one line."""


@dataclass(frozen=True)
class Opt:
    names: tuple[str, ...]
    value: str = "required"  # "required", "none" or "optional" (next token unless an option)
    note: str | None = None  # set: accepted, ignored with this note


def parse_tool_args(tool: str, argv: list[str], opts: list[Opt],
                    ) -> tuple[list[tuple[str, str | None]], list[str]]:
    """([(first option name, value)], positionals); notes for ignored options on stderr."""
    table = {name: opt for opt in opts for name in opt.names}
    found: list[tuple[str, str | None]] = []
    positional: list[str] = []
    i = 0
    while i < len(argv):
        arg = argv[i]
        i += 1
        if not arg.startswith("-") or arg == "-":
            positional.append(arg)
            continue
        name, eq, inline = arg.partition("=") if arg.startswith("--") else (arg, "", "")
        opt = table.get(name)
        if opt is None and not arg.startswith("--") and len(arg) > 2:
            opt = table.get(arg[:2])  # -IDIR, -DNAME=1, -ofile
            if opt is not None and opt.value == "required":
                name, eq, inline = arg[:2], "=", arg[2:]
            else:
                opt = None
        if opt is None:
            raise ShimError(f"unknown option {name}")
        value: str | None = None
        if eq:
            if opt.value == "none":
                raise ShimError(f"option {name} takes no value")
            value = inline
        elif opt.value == "required":
            if i >= len(argv):
                raise ShimError(f"option {name} needs a value")
            value = argv[i]
            i += 1
        elif opt.value == "optional" and i < len(argv) and not argv[i].startswith("-"):
            value = argv[i]
            i += 1
        if opt.note is not None:
            print(f"{tool}: note: {name} ignored ({opt.note})", file=sys.stderr)
        else:
            found.append((opt.names[0], value))
    return found, positional


def _values(found: list[tuple[str, str | None]], name: str) -> list[str]:
    return [value or "" for key, value in found if key == name]


def _last(found: list[tuple[str, str | None]], name: str) -> str | None:
    values = _values(found, name)
    return values[-1] if values else None


# --- p4c / p4c-bm2-ss
_IGNORED_P4C = "p4emu has no such output or pass"
P4C_OPTS = [
    Opt(("-o", "--output")), Opt(("--p4runtime-files",)), Opt(("--p4runtime-file",)),
    Opt(("--p4runtime-format",)), Opt(("--p4v",)), Opt(("--std",)),
    Opt(("-I",)), Opt(("-D",)), Opt(("--arch", "-a")), Opt(("--target", "-b")),
    Opt(("-h", "--help"), "none"), Opt(("--version",), "none"),
    Opt(("--p4runtime-entries-files",), note="p4emu writes no static-entries file"),
    Opt(("--p4runtime-entries-file",), note="p4emu writes no static-entries file"),
    Opt(("-U",), note="p4emu's preprocessor takes -D only"),
    Opt(("--emit-externs",), "none", note=_IGNORED_P4C),
    Opt(("-v",), "none", note="p4emu has no verbose mode"),
    Opt(("-g",), "none", note=_IGNORED_P4C), Opt(("--ndebug",), "none", note=_IGNORED_P4C),
    Opt(("--Wdisable", "--Wwarn", "--Winfo", "--Werror"), "none",
        note="p4emu's diagnostics are fixed"),
    Opt(("--pp",), note=_IGNORED_P4C), Opt(("--toJSON",), note=_IGNORED_P4C),
    Opt(("--dump",), note=_IGNORED_P4C), Opt(("--top4",), note=_IGNORED_P4C),
    Opt(("-T",), note=_IGNORED_P4C), Opt(("--parser-inline-opt",), "none", note=_IGNORED_P4C),
]


def _check_language(found) -> None:
    p4v, std = _last(found, "--p4v"), _last(found, "--std")
    if p4v is not None and p4v not in ("16", "1.6", "1.2"):
        raise ShimError(f"--p4v {p4v}: p4emu compiles P4_16 only (--p4v 16)")
    if std is not None and std.lower().replace("_", "-") != "p4-16":
        raise ShimError(f"--std {std}: p4emu compiles P4_16 only (--std p4-16)")
    arch, target = _last(found, "--arch"), _last(found, "--target")
    if arch is not None and arch != "v1model":
        raise ShimError(f"--arch {arch}: p4emu runs v1model only")
    if target is not None and target != "bmv2":
        raise ShimError(f"--target {target}: p4emu stands in for bmv2 only")


def compile_argv(tool: str, argv: list[str]) -> list[str] | None:
    """`p4emu compile` arguments for a p4c / p4c-bm2-ss command line (None: nothing to do)."""
    found, positional = parse_tool_args(tool, argv, P4C_OPTS)
    if _values(found, "-h"):
        print(f"usage: {tool} [-o OUT] [--p4runtime-files FILE[,FILE]] [-I DIR] "
              "[-D NAME[=VALUE]] [--arch v1model] [--target bmv2] PROGRAM.p4  (p4emu shim)")
        return None
    if _values(found, "--version"):
        print(f"{tool} (p4emu shim)\nVersion p4emu: P4_16 for v1model")
        return None
    _check_language(found)
    if len(positional) != 1:
        raise ShimError("give exactly one P4 program" if not positional else
                        "more than one P4 program: " + " ".join(positional))
    source = positional[0]
    out = ["compile", source, "-D", "__TARGET_BMV2__"]  # p4c-bm2-ss defines it too
    for directory in _values(found, "-I"):
        out += ["-I", directory]
    for define in _values(found, "-D"):
        out += ["-D", define]
    files = [f for spec in _values(found, "--p4runtime-files") for f in spec.split(",") if f]
    for name in files:
        if not name.endswith(P4INFO_SUFFIXES):
            raise ShimError(f"{name}: unknown P4Runtime file kind; known suffixes are "
                            + ", ".join(P4INFO_SUFFIXES))
    if files:
        out += ["--p4runtime-files", ",".join(files)]
    single = _last(found, "--p4runtime-file")
    if single:
        fmt = _last(found, "--p4runtime-format") or "binary"  # p4c's default format
        if fmt not in ("text", "json", "binary"):
            raise ShimError(f"--p4runtime-format {fmt}: use text, json or binary")
        out += ["--p4runtime-file", single, "--p4runtime-format", fmt]
    output = _last(found, "-o")
    stem = Path(source).name.removesuffix(".p4")
    if tool == "p4c":  # the driver's -o is a directory (default: the current one)
        directory = Path(output or ".")
        directory.mkdir(parents=True, exist_ok=True)
        out += ["-o", str(directory / f"{stem}.json")]
    elif output:
        target = Path(output)
        out += ["-o", str(target / f"{stem}.json" if target.is_dir() else target)]
    return out


# --- simple_switch_grpc
_NO_NANOMSG = "p4emu has no nanomsg sockets"
_NO_TLS = "p4emu serves P4Runtime without TLS"
SWITCH_OPTS = [
    Opt(("-i", "--interface")), Opt(("--pcap",), "optional"), Opt(("--thrift-port",)),
    Opt(("--device-id",)), Opt(("--log-console",), "none"), Opt(("--log-file",)),
    Opt(("-L", "--log-level")), Opt(("--log-flush",), "none"), Opt(("--no-p4",), "none"),
    Opt(("-h", "--help"), "none"), Opt(("-v", "--version"), "none"),
    Opt(("--nanolog",), note=_NO_NANOMSG), Opt(("--notifications-addr",), note=_NO_NANOMSG),
    Opt(("--packet-in",), note=_NO_NANOMSG),
    Opt(("--debugger",), "none", note="p4emu has no BMv2 debugger"),
    Opt(("--debugger-addr",), note="p4emu has no BMv2 debugger"),
    Opt(("--dump-packet-data",), note="p4emu does not dump packet bytes in its log"),
    Opt(("--restore-state",), note="p4emu does not restore BMv2 state files"),
    Opt(("--use-files",), note="p4emu reads packets from interfaces only"),
    Opt(("--max-port-count",), note="p4emu takes ports 0..510"),
]
TARGET_OPTS = [
    Opt(("--grpc-server-addr",)), Opt(("--cpu-port",)), Opt(("--priority-queues",)),
    Opt(("--drop-port",), note="p4emu drops with mark_to_drop / egress_spec 511 only"),
    Opt(("--load-modules",), note="p4emu loads no modules"),
    Opt(("--enable-swap",), "none", note="p4emu changes pipelines over P4Runtime only"),
    Opt(("--dp-grpc-server-addr",), note="p4emu has no data-plane gRPC service"),
    Opt(("--grpc-server-ssl", "--grpc-server-with-client-auth"), "none", note=_NO_TLS),
    Opt(("--grpc-server-cacert", "--grpc-server-cert", "--grpc-server-key"), note=_NO_TLS),
]


def switch_argv(argv: list[str]) -> list[str] | None:
    """`p4emu switch` arguments for a simple_switch_grpc command line (None: nothing to do)."""
    tool = "simple_switch_grpc"
    cut = argv.index("--") if "--" in argv else len(argv)
    found, positional = parse_tool_args(tool, argv[:cut], SWITCH_OPTS)
    target, extra = parse_tool_args(tool, argv[cut + 1:], TARGET_OPTS)
    if _values(found, "-h"):
        print(f"usage: {tool} [-i PORT@IFACE]... [--device-id N] [--thrift-port N] [--log-file F]"
              " [-L LEVEL] [--pcap [DIR]] {PROGRAM.json | --no-p4} [-- --grpc-server-addr "
              "ADDR:PORT --cpu-port N --priority-queues N]  (p4emu shim)")
        return None
    if _values(found, "-v"):
        print(f"{tool} (p4emu shim)")
        return None
    if extra:
        raise ShimError(f"unexpected target argument {extra[0]}")
    if len(positional) > 1:
        raise ShimError("more than one program: " + " ".join(positional))
    out = ["switch", *positional]  # the program first: --pcap takes an optional value
    for name, value in found:
        if name == "--pcap":
            out.append(f"--pcap={value or '.'}")
        else:
            out += [name] if value is None else [name, value]
    if target:
        out.append("--")
        for name, value in target:
            out += [name, value or ""]
    return out


# --- dispatch and the scripts
def _run_compile(tool: str, argv: list[str]) -> int:
    from p4emu import compile_cmd

    args = compile_argv(tool, argv)
    return 0 if args is None else compile_cmd.main(args[1:])


def _run_switch(tool: str, argv: list[str]) -> int:
    from p4emu.switch import main as switch_main

    args = switch_argv(argv)
    return 0 if args is None else switch_main.main(args[1:])


def _run_cli(tool: str, argv: list[str]) -> int:
    from p4emu.switch import bmv2_cli

    return bmv2_cli.main(argv)


TOOLS = {"p4c-bm2-ss": _run_compile, "p4c": _run_compile,
         "simple_switch_grpc": _run_switch, "simple_switch_CLI": _run_cli}


def run_tool(tool: str, argv: list[str]) -> int:
    runner = TOOLS.get(tool)
    if runner is None:
        print(f"p4emu shims: no tool {tool!r}; tools: " + ", ".join(TOOLS), file=sys.stderr)
        return 2
    return run_main(f"{tool}: error", lambda: runner(tool, argv), {ShimError: 2, OSError: 1})


def script_text(tool: str, python: str, repo: Path) -> str:
    """The /bin/sh script that stands in for `tool`."""
    q = shlex.quote
    return ("#!/bin/sh\n"
            f"# {tool} on p4emu; written by `python -m p4emu shims`\n"
            f'PYTHONPATH={q(str(repo))}${{PYTHONPATH:+:"$PYTHONPATH"}}\n'
            "export PYTHONPATH\n"
            f'exec {q(python)} -m p4emu shims --run {q(tool)} "$@"\n')


def write_shims(directory: Path, python: str | None = None) -> list[Path]:
    """Write every shim into `directory` (created if missing); their paths."""
    python = os.path.abspath(python or sys.executable)  # not resolved: keep the venv
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for tool in TOOLS:
        path = directory / tool
        path.write_text(script_text(tool, python, P4EMU_PARENT))
        path.chmod(0o755)
        written.append(path)
    return written


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--run"] and len(argv) >= 2:
        return run_tool(argv[1], argv[2:])
    if argv[:1] in (["-h"], ["--help"]):
        print(USAGE)
        return 0
    if len(argv) != 1 or argv[0].startswith("-"):
        print(USAGE, file=sys.stderr)
        return 2
    if not sys.executable:
        print("p4emu shims: cannot tell this interpreter's path", file=sys.stderr)
        return 1
    directory = Path(argv[0]).resolve()
    return run_main("p4emu shims", lambda: _write_here(directory), {UsageError: 1})


def _write_here(directory: Path) -> int:
    try:
        write_shims(directory)
    except OSError as exc:
        raise UsageError(f"cannot write {exc.filename or directory}: "
                         f"{exc.strerror or exc}") from None
    print(f"wrote {', '.join(TOOLS)} to {directory}; put it first on PATH: "
          f"export PATH={shlex.quote(str(directory))}:$PATH")
    return 0
