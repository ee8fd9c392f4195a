"""Python classes for P4 headers, structs and header unions (generated source)."""

from __future__ import annotations

from p4emu.compiler.header_layout import header_words, pack_arguments, struct_format, unpack_lines
from p4emu.compiler.values import zero_value
from p4emu.lang.errors import P4CompileError
from p4emu.lang.types import BitsT, BoolT, EnumT, StackT, StructT, Type, VarbitT


def _field_copy(expr: str, t: Type) -> str:
    if isinstance(t, (StructT, StackT)):
        return f"{expr}.copy()"
    return expr


def _bit_fields(t: StructT, loc) -> list[tuple[str, int, bool, str]]:
    """(name, width, signed, kind) per field of a header; kind: bits, bool, varbit."""
    out = []
    for name, ft in t.fields:
        if isinstance(ft, BitsT):
            out.append((name, ft.width, ft.signed, "bits"))
        elif isinstance(ft, BoolT):
            out.append((name, 1, False, "bool"))
        elif isinstance(ft, EnumT) and ft.underlying is not None:
            out.append((name, ft.underlying.width, ft.underlying.signed, "bits"))
        elif isinstance(ft, VarbitT):
            out.append((name, ft.max_width, False, "varbit"))
        elif isinstance(ft, StructT) and flat_width(ft) is not None:
            out.append((name, flat_width(ft), False, "struct"))
        else:
            raise P4CompileError(loc, f"header {t.name}: field {name} has unsupported type {ft}")
    return out


def flat_width(t: Type) -> int | None:
    """Bits of a value that can live inside a header (P4 1.2: bit<N>, int<N>, bool,
    serializable enums and structs of those), or None."""
    if isinstance(t, BitsT):
        return t.width
    if isinstance(t, BoolT):
        return 1
    if isinstance(t, EnumT):
        return t.underlying.width if t.underlying is not None else None
    if isinstance(t, StructT) and t.kind == "struct":
        widths = [flat_width(ft) for _, ft in t.fields]
        return None if None in widths else sum(widths)
    return None


def struct_bits_source(t: StructT) -> list[str]:
    """Module-level code giving struct class `t` from_bits/to_bits, for a struct used as a
    header field: its fields MSB first. Emitted only for such structs (see
    struct_module_source), after the class itself."""
    fields = []
    for n, ft in t.fields:
        w = flat_width(ft)
        if isinstance(ft, StructT):
            fields.append((n, w, False, "struct", ft))
        else:
            signed = (ft.signed if isinstance(ft, BitsT) else
                      ft.underlying.signed if isinstance(ft, EnumT) else False)
            fields.append((n, w, signed, "bool" if isinstance(ft, BoolT) else "bits", ft))
    L = [f"def _{t.py}_from_bits(v):", f"    self = {t.py}()"]
    pos = flat_width(t)
    terms = []
    for n, w, sg, k, ft in fields:
        pos -= w
        L.append(_unpack_line(n, w, sg, k, pos, ft.py if k == "struct" else None)[4:])
        terms.append(_pack_term(n, w, sg, k, pos))
    L.append("    return self")
    L.append(f"def _{t.py}_to_bits(self):")
    L.append(f"    return {' | '.join(terms) if terms else '0'}")
    L.append(f"{t.py}.from_bits = staticmethod(_{t.py}_from_bits)")
    L.append(f"{t.py}.to_bits = _{t.py}_to_bits")
    return L


def _pack_term(n: str, w: int, s: bool, k: str, pos: int) -> str:
    """One field's bits, shifted to `pos`, in a packed header or struct value."""
    if k == "bool":
        val = f"int(self.f_{n})"
    elif k == "struct":
        val = f"self.f_{n}.to_bits()"
    else:
        val = f"(self.f_{n} & {(1 << w) - 1})" if s else f"self.f_{n}"
    return f"({val} << {pos})" if pos else val


