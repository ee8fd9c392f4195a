"""Table applies -> C (mixin of `p4emu.native.cgen.CGen`).

Each table becomes `TA_n(st, P, &res)`: the key values, `tbl_find` on the switch's C copy
of the table (p4emu/native/rt/runtime.h, loaded by p4emu/native/sync.py), the entry's hit
counter, the selector's member for a group entry, then the action. A table's actions are
numbered by their place in its `actions` list; `TABLES` records, for sync.py, each
table's name, key shape and action ids in that order.
"""

from __future__ import annotations

from dataclasses import dataclass

from p4emu.ir import expressions as I
from p4emu.ir.table_decls import TableDecl
from p4emu.lang.types import BitsT, BoolT, EnumT, ErrorT
from p4emu.native.cexpr import scalar, unsigned
from p4emu.native.cstmt import checked
from p4emu.native.errors import refuse

MAXA = 8
SELECTOR_HASHES = {"crc16": "p4_crc16", "crc32": "p4_crc32", "crc16_custom": "p4_crc16",
                   "crc32_custom": "p4_crc32", "identity": "p4_identity", "csum16": "p4_csum16",
                   "xor16": "p4_xor16"}


@dataclass
class TableShape:
    """What sync.py needs to load one table into C."""

    index: int
    name: str
    action_ids: list[int]
    action_nargs: list[int]


class TableC:
    """`self` is the `CGen`."""

    def table_fn(self, decl: TableDecl) -> str:
        """The C function applying `decl` (generated on first use)."""
        if decl.name in self.table_fns:
            return self.table_fns[decl.name]
        self._check_table(decl)
        idx = len(self.tables)
        fname = f"TA_{idx}"
        self.table_fns[decl.name] = fname
        ids, nargs = [], []
        for la in decl.actions:
            if la.args:
                raise refuse(f"table {decl.name}: an action with directional arguments", la.loc)
            ids.append(self.action_ids[la.name])
            nargs.append(len(la.binding.params))
        self.tables.append(TableShape(idx, decl.name, ids, nargs))
        saved = (self.lines, self.ind)
        self.lines, self.ind = [], 1
        self._table_body(decl, idx)
        body = self.lines
        self.lines, self.ind = saved
        self.functions.append([f"static int {fname}(st_t *st, pkt_t *P, tres_t *res) {{", *body, "}"])
        return fname

    def _check_table(self, decl: TableDecl) -> None:
        for k in decl.keys:
            if k.match_kind not in ("exact", "lpm", "ternary", "optional", "range", "selector"):
                raise refuse(f"table {decl.name}: match kind {k.match_kind}", k.loc)
            t = k.value.type
            if isinstance(t, (EnumT, ErrorT)):
                t = scalar(t, k.loc)
            if not (isinstance(t, BoolT) or (isinstance(t, BitsT) and not t.signed and t.width <= 64)):
                raise refuse(f"table {decl.name}: a key of type {t}", k.loc)
        for a in decl.attached:
            kind = getattr(a, "kind", None)
            if kind in ("counters", "meters"):
                raise refuse(f"table {decl.name}: direct {kind}", decl.loc)
        if decl.idle_timeout:
            raise refuse(f"table {decl.name}: idle timeout", decl.loc)
        if sum(k.match_kind != "selector" for k in decl.keys) > 16:
            raise refuse(f"table {decl.name}: more than 16 key fields", decl.loc)

    def _table_body(self, decl: TableDecl, idx: int) -> None:
        keys = decl.keys
        match = [i for i, k in enumerate(keys) if k.match_kind != "selector"]
        sel = [i for i, k in enumerate(keys) if k.match_kind == "selector"]
        self.line(f"uint64_t key[{max(len(keys), 1)}];")
        for i, k in enumerate(keys):
            self.line(f"key[{i}] = {unsigned(self.expr(k.value), k.value.type)};")
        self.line(f"tbl_t *t = &st->tbl[{idx}];")
        mk = ", ".join(f"key[{i}]" for i in match) or "0"
        self.line(f"uint64_t mk[{max(len(match), 1)}] = {{{mk}}};")
        nk = len(match)
        self.line("int e = tbl_find(t, mk), act; const uint64_t *args;")
        self.line("if (e < 0) { res->hit = 0; act = t->def_action; args = t->def_args; }")
        self.line("else {")
        self.ind += 1
        self.line("res->hit = 1; t->hits[2 * e] += 1; t->hits[2 * e + 1] += P->length;")
        self.line(f"const uint64_t *r = t->rec + (size_t)e * REC_WORDS({nk});")
        self.line(f"uint64_t kind = r[{2 * nk + 1}];")
        self.line(f"if (kind == K_ACTION) {{ act = (int)(int64_t)r[{2 * nk + 2}]; args = r + {2 * nk + 3}; }}")
        if sel:
            algo = self._selector_algorithm(decl)
            self.line("else if (kind == K_GROUP) {")
            self.ind += 1
            widths = [keys[i].bitwidth for i in sel]
            n = (sum(widths) + 7) // 8
            self.line(f"uint8_t hb_[{n}]; size_t o_hb_ = 0; unsigned __int128 a_hb_ = 0; int b_hb_ = 0;")
            for i, w in zip(sel, widths, strict=True):
                self.line(f"p4_acc(&a_hb_, &b_hb_, hb_, &o_hb_, key[{i}], {w});")
            self.line("p4_acc_flush(&a_hb_, &b_hb_, hb_, &o_hb_);")
            self.line(f"int64_t m = p4_select(st, t, (int)r[{2 * nk + 2}], {algo}(hb_, {n}));")
            self.line("if (m == -2) return -1;")
            self.line("if (m < 0) { act = -1; args = t->def_args; }")
            self.line("else { act = (int)(int64_t)t->gmem[m]; args = t->gmem + m + 3; }")
            self.ind -= 1
            self.line("}")
        self.line("else { act = -1; args = t->def_args; }")
        self.ind -= 1
        self.line("}")
        ids = ", ".join(str(self.action_ids[la.name]) for la in decl.actions) or "0"
        self.line(f"static const int64_t ids[] = {{{ids}}};")
        self.line("res->action_id = act >= 0 ? ids[act] : -1;")
        self.line("(void)args;")
        self.line("switch (act) {")
        for j, la in enumerate(decl.actions):
            fname = self.action_fn(la.binding)
            nargs = len(la.binding.params)
            if nargs > MAXA:
                raise refuse(f"action {la.name}: more than {MAXA} parameters", la.loc)
            argl = "".join(f", args[{i}]" for i in range(nargs))
            self.line(f"case {j}: {checked(f'{fname}(st, P{argl})')} break;")
        self.line("default: break;")
        self.line("}")
        self.line("return 0;")

    def _selector_algorithm(self, decl: TableDecl) -> str:
        name = decl.attached_name("implementation")
        prof = next((p for p in self.info.action_profiles.values() if p.name == name), None)
        if prof is None or not prof.with_selector:
            raise refuse(f"table {decl.name}: selector keys without an action selector", decl.loc)
        algo = prof.selector_algorithm or "crc16"
        if algo not in SELECTOR_HASHES:
            raise refuse(f"action selector {name}: hash {algo}", decl.loc)
        return SELECTOR_HASHES[algo]

    def apply_table(self, call: I.Call, res: str) -> None:
        base = call.callee.base
        decl = self.table_decls.get(id(base.binding))
        if decl is None:
            raise refuse(f"the table {base.name}", call.loc)
        fname = self.table_fn(decl)
        self.line(checked(f"{fname}(st, P, &{res})"))
