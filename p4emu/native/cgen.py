"""The C emitter: a checked v1model program (typed IR, `p4emu.ir.blocks.Program`) -> the C
source of one CPython extension module (`generate`).

The source is runtime.h + state.h (p4emu/native/rt), the program's types, parser,
controls, actions and tables, then pipeline_api.h and module.h (the Python entry points
and the C ones a compiled traffic manager calls). Anything outside
the subset (see p4emu/native/__init__.py) raises `NativeUnsupported` naming it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from p4emu.compiler import CompiledProgram, decode_preprocessed
from p4emu.compiler.program import ProgramGen
from p4emu.compiler.scope import InstB
from p4emu.ir import blocks as B
from p4emu.lang.lexer import tokenize
from p4emu.lang.parser import parse
from p4emu.lang.types import StackT, StructT
from p4emu.native.ccalls import CallC
from p4emu.native.cexpr import ExprC
from p4emu.native.cparser import ParserC
from p4emu.native.cstmt import StmtC, ctype
from p4emu.native.ctables import TableC, TableShape
from p4emu.native.errors import NativeUnsupported, refuse

RT = Path(__file__).with_name("rt")
ROLES = ("parser", "verify", "ingress", "egress", "compute", "deparser")
EXTERN_KINDS = ("counter", "register", "action_selector", "action_profile")


@dataclass
class NativeSource:
    """The generated module and what sync.py needs to bind a switch's state to it."""

    code: str
    tables: list[TableShape]
    registers: list[str]  # C index -> register name
    counters: list[str]
    meta: dict = field(default_factory=dict)


def check_program(program: CompiledProgram) -> B.Program:
    """The typed IR of `program`, checked again from its device config."""
    gen = ProgramGen(parse(tokenize(decode_preprocessed(program.preprocessed))))
    return gen.checker.check_program(gen.program)


