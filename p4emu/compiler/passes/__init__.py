"""Passes over expressions: the type checker (`typecheck`: AST -> typed IR of
`p4emu.ir.expressions`, with `check_operators`, `check_aggregates`, `check_calls`,
`conversions`), constant folding (`folding`: typed IR -> typed IR) and the emitter
(`emit`, `emit_operators`: typed IR -> Python). `ExprGen.expr` runs them in that order."""
