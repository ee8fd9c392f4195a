"""Differential fuzzing of p4emu's compiled pipeline and traffic manager against the
Python ones, with or without sanitizers (docs/native.md, "Sanitizers and fuzzing").

- `layout`: the frames a program's parser takes, path by path (headers, field offsets,
  the select values that lead from one header to the next), read from its typed IR;
- `frames`: frame generators: valid headers with random and boundary field values,
  truncations at every header boundary, mutated STF packets, random bytes;
- `control`: random control-plane writes within the P4Info's widths (entries, defaults,
  action-profile members and groups, multicast groups, registers), applied alike to both
  sides;
- `cases`: one case, (program, seed, frames): both pipelines (or both traffic managers
  with their pipelines) fed the same inputs in lockstep, every output compared; a
  difference is reported with what reproduces it (seed, program, frame, the writes);
- `worker` (`python -m p4emu.fuzz.worker`) runs cases in a child process, `driver` starts
  the children (under AddressSanitizer and UBSan when asked: `p4emu.native.build.
  sanitizer_env`), reads their sanitizer reports from stderr and replays a crashing case
  to name its frame.

Every case is deterministic per seed: the same seed gives the same frames, writes and
outputs in any process.
"""

from __future__ import annotations
