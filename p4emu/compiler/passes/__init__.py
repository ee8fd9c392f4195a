"""Passes over the AST and the typed IR (`p4emu.ir`). Name resolution before checking
(`resolve_names`, `resolve_type_names`, `resolve_table_names`: the bindings of
parser-state, match-kind and type names and of the action and instance names of tables,
which the checker reads). Checkers (AST -> typed IR), each a pass (`generated.CompilePass`)
of `checker.ProgramChecker`: the whole program (`check_program`), top-level declarations (`declare_globals`), parser/control instances
and what their code uses (`check_blocks`), expressions (`typecheck`, with
`check_operators`, `check_aggregates`, `check_calls`, `check_arguments`, `conversions`),
extern calls (`check_externs`, `check_extern_methods`), statements (`check_statements`),
parser transitions (`check_parser_states`), tables (`check_tables`, `check_table_entries`)
and declarations (`check_declarations`: constants, extern instances, value sets,
parser/control instances' constructor arguments and parameters); constant folding
(`folding`: typed IR -> typed IR); emitters, passes of `program.ProgramGen` (typed IR ->
Python: `emit`, `emit_operators`, `emit_statements`); and the checks of main's V1Switch blocks (`check_v1switch`) and the
BMv2 back-end checks over what main uses (`check_backend`)."""