def inline_emit_line(t: StructT, obj: str, out: str, loc) -> str | None:
    """`obj.emit(out)` of a fixed-size header as one statement (no call), or None."""
    if t.kind != "header" or t.varbit_field is not None:
        return None
    fields = _bit_fields(t, loc)
    words = header_words(fields)
    if words is not None:
        args = ", ".join(pack_arguments(words, _pack_term)).replace("self.", f"{obj}.")
        return f"if {obj}.valid: {out} += {layout_name(t)}.pack({args})"
    pos = sum(w for _, w, _, _ in fields)
    terms = []
    for n, w, s, k in fields:
        pos -= w
        terms.append(_pack_term(n, w, s, k, pos).replace("self.", f"{obj}."))
    nbytes = sum(w for _, w, _, _ in fields) // 8
    return f"if {obj}.valid: {out} += ({' | '.join(terms) or '0'}).to_bytes({nbytes}, 'big')"


def struct_class_source(t: StructT) -> list[str]:
    names = [n for n, _ in t.fields]
    slots = (["valid"] if t.kind == "header" else []) + [f"f_{n}" for n in names]
    if t.kind == "header":
        # A packet makes a fresh object of every header type its program declares, most
        # never valid: a header's immutable initial values are class attributes, so
        # creating one sets nothing but the struct-typed fields (it has no __slots__,
        # which could not coexist with class attributes of the same names).
        L = [f"class {t.py}:", f"    p4name = {t.name!r}", "    valid = False"]
        mutable = [(n, ft) for n, ft in t.fields if isinstance(ft, (StructT, StackT))]
        L += [f"    f_{n} = {zero_value(ft)}" for n, ft in t.fields
              if not isinstance(ft, (StructT, StackT))]
        if mutable:
            L.append("    def __init__(self):")
            for n, ft in mutable:
                L.append(f"        self.f_{n} = {zero_value(ft)}")
    else:
        L = [f"class {t.py}:", f"    __slots__ = {tuple(slots)!r}", f"    p4name = {t.name!r}"]
        L.append("    def __init__(self):")
        for n, ft in t.fields:
            L.append(f"        self.f_{n} = {zero_value(ft)}")
        if len(slots) == 0:
            L.append("        pass")
    # build (from struct expression)
    L.append("    @staticmethod")
    L.append(f"    def build({', '.join('a' + str(i) for i in range(len(names)))}):")
    L.append(f"        o = {t.py}()")
    for i, (n, ft) in enumerate(t.fields):
        if isinstance(ft, (StructT, StackT)):
            L.append(f"        o.f_{n}.assign(a{i})")
        else:
            L.append(f"        o.f_{n} = a{i}")
    if t.kind == "header":
        L.append("        o.valid = True")
    L.append("        return o")
    # copy / assign / equals
    L.append("    def copy(self):")
    L.append(f"        o = {t.py}.__new__({t.py})")
    for s in slots:
        ft = t.field_type(s[2:]) if s != "valid" else None
        L.append(f"        o.{s} = {_field_copy('self.' + s, ft) if ft is not None else 'self.' + s}")
    L.append("        return o")
    L.append("    def assign(self, o):")
    for s in slots:
        ft = t.field_type(s[2:]) if s != "valid" else None
        if isinstance(ft, (StructT, StackT)):
            L.append(f"        self.{s}.assign(o.{s})")
        else:
            L.append(f"        self.{s} = o.{s}")
    if not slots:
        L.append("        pass")
    L.append("    def equals(self, o):")
    if t.kind == "header":
        L.append("        if self.valid != o.valid: return False")
        L.append("        if not self.valid: return True")
    conds = []
    for n, ft in t.fields:
        if isinstance(ft, (StructT, StackT)):
            conds.append(f"self.f_{n}.equals(o.f_{n})")
        else:
            conds.append(f"self.f_{n} == o.f_{n}")
    L.append(f"        return {' and '.join(conds) if conds else 'True'}")
    if t.kind == "header":
        L += _header_methods(t)
    elif t.kind == "header_union":
        L += _union_methods(t)
    else:
        L.append("    def emit(self, out):")
        emitted = False
        for n, ft in t.fields:
            if isinstance(ft, (StructT, StackT)):
                L.append(f"        self.f_{n}.emit(out)")
                emitted = True
        if not emitted:
            L.append("        pass")
    return L


