"""simple_switch_CLI's behaviour over p4emu's runtime control (the `simple_switch_CLI` shim).

Reads commands from stdin as BMv2's CLI does and prints what it prints: the intro line, a
``RuntimeCmd: `` prompt before each command's output, ``Error: ...`` for a refused
command and ``*** Unknown syntax: ...`` for an unknown one, all on stdout, exit status 0.
BMv2 commands p4emu has no runtime-control equivalent for (tables, multicast, mirroring:
use P4Runtime) get an ``Error:`` line naming the command.
"""

from __future__ import annotations

import sys

from p4emu.cmdline import OneLineParser
from p4emu.switch.runtime_cli import CliError, RuntimeClient
from p4emu.switch.runtime_control import RuntimeCommands

PROMPT = "RuntimeCmd: "
INTRO = "Control utility for runtime P4 table manipulation"

# simple_switch_CLI commands p4emu's runtime control does not have
BMV2_ONLY = frozenset({
    "act_prof_add_member_to_group", "act_prof_create_group", "act_prof_create_member",
    "counter_reset", "get_time_elapsed", "get_time_since_epoch", "load_new_config_file",
    "mc_dump", "mc_mgrp_create", "mc_mgrp_destroy", "mc_node_associate", "mc_node_create",
    "mc_node_destroy", "mc_node_dissociate", "meter_array_set_rates", "meter_get_rates",
    "meter_set_rates", "mirroring_add", "mirroring_delete", "mirroring_get", "port_add",
    "port_remove", "reset_state", "serialize_state", "set_crc16_parameters",
    "set_crc32_parameters", "show_actions", "show_tables", "swap_configs", "switch_info",
    "table_add", "table_clear", "table_delete", "table_dump", "table_dump_entry",
    "table_info", "table_modify", "table_num_entries", "table_reset_default",
    "table_set_default", "table_set_timeout", "table_show_actions", "write_config_to_file",
})


def run_line(client: RuntimeClient, line: str) -> list[str]:
    """The lines simple_switch_CLI prints for one command."""
    name = line.split()[0]
    if name in BMV2_ONLY:
        return [f"Error: {name} is not supported by p4emu's runtime control; "
                "use P4Runtime for tables, multicast and mirroring"]
    if name not in RuntimeCommands.HELP:
        return [f"*** Unknown syntax: {line}"]
    ok, output = client.run(line)
    return output if ok else [f"Error: {out}" for out in output]


def main(argv: list[str] | None = None) -> int:
    parser = OneLineParser(prog="simple_switch_CLI", add_help=True,
                           error_prefix="simple_switch_CLI: error")
    parser.add_argument("--thrift-port", type=int, default=9090)
    parser.add_argument("--thrift-ip", default="127.0.0.1")
    parser.add_argument("--json", help="ignored: p4emu reads names from the running program")
    parser.add_argument("--pre", help="ignored: p4emu has one packet replication engine")
    args = parser.parse_args(argv)
    for option in ("json", "pre"):
        if getattr(args, option) is not None:
            print(f"simple_switch_CLI: note: --{option} ignored by p4emu", file=sys.stderr)
    try:
        client = RuntimeClient(args.thrift_ip, args.thrift_port)
    except CliError as exc:
        # BMv2's wording, so harnesses that look for it see the failure
        print(f"Could not connect to thrift client on port {args.thrift_port}: {exc}")
        return 1
    print(INTRO)
    try:
        for raw in sys.stdin:
            line = raw.strip()
            print(PROMPT, end="")
            if not line or line.startswith("#"):
                continue
            if line.split()[0] in ("EOF", "quit", "exit"):
                break
            for out in run_line(client, line):
                print(out)
            sys.stdout.flush()
        else:
            print(PROMPT)  # BMv2 prints a last prompt and a newline at end of input
    except (CliError, OSError) as exc:
        print(f"Error: {exc}")
        return 1
    except KeyboardInterrupt:
        return 130
    finally:
        client.close()
    return 0