class CGen(ExprC, StmtC, CallC, TableC, ParserC):
    def __init__(self, program: CompiledProgram, ir: B.Program):
        self.program = program
        self.info = program.info
        self.ir = ir
        self.action_ids = program.action_ids
        self.names: dict[int, str] = {}  # id(binding) -> C lvalue
        self.lines: list[str] = []
        self.ind = 1
        self.uid = 0
        self.in_lazy = 0
        self.in_select_key = False
        self.block_kind = "control"
        self.deparse_max = 0
        self.functions: list[list[str]] = []
        self.protos: list[str] = []
        self.action_fns: dict[int, str] = {}
        self.function_fns: dict[tuple, str] = {}
        self.ret_type = None  # the function being generated returns this
        self.table_fns: dict[str, str] = {}
        self.table_decls: dict[int, object] = {}
        self.tables: list[TableShape] = []
        self.registers: dict[str, tuple[int, int]] = {}
        self.counters: dict[str, int] = {}
        self.frame_fields: list[str] = []
        self.types: dict[int, str] = {}
        self.stack_types: dict[tuple, str] = {}
        self.eq_fns: dict[object, str] = {}
        self.type_defs: list[str] = []

    # -- objects --------------------------------------------------------------------------
    def register_index(self, name: str) -> tuple[int, int]:
        if name not in self.registers:
            info = next((r for r in self.info.registers.values() if r.name == name), None)
            if info is None or info.bitwidth > 64:
                raise refuse(f"register {name} (unknown or wider than 64 bits)")
            self.registers[name] = (len(self.registers), info.bitwidth)
        return self.registers[name]

    def counter_index(self, name: str) -> int:
        if name not in self.counters:
            self.counters[name] = len(self.counters)
        return self.counters[name]

    def _extern_decl(self, b: InstB, ext) -> None:
        kind = ext.kind if ext is not None else b.kind
        if kind not in EXTERN_KINDS:
            raise refuse(f"the extern {kind} {b.full_name}", getattr(ext, "loc", None))
        if kind == "counter":
            self.counter_index(b.full_name)
        elif kind == "register":
            self.register_index(b.full_name)

    # -- types ------------------------------------------------------------------------------
    def ctype_of(self, t: StructT | StackT) -> str:
        if isinstance(t, StackT):  # items, then the parser's next index
            key = (id(t.elem), t.size)
            if key not in self.stack_types:
                elem = self.ctype_of(t.elem)
                name = f"K_{len(self.stack_types)}_{t.elem.name}_{t.size}"
                self.type_defs.append(f"typedef struct {{ {elem} items[{t.size}]; uint64_t nxt; }} {name};")
                self.stack_types[key] = name
            return self.stack_types[key]
        if id(t) in self.types:
            return self.types[id(t)]
        if t.kind not in ("header", "struct"):
            raise refuse(f"the {t.kind} {t.name}")
        name = f"T_{len(self.types)}_{t.name}"
        self.types[id(t)] = name
        fields = ["uint8_t valid;"] if t.kind == "header" else []
        for fname, ft in t.fields:
            if isinstance(ft, (StructT, StackT)):
                fields.append(f"{self.ctype_of(ft)} f_{fname};")
            else:
                try:
                    fields.append(f"{ctype(ft)} f_{fname};")
                except NativeUnsupported:
                    raise refuse(f"the field {t.name}.{fname} of type {ft}") from None
        if not fields:
            fields.append("uint8_t unused_;")
        self.type_defs.append(f"typedef struct {{ {' '.join(fields)} }} {name};")
        return name

    # -- blocks -------------------------------------------------------------------------------
    def _bind_params(self, block: B.CheckedBlock) -> None:
        ht = dict(self.ir.header_types)
        where = {id(ht["H"]): "P->hdr", id(ht["M"]): "P->meta", id(ht["SM"]): "P->sm"}
        for p in block.params:
            if getattr(p.type, "name", "") in ("packet_in", "packet_out"):
                continue
            c = where.get(id(p.type))
            if c is None:
                raise refuse(f"{block.name}: the parameter {p.name} of type {p.type}", p.loc)
            self.names[id(p.binding)] = c

    def _locals(self, block: B.CheckedBlock) -> list[str]:
        """Declare the block's locals; returns the C initialising its variables."""
        if block.arg_instances:
            raise refuse(f"{block.name}: constructor arguments that are blocks")
        init = []
        for d in block.locals:
            if isinstance(d, B.LocalVar):
                c = f"lv_{len(self.frame_fields)}"
                struct = isinstance(d.type, StructT)
                decl = self.ctype_of(d.type) if struct else ctype(d.type)
                self.frame_fields.append(f"{decl} {c};")
                self.names[id(d.binding)] = f"P->{c}"
                init.append((f"P->{c}", d.init, struct))
            elif isinstance(d, B.LocalTable):
                self.table_decls[id(d.binding)] = d.table
            elif isinstance(d, B.LocalInstance):
                if d.extern is None:
                    raise refuse(f"{block.name}: the sub-block {d.binding.full_name}")
                self._extern_decl(d.binding, d.extern)
            elif isinstance(d, B.LocalValueSet):
                raise refuse(f"{block.name}: the value set {d.decl.name}", d.decl.loc)
        lines = []
        saved, self.lines, self.ind = self.lines, [], 1
        for c, e, struct in init:  # a frame's variables start from zero at each apply
            if struct:
                self.line(f"memset(&{c}, 0, sizeof {c});")
                if e is not None:
                    self.copy_struct(c, e, e.loc)
            else:
                self.line(f"{c} = {self.expr(e) if e is not None else '0'};")
        lines, self.lines = self.lines, saved
        return lines

    def gen_control(self, role: str, block: B.CheckedBlock) -> list[str]:
        self.block_kind = "control"
        self._bind_params(block)
        init = self._locals(block)
        self.lines, self.ind = list(init), 1
        for s in block.body.stmts:
            self.stmt(s)
        self.line("return 0;")
        return [f"static int prog_{role}(st_t *st, pkt_t *P) {{", *self.lines, "}"]

    # -- the module -----------------------------------------------------------------------------
    def generate(self, module_name: str) -> NativeSource:
        roles = dict(self.ir.roles)
        for g in self.ir.globals:
            if isinstance(g, InstB):
                self._extern_decl(g, g.extern)
        ht = dict(self.ir.header_types)
        h, m, sm = (self.ctype_of(ht[k]) for k in ("H", "M", "SM"))
        parts = {"parser": self.gen_parser(roles["parser"])}
        # the parser's parameters are bound inside gen_parser's statements: bind first
        for role in ("verify", "ingress", "egress", "compute"):
            parts[role] = self.gen_control(role, roles[role])
        self._bind_params(roles["deparser"])
        parts["deparser"] = self.gen_deparser(roles["deparser"])
        src = [(RT / "runtime.h").read_text()]
        src.append(f"#define NTABLES {len(self.tables)}\n#define NREGS {len(self.registers)}\n"
                   f"#define NCNTS {len(self.counters)}\n#define DEPARSE_MAX {self.deparse_max}\n"
                   f"#define MODULE_NAME_STR \"{module_name}\"\n#define MODULE_INIT PyInit_{module_name}\n")
        src += self.type_defs
        src.append("typedef struct {")
        src.append(f"    {h} hdr; {m} meta; {sm} sm;")
        src.append("    uint64_t length, now_us; int64_t len_delta, trunc; int checksum_error;")
        src.append("    const uint8_t *data; Py_ssize_t dlen, pos;")
        src.append("    const uint8_t *pl; Py_ssize_t pllen; /* the payload (checksums with payload) */")
        src += ["    " + f for f in self.frame_fields]
        src.append("} pkt_t;")
        src.append((RT / "state.h").read_text())
        src += self.protos
        for fn in self.functions:
            src += fn
        for role in ROLES:
            src += parts[role]
        src.append("static Py_ssize_t prog_deparse(st_t *st, pkt_t *P, uint8_t *out) {\n"
                   "    size_t o = 0;\n    if (prog_deparse_(st, P, out, &o) < 0) return -1;\n"
                   "    return (Py_ssize_t)o;\n}")
        src.append((RT / "pipeline_api.h").read_text())
        src.append((RT / "module.h").read_text())
        regs = sorted(self.registers, key=lambda n: self.registers[n][0])
        cnts = sorted(self.counters, key=lambda n: self.counters[n])
        return NativeSource("\n".join(src) + "\n", self.tables, regs, cnts)


def generate(program: CompiledProgram, module_name: str = "p4emu_native") -> NativeSource:
    """C source of `program`'s pipeline, or NativeUnsupported."""
    ir = check_program(program)
    gen = CGen(program, ir)
    # the parser's block parameters must be bound before its states are generated
    gen._bind_params(dict(ir.roles)["parser"])
    return gen.generate(module_name)
