"""The front end's checker: `ProgramChecker.check_program` turns the program's AST into its
typed IR (`p4emu.ir`, the whole program: `p4emu.ir.blocks.Program`) before anything is
emitted: it resolves names and types, infers the types of expressions, folds what is
constant and makes p4c's and v1model's checks, raising `P4CompileError` at the first
error. It never writes generated code: the emitter (`program.ProgramGen`) then walks that
IR.

`ProgramChecker` is the driver: it constructs the checker's passes over one shared
`CompileState` and connects them (each `generated.CompilePass` names the passes it calls,
`USES`). Each pass checks one kind of construct, in `passes/`:

- `whole_program`, `WholeProgramChecker` (`check_program.py`): the whole program:
  top-level declarations, main's blocks, the blocks main does not use;
- `global_decls`, `GlobalDeclarer` (`declare_globals.py`): top-level declarations, bound
  in the global scope;
- `blocks`, `BlockChecker` (`check_blocks.py`): parser/control instances whole, and what
  their code uses (actions, functions, `T.apply()` instances) after it;
- `types`, `TypeResolver` (`resolve_types.py`): type references, header/struct/union fields;
- `exprs`, `ExpressionChecker` (`typecheck.py`): expressions, with `operators`
  (`OperatorChecker`, `check_operators.py`), `aggregates` (`AggregateChecker`,
  `check_aggregates.py`), `calls` (`CallChecker`, `check_calls.py`), `arguments`
  (`ArgumentChecker`, `check_arguments.py`), `extern_functions` (`ExternFunctionChecker`,
  `check_externs.py`) and `extern_methods` (`ExternMethodChecker`,
  `check_extern_methods.py`); conversions are functions (`conversions.py`);
- `stmts`, `StatementChecker` (`check_statements.py`): statements and blocks;
  `parser_states`, `ParserStateChecker` (`check_parser_states.py`): transitions;
- `tables`, `TableChecker` (`check_tables.py`) with `table_entries`, `TableEntryChecker`
  (`check_table_entries.py`): tables; `declarations`, `DeclarationChecker`
  (`check_declarations.py`): constants, block instances, value sets, extern instances.

A piece of a program (an expression, a statement) is checked inside one, through
`fragments.ProgramFragments`: the passes assume a whole program.

The whole-program checks over the IR of main's blocks are functions:
`passes/check_v1switch.py` (here) and `passes/check_backend.py` (after emission, over
what was generated).
"""

from __future__ import annotations

from p4emu.compiler.generated import CompilePass, CompileState, CompileStateView, connect_passes
from p4emu.compiler.passes.check_aggregates import AggregateChecker
from p4emu.compiler.passes.check_arguments import ArgumentChecker
from p4emu.compiler.passes.check_blocks import BlockChecker
from p4emu.compiler.passes.check_calls import CallChecker
from p4emu.compiler.passes.check_declarations import DeclarationChecker
from p4emu.compiler.passes.check_extern_methods import ExternMethodChecker
from p4emu.compiler.passes.check_externs import ExternFunctionChecker
from p4emu.compiler.passes.check_operators import OperatorChecker
from p4emu.compiler.passes.check_parser_states import ParserStateChecker
from p4emu.compiler.passes.check_program import WholeProgramChecker
from p4emu.compiler.passes.check_statements import StatementChecker
from p4emu.compiler.passes.check_table_entries import TableEntryChecker
from p4emu.compiler.passes.check_tables import TableChecker
from p4emu.compiler.passes.declare_globals import GlobalDeclarer
from p4emu.compiler.passes.resolve_types import TypeResolver
from p4emu.compiler.passes.typecheck import ExpressionChecker
from p4emu.ir import blocks as B
from p4emu.lang import ast as A


class ProgramChecker(CompileStateView):
    """AST -> typed IR of the whole program, in p4c's order (so the first error reported is
    the one p4c reports), by its passes over the shared `state`."""

    def __init__(self, state: CompileState):
        self.state = state
        # the passes, by the names they use each other by (`CompilePass.USES`)
        self.whole_program = WholeProgramChecker(state)
        self.global_decls = GlobalDeclarer(state)
        self.blocks = BlockChecker(state)
        self.types = TypeResolver(state)
        self.exprs = ExpressionChecker(state)
        self.operators = OperatorChecker(state)
        self.aggregates = AggregateChecker(state)
        self.calls = CallChecker(state)
        self.arguments = ArgumentChecker(state)
        self.extern_functions = ExternFunctionChecker(state)
        self.extern_methods = ExternMethodChecker(state)
        self.stmts = StatementChecker(state)
        self.parser_states = ParserStateChecker(state)
        self.tables = TableChecker(state)
        self.table_entries = TableEntryChecker(state)
        self.declarations = DeclarationChecker(state)
        connect_passes(self.passes())

    def passes(self) -> dict[str, CompilePass]:
        """The checker's passes by name."""
        return {name: p for name, p in vars(self).items() if isinstance(p, CompilePass)}

    def check_program(self, program: A.Program) -> B.Program:
        """The typed IR of the whole `program`."""
        return self.whole_program.check_program(program)

    def declare_program(self, program: A.Program) -> tuple[list, A.InstanceDecl | None]:
        """`program`'s names resolved and its top-level declarations declared, before any of
        its code is checked (`WholeProgramChecker.declare_program`)."""
        return self.whole_program.declare_program(program)
