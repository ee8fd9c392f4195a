"""The progress line: which experiment and phase runs, and about how long is left."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable


class Progress:
    """Prints one line per phase: elapsed time, experiment, phase k/n, estimate left.

    The estimate is the sum of the phases' own estimates still to run, rescaled by how
    long the finished ones really took (a loaded machine runs everything slower)."""

    def __init__(self, experiment: str, phases: list[tuple[str, float]],
                 write: Callable[[str], None] | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.experiment = experiment
        self.phases = list(phases)
        self.write = write or (lambda line: print(line, file=sys.stderr, flush=True))
        self.clock = clock
        self.started = clock()
        self.index = 0  # phases begun so far
        self.phase_started: float | None = None
        self.spent_on_estimated = 0.0
        self.estimated_done = 0.0

    def left(self) -> float:
        """Seconds left: the estimates of the current and later phases, rescaled by how the
        finished phases compared with theirs, less what the current one has taken."""
        start = max(self.index - 1, 0)
        rest = sum(est for _, est in self.phases[start:])
        scale = (self.spent_on_estimated / self.estimated_done) if self.estimated_done else 1.0
        spent = 0.0 if self.phase_started is None else self.clock() - self.phase_started
        return max(0.0, rest * max(scale, 0.5) - spent)

    def note(self, text: str) -> None:
        """A line that is not a phase (bring-up, calibration, writing)."""
        self.write(f"[{self._clock_text()}] {self.experiment}: {text}")

    def phase(self, name: str) -> None:
        now = self.clock()
        if self.phase_started is not None and 0 < self.index <= len(self.phases):
            self.spent_on_estimated += now - self.phase_started
            self.estimated_done += self.phases[self.index - 1][1]
        known = [n for n, _ in self.phases]
        if name in known[self.index:]:
            self.index = known.index(name, self.index) + 1
        else:
            self.index += 1
        self.phase_started = now
        total = len(self.phases)
        self.write(f"[{self._clock_text()}] {self.experiment}: {name} "
                   f"({min(self.index, total)}/{total}), about {self.left():.0f} s left")

    def _clock_text(self) -> str:
        s = int(self.clock() - self.started)
        return f"{s // 60:02d}:{s % 60:02d}"
