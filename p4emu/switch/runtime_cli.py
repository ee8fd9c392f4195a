"""`python -m p4emu cli --thrift-port 9090 [COMMAND...]`: talk to a switch's runtime control.

One-shot with a command on the command line; otherwise commands come from stdin, with a
prompt when stdin is a terminal.
"""

from __future__ import annotations

import argparse
import socket
import sys

from p4emu.cmdline import run_main


class CliError(Exception):
    pass


class RuntimeClient:
    def __init__(self, host: str, port: int, timeout: float = 10.0) -> None:
        try:
            self.sock = socket.create_connection((host, port), timeout=timeout)
        except OSError as exc:
            raise CliError(f"cannot connect to {host}:{port}: {exc.strerror or exc}") from None
        self.reader = self.sock.makefile("r", encoding="utf-8")

    def run(self, command: str) -> tuple[bool, list[str]]:
        """(ok, output lines) of one command."""
        self.sock.sendall(command.replace("\n", " ").encode() + b"\n")
        head = self.reader.readline()
        if not head:
            raise CliError("the switch closed the connection")
        head = head.rstrip("\n")
        if head.startswith("ERR "):
            return False, [head[4:]]
        if not head.startswith("OK "):
            raise CliError(f"unexpected answer from the switch: {head!r}")
        count = int(head[3:])
        return True, [self.reader.readline().rstrip("\n") for _ in range(count)]

    def close(self) -> None:
        self.reader.close()
        self.sock.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="p4emu cli", description=__doc__)
    parser.add_argument("--thrift-port", type=int, default=9090)
    parser.add_argument("--thrift-ip", default="127.0.0.1")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    return run_main("p4emu cli", lambda: _session(args), {(CliError, OSError): 1})


def _session(args: argparse.Namespace) -> int:
    """Run the command line's command, or stdin's; 1 when the switch refused one."""
    client = RuntimeClient(args.thrift_ip, args.thrift_port)
    status = 0
    try:
        if args.command:
            lines = [" ".join(args.command)]
        else:
            lines = None
        interactive = lines is None and sys.stdin.isatty()
        source = lines if lines is not None else sys.stdin
        if interactive:
            print("RuntimeCmd: ", end="", flush=True)
        for line in source:
            line = line.strip()
            if line and not line.startswith("#"):
                if line in ("quit", "exit", "EOF"):
                    break
                ok, output = client.run(line)
                for out in output:
                    print(out if ok else f"Error: {out}", file=sys.stdout if ok else sys.stderr)
                if not ok:
                    status = 1
            if interactive:
                print("RuntimeCmd: ", end="", flush=True)
    finally:
        client.close()
    return status