def _union_methods(t: StructT) -> list[str]:
    L = ["    def is_valid(self):"]
    L.append("        return " + (" or ".join(f"self.f_{n}.valid" for n, _ in t.fields) or "False"))
    L.append("    def only_valid(self, keep):")
    for n, _ in t.fields:
        L.append(f"        if keep != 'f_{n}': self.f_{n}.valid = False")
    L.append("        pass")
    L.append("    def emit(self, out):")
    for n, _ in t.fields:
        L.append(f"        self.f_{n}.emit(out)")
    if not t.fields:
        L.append("        pass")
    return L


def check_header_layout(t: StructT, loc) -> None:
    """Refuse a header BMv2 cannot lay out: a field of no fixed width, two varbit fields,
    or a size that is not whole bytes."""
    fields = _bit_fields(t, loc)
    if sum(1 for *_, k in fields if k == "varbit") > 1:
        raise P4CompileError(loc, f"header {t.name}: more than one varbit field")
    fixed_bits = sum(w for _, w, _, k in fields if k != "varbit")
    if fixed_bits % 8 != 0:
        raise P4CompileError(loc, f"header {t.name}: size {fixed_bits} bits is not a multiple of 8 (unsupported by BMv2)")


def struct_module_source(types: list[StructT]) -> list[str]:
    """The classes of `types` (declaration order, checked), each header followed by
    from_bits/to_bits of the structs laid out in it that do not have them yet."""
    L: list[str] = []
    with_bits: set[str] = set()

    def give_bits(t: Type) -> None:
        if not isinstance(t, StructT) or t.kind != "struct" or t.py in with_bits:
            return
        with_bits.add(t.py)
        for _, ft in t.fields:
            give_bits(ft)
        L.extend(struct_bits_source(t))

    for t in types:
        L += struct_class_source(t)
        if t.kind == "header":
            words = header_words(_bit_fields(t, None))
            if words is not None:
                L.append(f"{layout_name(t)} = Struct({struct_format(words)!r})")
            for _, ft in t.fields:
                give_bits(ft)
    return L


def layout_name(t: StructT) -> str:
    """The module-level `struct.Struct` of header `t`'s wire layout (header_layout)."""
    return f"_S_{t.py}"


