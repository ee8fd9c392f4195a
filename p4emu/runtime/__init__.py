"""Run-time state of a p4emu device: tables, action profiles, externs, replication.

Pure logic, no I/O. Built from a `ProgramInfo` (see `model`), used by the pipeline,
the P4Runtime server and the STF runner alike.

- `device.DeviceState.from_program(info, port_up=..., clock_us=...)`: every object below,
  in dicts keyed by full name and by P4Info id; `resolve_*` for STF-style suffixes.
- `tables.Table` / `entries.TableEntry` / `entries.LookupResult`: entries and lookups.
- `action_profiles.ActionProfile`: members, groups (weights, watch ports), selection.
- `counters`, `meters`, `registers`, `value_sets`, `digests`, `pre`: the other externs.
- `match`: FieldMatch values (Exact, Lpm, Ternary, Range, Optional); `hashes`: algorithms.
- `errors`: typed errors, each naming the P4Runtime status code it maps to.
"""
