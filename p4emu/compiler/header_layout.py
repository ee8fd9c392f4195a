"""A fixed-size header's wire layout as a `struct.Struct`: the generated `extract` and
`emit` read and write the whole header with one C-level `unpack_from` / `pack` instead of
shifting and masking one integer as wide as the header (a 40-byte MRC header is a 320-bit
integer). The fields are grouped into *words*: the shortest runs of consecutive fields that
start and end on a byte boundary (IPv4's version and ihl make one byte; a 48-bit MAC address
is a word of its own). A word of several fields must fit one struct code (1, 2, 4 or 8
bytes); a word of one field may span several codes (a MAC address is `IH`). A header with a
word that fits neither keeps the one-integer code.
"""

from __future__ import annotations

from dataclasses import dataclass

# (name, width, signed, kind) as structs._bit_fields gives them; kind: bits, bool, struct
Field = tuple[str, int, bool, str]
CODES = ((8, "Q"), (4, "I"), (2, "H"), (1, "B"))


@dataclass(frozen=True)
class Word:
    fields: tuple[Field, ...]
    sizes: tuple[int, ...]  # bytes of each struct code, first to last

    @property
    def bits(self) -> int:
        return 8 * sum(self.sizes)


def code_sizes(nbytes: int) -> tuple[int, ...]:
    """Struct codes covering `nbytes`, largest first (6 bytes: an I then an H)."""
    sizes = []
    while nbytes:
        size = next(s for s, _ in CODES if s <= nbytes)
        sizes.append(size)
        nbytes -= size
    return tuple(sizes)


def header_words(fields: list[Field]) -> list[Word] | None:
    """The header's words, or None when it cannot be laid out as a struct (a varbit field,
    no fields, or a run of several fields that no single code holds)."""
    if not fields or any(k == "varbit" for *_, k in fields):
        return None
    words: list[Word] = []
    run: list[Field] = []
    bits = 0
    for f in fields:
        run.append(f)
        bits += f[1]
        if bits % 8:
            continue
        sizes = code_sizes(bits // 8)
        if len(run) > 1 and len(sizes) > 1:
            return None
        words.append(Word(tuple(run), sizes))
        run, bits = [], 0
    return words if not run else None


def struct_format(words: list[Word]) -> str:
    letters = dict((size, code) for size, code in CODES)
    return ">" + "".join(letters[s] for w in words for s in w.sizes)


def unpack_lines(words: list[Word], unpack_line) -> list[str]:
    """Statements (indented for a method body) setting every field from `u0, u1, ...`, the
    values `unpack_from` gave; `unpack_line(name, width, signed, kind, pos)` is the
    one-integer code's statement reading a field at bit `pos` of `v`."""
    out: list[str] = []
    i = 0
    for word in words:
        parts = [f"u{i + j}" for j in range(len(word.sizes))]
        value = parts[0]
        for size, part in zip(word.sizes[1:], parts[1:], strict=True):
            value = f"(({value} << {8 * size}) | {part})"
        i += len(parts)
        if len(word.fields) == 1 and word.fields[0][2:] == (False, "bits"):
            out.append(f"        self.f_{word.fields[0][0]} = {value}")
            continue
        out.append(f"        v = {value}")
        pos = word.bits
        for name, width, signed, kind in word.fields:
            pos -= width
            out.append(unpack_line(name, width, signed, kind, pos))
    return out


def pack_arguments(words: list[Word], pack_term) -> list[str]:
    """`pack`'s arguments, one per struct code, from the fields of `self`;
    `pack_term(name, width, signed, kind, pos)` is a field's value shifted to bit `pos`."""
    args: list[str] = []
    for word in words:
        pos = word.bits
        terms = []
        for name, width, signed, kind in word.fields:
            pos -= width
            terms.append(pack_term(name, width, signed, kind, pos))
        value = " | ".join(terms)
        if len(word.sizes) == 1:
            args.append(value)
            continue
        shift = word.bits
        for k, size in enumerate(word.sizes):
            shift -= 8 * size
            shifted = f"({value}) >> {shift}" if shift else f"({value})"
            args.append(shifted if k == 0 else f"({shifted}) & {(1 << (8 * size)) - 1}")
    return args
