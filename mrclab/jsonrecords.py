"""Typed records (dataclasses) to and from JSON: the one serialiser of every record that
crosses processes (the endpoint's reports, the controller's replies, the experiments'
results), below every package so that each can use it.

Nested dataclasses, lists, and dicts whose int keys JSON turned into strings come back as
they were. A field marked `flat` is a part of its record in Python only: its fields sit
among the record's own in the JSON, which keeps the endpoint's summary the flat object it
has always been (tools read it with jq; old runs keep parsing). Keys a record does not have
(an old summary's `trims_seen`) are ignored; fields with defaults that an old record lacks
take them; a record without a required field, or not an object, is a `ValueError` whose
one line names the record and what is wrong.
"""

from __future__ import annotations

import sys
import types
from collections.abc import Callable
from dataclasses import MISSING, field, fields, is_dataclass
from functools import cache
from typing import Any, TypeVar, Union, get_args, get_origin, get_type_hints

R = TypeVar("R")


def flat(factory: Callable[[], object] | None = None) -> Any:
    """A part of a record whose fields the JSON holds among the record's own (without
    `factory`, one the record cannot go without)."""
    if factory is None:
        return field(metadata={"flat": True})
    return field(default_factory=factory, metadata={"flat": True})


def to_json(record: object) -> dict[str, Any]:
    """`record` (a dataclass) as a JSON-ready object."""
    out: dict[str, Any] = {}
    for f in fields(record):  # type: ignore[arg-type]
        value = getattr(record, f.name)
        if f.metadata.get("flat"):
            out.update(to_json(value))
        else:
            out[f.name] = _plain(value)
    return out


def json_default(value: Any) -> Any:
    """For `json.dumps(default=)`: a record as `to_json` makes it, anything else as text."""
    return to_json(value) if is_dataclass(value) and not isinstance(value, type) else str(value)


def _plain(value: Any) -> Any:
    if is_dataclass(value) and not isinstance(value, type):
        return to_json(value)
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def from_json(cls: type[R], data: Any) -> R:
    """A `cls` from what `to_json` made of one (or an older record of the same kind);
    ValueError naming `cls` and what is missing or malformed."""
    name = cls.__name__
    if not isinstance(data, dict):
        raise ValueError(f"{name} record is not an object: {data!r:.80}")
    hints = _hints(cls)
    kwargs = {}
    missing = []
    for f in fields(cls):  # type: ignore[arg-type]
        if f.metadata.get("flat"):
            kwargs[f.name] = from_json(hints[f.name], data)
        elif f.name in data:
            try:
                kwargs[f.name] = _parse(hints[f.name], data[f.name])
            except ValueError as exc:
                raise ValueError(f"{name}.{f.name}: {exc}") from None
        elif f.default is MISSING and f.default_factory is MISSING:
            missing.append(f.name)
    if missing:
        raise ValueError(f"{name} record without {', '.join(missing)}")
    return cls(**kwargs)


@cache
def _hints(cls: type) -> dict[str, Any]:
    return get_type_hints(cls, vars(sys.modules[cls.__module__]))


def _parse(hint: Any, value: Any) -> Any:
    origin = get_origin(hint)
    if value is None:
        return None
    if origin in (Union, types.UnionType):  # X | None
        (hint,) = [a for a in get_args(hint) if a is not type(None)] or (Any,)
        return _parse(hint, value)
    if is_dataclass(hint):
        return from_json(hint, value)  # type: ignore[arg-type]
    if origin in (list, tuple):
        if not isinstance(value, list):
            raise ValueError(f"not a list: {value!r:.80}")
        (item,) = get_args(hint)[:1]
        return [_parse(item, v) for v in value]
    if origin is dict:
        if not isinstance(value, dict):
            raise ValueError(f"not an object: {value!r:.80}")
        key, item = get_args(hint)
        out = {}
        for k, v in value.items():
            try:
                out[key(k)] = _parse(item, v)
            except ValueError as exc:
                raise ValueError(f"[{k!r}]: {exc}") from None
        return out
    return value
