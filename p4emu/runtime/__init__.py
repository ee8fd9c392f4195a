"""Run-time state of a p4emu device: tables, action profiles, externs, replication.

Pure logic, no I/O. Built from a `ProgramInfo` (see `model`), used by the pipeline,
the P4Runtime server and the STF runner alike.
"""
