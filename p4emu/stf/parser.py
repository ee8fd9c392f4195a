"""Parse STF text into commands (pure; no program knowledge needed)."""

from __future__ import annotations

import ipaddress
import re

from p4emu.stf.commands import (
    ActionSpec,
    Add,
    CheckCounter,
    CliCommand,
    Command,
    Expect,
    IndirectAdd,
    NoPacket,
    Packet,
    Remove,
    SetDefault,
    Wait,
)


class StfError(Exception):
    """A bad STF line; str() is ``file:line: error: message``."""

    def __init__(self, filename: str, line: int, message: str) -> None:
        super().__init__(f"{filename}:{line}: error: {message}")
        self.filename = filename
        self.line = line
        self.message = message


class _LineError(Exception):
    pass


_NUMBER = re.compile(r"0[xX][0-9a-fA-F_]+|0[bB][01_]+|0[oO][0-7_]+|[0-9]+")
_ACTION = re.compile(r"(?P<name>[^\s()]+)\s*\((?P<args>[^()]*)\)\s*$")
_ENTRY_ID = re.compile(r"\)\s*=\s*(?P<id>\$?[A-Za-z_][\w]*)\s*$")
_CHECK = re.compile(r"(?P<name>[^\s(]+)\s*\(\s*(?P<index>[^()\s]+)\s*\)\s*"
                    r"(?:(?P<kind>packets|bytes)\s*(?P<op>==|!=|<=|>=|<|>)\s*(?P<value>\S+))?$",
                    re.IGNORECASE)
_PORT = re.compile(r"[0-9]+")

# simple_switch_CLI pass-through commands: name -> (min args, max args; None = unbounded)
CLI_ARITY: dict[str, tuple[int, int | None]] = {
    "mirroring_add": (2, 2),
    "mirroring_add_mc": (2, 2),
    "mirroring_delete": (1, 1),
    "mirroring_get": (1, 1),
    "mc_mgrp_create": (1, 1),
    "mc_node_create": (1, None),
    "mc_node_update": (1, None),
    "mc_node_associate": (2, 2),
    "counter_read": (2, 2),
    "counter_write": (4, 4),
    "register_read": (2, 2),
    "register_write": (3, 3),
    "register_reset": (1, 1),
    "meter_get_rates": (2, 2),
    "meter_set_rates": (2, None),
    "meter_array_set_rates": (1, None),
    # p4emu extensions (BMv2 CLI action-profile commands; handles count from 0)
    "act_prof_create_member": (2, None),
    "act_prof_create_group": (1, 1),
    "act_prof_add_member_to_group": (3, 3),
}


def parse_int(text: str) -> int:
    """A 0x / 0b / 0o / decimal number; raises ValueError otherwise."""
    if not _NUMBER.fullmatch(text):
        raise ValueError(f"bad number {text!r}")
    return int(text.replace("_", ""), 0) if text[:2].lower() in ("0x", "0b", "0o") \
        else int(text, 10)


class AddressInt(int):
    """A value written as an address: simple_switch_CLI (which p4c's BMv2 STF driver hands
    `add`/`setdefault` values to verbatim, bmv2 tools/runtime_CLI.py parse_param) reads
    a.b.c.d only for 32-bit, aa:bb:cc:dd:ee:ff only for 48-bit and IPv6 only for 128-bit
    fields; `width` is that field width, checked once the field is known."""

    width: int

    def __new__(cls, value: int, width: int) -> AddressInt:
        obj = super().__new__(cls, value)
        obj.width = width
        return obj