def _header_methods(t: StructT) -> list[str]:
    fields = _bit_fields(t, None)  # checked by check_header_layout
    fixed_bits = sum(w for _, w, _, k in fields if k != "varbit")
    has_varbit = any(k == "varbit" for *_, k in fields)
    L = ["    def set_valid(self):", "        if not self.valid:", "            self.valid = True"]
    for n, _w, _s, k in fields:
        zero = zero_value(t.field_type(n)) if k == "struct" else (
            "False" if k == "bool" else "(0, 0)" if k == "varbit" else "0")
        L.append(f"            self.f_{n} = {zero}")
    L.append("    def set_fields(self, v, vb=None):")
    # v: the fixed bits as one integer (MSB first); vb: (width, value) of the varbit field
    pos = fixed_bits
    unpack = []
    for n, w, s, k in fields:
        if k == "varbit":  # not in v: its bits follow the fixed fields on the wire
            unpack.append(f"        self.f_{n} = vb")
            continue
        pos -= w
        unpack.append(_unpack_line(n, w, s, k, pos, t.field_type(n).py if k == "struct" else None))
    unpack.append("        self.valid = True")
    L += unpack
    nbytes = fixed_bits // 8
    L.append("    def extract(self, pk):")
    L.append("        pos = pk.pos")
    L.append(f"        end = pos + {nbytes}")
    L.append("        if end > pk.end: raise ParserError(PACKET_TOO_SHORT)")
    L.append("        pk.pos = end")
    words = header_words(fields)
    if has_varbit:
        L.append("        self.set_fields(int.from_bytes(pk.data[pos:end], 'big'))")
    elif words is not None:  # one C-level unpack (header_layout)
        names = [f"u{i}" for i in range(sum(len(w.sizes) for w in words))]
        L.append(f"        {', '.join(names)}, = {layout_name(t)}.unpack_from(pk.data, pos)")
        L += unpack_lines(words, lambda n, w, s, k, pos: _unpack_line(
            n, w, s, k, pos, t.field_type(n).py if k == "struct" else None))
        L.append("        self.valid = True")
    else:  # set_fields inlined (one call less per extracted header)
        L.append("        v = int.from_bytes(pk.data[pos:end], 'big')")
        L += unpack
    L.append("    def extract_var(self, pk, nbits):")
    if has_varbit:
        idx = [k for *_, k in fields].index("varbit")
        before_bits = sum(w for _, w, _, _ in fields[:idx])
        after_bits = fixed_bits - before_bits
        maxw = fields[idx][1]
        # BMv2's order: whole bytes, then packet length, then the varbit maximum
        L.append("        if nbits % 8: raise ParserError(PARSER_INVALID_ARGUMENT)")
        L.append("        pos = pk.pos")
        L.append(f"        end = pos + {nbytes} + (nbits >> 3)")
        L.append("        if end > pk.end: raise ParserError(PACKET_TOO_SHORT)")
        L.append(f"        if nbits > {maxw}: raise ParserError(HEADER_TOO_SHORT)")
        L.append("        pk.pos = end")
        L.append("        v = int.from_bytes(pk.data[pos:end], 'big')")
        L.append(f"        tail = v & {(1 << after_bits) - 1}")
        L.append(f"        head = v >> ({after_bits} + nbits)")
        L.append(f"        vb = (nbits, (v >> {after_bits}) & ((1 << nbits) - 1))")
        L.append(f"        self.set_fields((head << {after_bits}) | tail, vb)")
    else:
        L.append("        raise ParserError(PARSER_INVALID_ARGUMENT)")
    L.append("    @staticmethod")
    L.append("    def peek(pk, checked=True):")
    L.append(f"        o = {t.py}()")
    L.append(f"        o.set_fields(pk.peek_bits({fixed_bits}) if checked else pk.peek_bits_unchecked({fixed_bits}))")
    L.append("        return o")
    L.append("    def emit(self, out):")
    L.append("        if self.valid:")
    if has_varbit:
        parts = []
        for n, w, s, k in fields:
            if k == "varbit":
                parts.append(("vb", n))
            else:
                parts.append(("f", n, w, s, k))
        L.append("            acc = 0")
        L.append("            bits = 0")
        for p in parts:
            if p[0] == "vb":
                L.append(f"            vw, vv = self.f_{p[1]}")
                L.append("            acc = (acc << vw) | vv")
                L.append("            bits += vw")
            else:
                _, n, w, s, k = p
                L.append(f"            acc = (acc << {w}) | {_pack_term(n, w, s, k, 0)}")
                L.append(f"            bits += {w}")
        L.append("            out += acc.to_bytes(bits >> 3, 'big')")
    elif words is not None:
        L.append(f"            out += {layout_name(t)}.pack({', '.join(pack_arguments(words, _pack_term))})")
    else:
        terms = []
        pos = fixed_bits
        for n, w, s, k in fields:
            pos -= w
            terms.append(_pack_term(n, w, s, k, pos))
        expr = " | ".join(terms) if terms else "0"
        L.append(f"            out += ({expr}).to_bytes({nbytes}, 'big')")
    L.append("    def size_bytes(self):")
    if has_varbit:
        vname = [n for n, *_, k in fields if k == "varbit"][0]
        L.append(f"        return {nbytes} + (self.f_{vname}[0] >> 3)")
    else:
        L.append(f"        return {nbytes}")
    return L


def _unpack_line(n: str, w: int, s: bool, k: str, pos: int, struct_py: str | None = None) -> str:
    m = (1 << w) - 1
    raw = f"(v >> {pos}) & {m}" if pos else f"v & {m}"
    if k == "struct":
        return f"        self.f_{n} = {struct_py}.from_bits({raw})"
    if k == "bool":
        return f"        self.f_{n} = ({raw}) != 0"
    if s:
        h = 1 << (w - 1)
        return f"        self.f_{n} = (({raw}) ^ {h}) - {h}"
    return f"        self.f_{n} = {raw}"
