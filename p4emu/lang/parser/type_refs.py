"""Types as written (`bit<W>`, `H[n]`, `tuple<...>`, `T<U>`), type-parameter lists and
parameter lists."""

from __future__ import annotations

from p4emu.lang import ast as A
from p4emu.lang.errors import P4CompileError
from p4emu.lang.parser.annotations import AnnotationParser


class TypeParser(AnnotationParser):
    # Types contain expressions (`bit<(W + 1)>`, stack sizes, parameter defaults) and
    # expressions contain types (casts, `T.member`): the next layer, `ExprParser`, defines
    # these two.
    def expression(self) -> A.Expr:
        raise NotImplementedError

    def primary(self) -> A.Expr:
        raise NotImplementedError

    def type_ref(self) -> A.TypeRef:
        t = self.tok
        base = self.base_type()
        while self.at("["):
            self.i += 1
            size = self.expression()
            self.expect("]")
            base = A.TStack(t.loc, base, size)
        return base

    def base_type(self) -> A.TypeRef:
        t = self.tok
        if t.kind == "kw" and t.text in ("bit", "int", "varbit"):
            self.i += 1
            if self.accept("<"):
                if self.at("("):
                    self.i += 1
                    width = self.expression()
                    self.expect(")")
                else:
                    width = self.primary()
                self.expect(">")
            else:
                if t.text == "int":
                    return A.TBase(t.loc, "int")
                if t.text == "varbit":
                    self.error("expected '<' after varbit")
                width = A.IntLit(t.loc, 1, None, False)
            return A.TBits(t.loc, width, t.text == "int", t.text == "varbit")
        if t.kind == "kw" and t.text in ("bool", "error", "string", "void", "match_kind"):
            self.i += 1
            return A.TBase(t.loc, t.text)
        if t.kind == "kw" and t.text == "tuple":
            self.i += 1
            self.expect("<")
            args = [self.type_ref()]
            while self.accept(","):
                args.append(self.type_ref())
            self.expect(">")
            return A.TTuple(t.loc, args)
        if t.text == "_" and t.kind == "id":
            self.i += 1
            return A.TBase(t.loc, "_")
        is_global = bool(self.accept("."))
        t = self.tok
        if t.kind != "id":
            self.error("expected a type")
        self.i += 1
        args = []
        if self.at("<") and (self.at_type_start(1) or self.peek().kind == "num" or self.peek().text == "_"):
            self.i += 1
            args.append(self.type_ref())
            while self.accept(","):
                args.append(self.type_ref())
            self.expect(">")
        return A.TName(t.loc, t.text, args, is_global)

    def type_params(self) -> list[str]:
        names = []
        if self.accept("<"):
            names.append(self.name())
            while self.accept(","):
                names.append(self.name())
            self.expect(">")
        return names

    def params(self) -> list[A.Param]:
        self.expect("(")
        out = []
        if not self.at(")"):
            out.append(self.param())
            while self.accept(","):
                out.append(self.param())
        self.expect(")")
        seen = set()
        for p in out:
            if p.name in seen:
                raise P4CompileError(p.loc, f"{p.name}: duplicate parameter name")
            seen.add(p.name)
        return out

    def param(self) -> A.Param:
        annos = self.annotations()
        direction = ""
        if self.tok.kind == "kw" and self.tok.text in ("in", "out", "inout"):
            direction = self.tok.text
            self.i += 1
        ty = self.type_ref()
        t = self.ident()
        default = self.expression() if self.accept("=") else None
        if direction and isinstance(ty, A.TBase) and ty.name == "int":
            # an arbitrary-precision value only exists at compile time (p4c TypeInference)
            raise P4CompileError(t.loc, f"{t.text}: parameters with type int must be directionless")
        p = A.Param(t.loc, t.text, direction, ty, default)
        p.annotations = annos
        return p