def parse_value(text: str) -> int:
    """An action argument / exact or lpm key value: a number or an address notation."""
    if "." in text and ":" not in text:
        parts = text.split(".")
        if len(parts) == 4 and all(p.isdigit() and int(p) < 256 for p in parts):
            return AddressInt(int.from_bytes(bytes(int(p) for p in parts), "big"), 32)
        raise ValueError(f"bad IPv4 address {text!r}")
    if ":" in text:
        parts = text.split(":")
        if len(parts) == 6 and all(re.fullmatch(r"[0-9a-fA-F]{1,2}", p) for p in parts):
            return AddressInt(int.from_bytes(bytes(int(p, 16) for p in parts), "big"), 48)
        try:
            return AddressInt(int(ipaddress.IPv6Address(text)), 128)
        except ValueError:
            raise ValueError(f"bad MAC or IPv6 address {text!r}") from None
    return parse_int(text)


def check_width(value: int, width: int, what: str) -> None:
    """Raise ValueError when `value` is an address notation the field width does not take."""
    if isinstance(value, AddressInt) and value.width != width:
        kind = {32: "an IPv4", 48: "a MAC", 128: "an IPv6"}[value.width]
        raise ValueError(f"{what}: {kind} address needs a {value.width}-bit field, not {width}-bit")


def _number(text: str, what: str) -> int:
    try:
        return parse_int(text)
    except ValueError:
        raise _LineError(f"bad {what} {text!r}") from None


def _port(text: str) -> int:
    if not _PORT.fullmatch(text):
        raise _LineError(f"bad port {text!r}")
    return int(text)


def _action(text: str) -> ActionSpec:
    m = _ACTION.match(text.strip())
    if not m:
        raise _LineError(f"expected an action call name(arg:value, ...), got {text.strip()!r}")
    args: list[tuple[str, int]] = []
    body = m.group("args").strip()
    if body:
        for part in body.split(","):
            name, sep, value = part.partition(":")
            if not sep or not name.strip() or not value.strip():
                raise _LineError(f"bad action argument {part.strip()!r}")
            try:
                args.append((name.strip(), parse_value(value.strip())))
            except ValueError:
                raise _LineError(f"bad action argument {value.strip()!r}") from None
    return ActionSpec(m.group("name"), tuple(args))


def parse_action(text: str) -> ActionSpec:
    """`name(arg:value, ...)`; raises ValueError when malformed."""
    try:
        return _action(text)
    except _LineError as exc:
        raise ValueError(str(exc)) from None


def _keys(words: list[str]) -> tuple[tuple[str, str], ...]:
    keys = []
    for word in words:
        name, sep, value = word.partition(":")
        if not sep or not name or not value:
            raise _LineError(f"bad key {word!r}: expected name:value")
        keys.append((name, value))
    return tuple(keys)


def _table_prio_keys(text: str) -> tuple[str, int | None, tuple[tuple[str, str], ...]]:
    # spaces around ':' are allowed by p4c's tokenizer
    words = re.sub(r"\s*:\s*", ":", text.strip()).split()
    if not words:
        raise _LineError("missing table name")
    table, rest = words[0], words[1:]
    priority = None
    if rest and rest[0].isdigit():
        priority = int(rest[0])
        rest = rest[1:]
    return table, priority, _keys(rest)


_ADD = re.compile(r"(?P<head>\S.*?)\s+(?P<action>[^\s()]+\s*\([^()]*\))\s*$")


def _parse_add(rest: str) -> Add:
    entry_id = None
    m = _ENTRY_ID.search(rest)
    if m:
        entry_id = m.group("id").lstrip("$")
        rest = rest[:m.start() + 1]
    m = _ADD.match(rest)
    if not m:
        raise _LineError("expected add <table> [priority] key:value ... action(arg:value, ...)")
    table, priority, keys = _table_prio_keys(m.group("head"))
    return Add(0, table, priority, keys, _action(m.group("action")), entry_id)


def _parse_indirect(rest: str, is_group: bool) -> IndirectAdd:
    entry_id = None
    m = re.search(r"=\s*(?P<id>\$?[A-Za-z_]\w*)\s*$", rest)
    if m and "=>" not in rest[m.start() - 1:m.start() + 1]:
        entry_id = m.group("id").lstrip("$")
        rest = rest[:m.start()]
    head, sep, handle = rest.partition("=>")
    if not sep:
        raise _LineError("expected '=> <handle>'")
    table, priority, keys = _table_prio_keys(head)
    return IndirectAdd(0, table, priority, keys, _number(handle.strip(), "handle"), is_group,
                       entry_id)


