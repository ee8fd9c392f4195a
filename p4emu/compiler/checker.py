"""The front end's checker: `ProgramChecker` turns AST constructs into the typed IR
(`p4emu.ir`): it resolves names and types, infers the types of expressions, folds what is
constant and makes p4c's and v1model's checks, raising `P4CompileError` at the first
error. It never writes generated code: the emitter (`program.ProgramGen`) asks it for each
construct's IR, then emits that IR.

Each pass over one kind of construct is a part of the checker, in `passes/`:

- `declare_globals.py`: top-level declarations, bound in the global scope;
- `resolve_types.py`: type references, header/struct/union fields;
- `typecheck.py` (with `check_operators`, `check_aggregates`, `check_calls`,
  `check_arguments`, `check_externs`, `check_extern_methods`, `conversions`):
  expressions;
- `check_statements.py`: statements and blocks; `check_parser_states.py`: transitions;
- `check_tables.py` (`check_table_entries`): tables; `check_declarations.py`:
  constants, block instances, value sets, extern instances.

The whole-program checks over the IR of what main uses are functions:
`passes/check_v1switch.py` and `passes/check_backend.py`.
"""

from __future__ import annotations

from p4emu.compiler.generated import CompileState, CompileStateView
from p4emu.compiler.passes.check_declarations import DeclarationCheck
from p4emu.compiler.passes.check_parser_states import ParserStateCheck
from p4emu.compiler.passes.check_statements import StatementCheck
from p4emu.compiler.passes.check_tables import TableCheck
from p4emu.compiler.passes.declare_globals import GlobalDeclarations
from p4emu.compiler.passes.resolve_types import TypeResolution
from p4emu.compiler.passes.typecheck import TypeCheck


class ProgramChecker(CompileStateView, GlobalDeclarations, TypeResolution, TypeCheck, StatementCheck,
                     ParserStateCheck, TableCheck, DeclarationCheck):
    """AST -> typed IR, one construct at a time, in the emitter's walk order (so the first
    error reported is the one p4c reports)."""

    def __init__(self, state: CompileState):
        self.state = state
