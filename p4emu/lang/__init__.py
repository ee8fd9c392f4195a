"""The P4_16 language as p4emu reads it: preprocessor, lexer, parser, syntax tree, types
and located errors (`file:line:col: error: ...`).

Nothing here depends on the code generator: `p4emu.compiler` builds on this package, and
`p4emu.frontend.compile_file` drives both.
"""