def _parse_expect(rest: str) -> Expect:
    words = rest.split()
    if not words:
        raise _LineError("expect needs a port")
    port = _port(words[0])
    data = "".join(words[1:]).upper()
    exact = data.endswith("$")
    if exact:
        data = data[:-1]
    if not re.fullmatch(r"[0-9A-F*]*", data):
        raise _LineError(f"bad expected data {data!r}: hex digits and '*' only")
    if not data:
        if exact:
            raise _LineError("'$' needs expected data before it")
        return Expect(0, port, None)
    return Expect(0, port, data, exact)


def _parse_packet(rest: str) -> Packet:
    words = rest.split()
    if len(words) < 2:
        raise _LineError("packet needs a port and data")
    data = "".join(words[1:])
    if not re.fullmatch(r"[0-9a-fA-F]*", data) or len(data) % 2:
        raise _LineError(f"bad packet data {data!r}: an even number of hex digits")
    return Packet(0, _port(words[0]), bytes.fromhex(data))


def _parse_check_counter(rest: str) -> CheckCounter:
    m = _CHECK.match(rest.strip())
    if not m:
        raise _LineError("expected check_counter name(index) [packets|bytes <op> value]")
    index_text = m.group("index")
    index = entry_id = None
    if _NUMBER.fullmatch(index_text):
        index = parse_int(index_text)
    else:
        entry_id = index_text.lstrip("$")
    kind = m.group("kind").lower() if m.group("kind") else None
    value = _number(m.group("value"), "counter value") if kind else 0
    return CheckCounter(0, m.group("name"), index, entry_id, kind, m.group("op") or "==",
                        value)


def parse_line(text: str) -> Command | None:
    """One STF line (comment already removed) -> command, or None for a blank line."""
    text = text.strip()
    if not text:
        return None
    word, _, rest = text.partition(" ")
    cmd = word.lower()
    rest = rest.strip()
    if cmd == "add":
        return _parse_add(rest)
    if cmd in ("table_indirect_add", "table_indirect_add_with_group"):
        return _parse_indirect(rest, cmd.endswith("group"))
    if cmd == "setdefault":
        table, _, action = rest.partition(" ")
        if not table or not action.strip():
            raise _LineError("setdefault needs a table and an action call")
        return SetDefault(0, table, _action(action))
    if cmd == "packet":
        return _parse_packet(rest)
    if cmd == "expect":
        return _parse_expect(rest)
    if cmd == "no_packet":
        return NoPacket(0)
    if cmd == "wait":
        return Wait(0)
    if cmd == "check_counter":
        return _parse_check_counter(rest)
    if cmd == "remove":
        if not rest:
            raise _LineError("remove needs 'all' or an entry id")
        return Remove(0, None if rest.lower() == "all" else rest.lstrip("$"))
    if cmd in CLI_ARITY:
        low, high = CLI_ARITY[cmd]
        args = tuple(rest.split())
        if cmd == "act_prof_create_member":
            # keep the action call in one piece: profile, then name(args)
            profile, _, call = rest.partition(" ")
            args = (profile, call.strip()) if call.strip() else (profile,)
        if len(args) < low or (high is not None and len(args) > high):
            raise _LineError(f"{cmd}: wrong number of arguments ({len(args)})")
        return CliCommand(0, cmd, args)
    raise _LineError(f"unknown command {word!r}")


def parse_stf(text: str, filename: str = "<stf>") -> list[Command]:
    """All commands of an STF file, each tagged with its line number."""
    commands: list[Command] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0]
        try:
            cmd = parse_line(line)
        except _LineError as exc:
            raise StfError(filename, number, str(exc)) from None
        if cmd is not None:
            object.__setattr__(cmd, "line", number)
            commands.append(cmd)
    return commands
