"""STF key names and values -> table match fields, as p4c's BMv2 driver reads them."""

from __future__ import annotations

import re

from p4emu.runtime.match import Exact, FieldMatch, Lpm, Optional, Range, Ternary, lpm_mask
from p4emu.runtime.model import KeyField, MatchKind
from p4emu.stf.parser import check_width, parse_int, parse_value

_BITS_PER_DIGIT = {"0x": 4, "0b": 1, "0o": 3}
_STACK_INDEX = re.compile(r"\$([0-9]+)")


class KeyValueError(ValueError):
    """A key name or value that does not fit the table."""


def resolve_key_name(name: str, names: list[str]) -> int:
    """Index of the key field `name` refers to: exact, `stk$0` = `stk[0]`, validity forms,
    then a unique dotted suffix."""
    name = _STACK_INDEX.sub(r"[\1]", name)
    candidates = [name, name + "$", name + ".$valid$", name + ".isValid()"]
    if name.endswith(".valid"):
        candidates.append(name[:-len("valid")] + "$valid$")
    for cand in candidates:
        if cand in names:
            return names.index(cand)
    hits = sorted({i for i, n in enumerate(names) for cand in candidates
                   if n.endswith("." + cand)}
                  | {i for i, n in enumerate(names)
                     if name == "valid" and (n.endswith(".$valid$") or n == "$valid$")})
    if len(hits) == 1:
        return hits[0]
    if not hits:
        raise KeyValueError(f"no key field {name!r} (keys: {', '.join(names)})")
    raise KeyValueError(f"key field {name!r} is ambiguous")


def _split_radix(text: str) -> tuple[str, str]:
    prefix = text[:2].lower()
    if prefix in _BITS_PER_DIGIT:
        return prefix, text[2:]
    return "", text


def _fit(value: int, width: int, text: str) -> int:
    if value >> width:
        raise KeyValueError(f"value {text} does not fit bit<{width}>")
    return value


def ternary_value_mask(text: str, width: int) -> tuple[int, int]:
    """`0x**ab` -> (0x00ab, 0x00ff): the mask covers the digits written, `*` masked out.
    `v&&&m` gives both explicitly; a decimal number is matched exactly."""
    full = (1 << width) - 1
    if "&&&" in text:
        v, _, m = text.partition("&&&")
        mask = _parse(m) & full
        return _fit(_parse(v), width, text) & mask, mask
    prefix, digits = _split_radix(text)
    if not prefix:
        return _fit(_parse(text), width, text), full
    bits = _BITS_PER_DIGIT[prefix]
    digits = digits.replace("_", "")
    if not digits or not re.fullmatch(r"[0-9a-fA-F*]+", digits):
        raise KeyValueError(f"bad ternary value {text!r}")
    digit_mask = (1 << bits) - 1
    value = mask = 0
    for ch in digits:
        value <<= bits
        mask <<= bits
        if ch != "*":
            d = int(ch, 16)
            if d > digit_mask:
                raise KeyValueError(f"bad digit {ch!r} in {text!r}")
            value |= d
            mask |= digit_mask
    if value >> width:
        raise KeyValueError(f"value {text} does not fit bit<{width}>")
    mask &= full
    return value & mask, mask


def lpm_value_prefix(text: str, width: int) -> tuple[int, int]:
    """`v/len`, or a prefix length of (digits written × bits per digit)."""
    if "/" in text:
        v, _, plen_text = text.partition("/")
        value, plen = _parse_cli_value(v.replace("*", "0"), width), _parse(plen_text)
    else:
        prefix, digits = _split_radix(text)
        if not prefix:  # the driver rewrites decimal as hex first
            value = _parse(text)
            digits = format(value, "x")
            prefix = "0x"
        else:
            value = _parse(prefix + digits.replace("*", "0"))
        plen = (len(digits.replace("_", "")) - digits.count("*")) * _BITS_PER_DIGIT[prefix]
    if plen > width:
        raise KeyValueError(f"prefix length {plen} of {text} exceeds bit<{width}>")
    _fit(value, width, text)
    return value & lpm_mask(plen, width), plen


def _parse(text: str) -> int:
    try:
        return parse_int(text.strip())
    except ValueError:
        raise KeyValueError(f"bad number {text!r}") from None


def _parse_cli_value(text: str, width: int) -> int:
    """Exact values and lpm prefixes reach simple_switch_CLI as written, so address
    notations are accepted there (ternary values go through the driver's mask rewrite,
    which only takes 0x/0b/0o)."""
    try:
        value = parse_value(text.strip())
        check_width(value, width, text)
    except ValueError as exc:
        raise KeyValueError(str(exc)) from None
    return int(value)


def key_match(text: str, key: KeyField) -> FieldMatch | None:
    """The FieldMatch an STF key value means for `key` (None when it matches anything)."""
    width = key.bitwidth
    kind = key.match_kind
    if kind == MatchKind.EXACT:
        return Exact(_fit(_parse_cli_value(text, width), width, text))
    if kind == MatchKind.TERNARY:
        value, mask = ternary_value_mask(text, width)
        return Ternary(value, mask) if mask else None
    if kind == MatchKind.LPM:
        value, plen = lpm_value_prefix(text, width)
        return Lpm(value, plen) if plen else None
    if kind == MatchKind.RANGE:
        if "->" in text:
            low_text, _, high_text = text.partition("->")
            low, high = _parse(low_text), _parse(high_text)
        else:
            low = high = _parse(text)
        _fit(high, width, text)
        if low > high:
            raise KeyValueError(f"empty range {text}")
        return None if (low, high) == (0, (1 << width) - 1) else Range(low, high)
    if kind == MatchKind.OPTIONAL:
        return Optional(_fit(_parse(text), width, text))
    raise KeyValueError(f"key {key.name} ({kind}) takes no value")
