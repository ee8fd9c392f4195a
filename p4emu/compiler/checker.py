"""The front end's checker: `ProgramChecker.check_program` turns the program's AST into its
typed IR (`p4emu.ir`, the whole program: `p4emu.ir.blocks.Program`) before anything is
emitted: it resolves names and types, infers the types of expressions, folds what is
constant and makes p4c's and v1model's checks, raising `P4CompileError` at the first
error. It never writes generated code: the emitter (`program.ProgramGen`) then walks that
IR.

Each pass over one kind of construct is a part of the checker, in `passes/`:

- `check_program.py`: the whole program: top-level declarations, main's blocks, the
  blocks main does not use;
- `declare_globals.py`: top-level declarations, bound in the global scope;
- `check_blocks.py`: parser/control instances whole, and what their code uses (actions,
  functions, `T.apply()` instances) after it;
- `resolve_types.py`: type references, header/struct/union fields;
- `typecheck.py` (with `check_operators`, `check_aggregates`, `check_calls`,
  `check_arguments`, `check_externs`, `check_extern_methods`, `conversions`):
  expressions;
- `check_statements.py`: statements and blocks; `check_parser_states.py`: transitions;
- `check_tables.py` (`check_table_entries`): tables; `check_declarations.py`:
  constants, block instances, value sets, extern instances.

A piece of a program (an expression, a statement) is checked inside one, through
`fragments.ProgramFragments`: the passes assume a whole program.

The whole-program checks over the IR of main's blocks are functions:
`passes/check_v1switch.py` (here) and `passes/check_backend.py` (after emission, over
what was generated).
"""

from __future__ import annotations

from p4emu.compiler.generated import CompileState, CompileStateView
from p4emu.compiler.passes.check_blocks import BlockCheck
from p4emu.compiler.passes.check_declarations import DeclarationCheck
from p4emu.compiler.passes.check_parser_states import ParserStateCheck
from p4emu.compiler.passes.check_program import ProgramCheck
from p4emu.compiler.passes.check_statements import StatementCheck
from p4emu.compiler.passes.check_tables import TableCheck
from p4emu.compiler.passes.declare_globals import GlobalDeclarations
from p4emu.compiler.passes.resolve_types import TypeResolution
from p4emu.compiler.passes.typecheck import TypeCheck


class ProgramChecker(CompileStateView, ProgramCheck, GlobalDeclarations, BlockCheck, TypeResolution,
                     TypeCheck, StatementCheck, ParserStateCheck, TableCheck, DeclarationCheck):
    """AST -> typed IR of the whole program, in p4c's order (so the first error reported is
    the one p4c reports)."""

    def __init__(self, state: CompileState):
        self.state = state
