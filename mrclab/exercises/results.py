"""Check results, the score and the report a student reads (pure)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from mrclab.exercises.catalog import Check

PASS, FAIL, SKIP = "pass", "FAIL", "skip"


@dataclass(frozen=True)
class CheckResult:
    name: str
    status: str  # PASS | FAIL | SKIP
    points: int  # the check's weight
    detail: str = ""  # what was measured or what went wrong
    hint: str = ""  # shown on failure
    seconds: float = 0.0

    @property
    def earned(self) -> int:
        return self.points if self.status == PASS else 0

    def to_json(self) -> dict:
        return asdict(self)


def result_for(check: Check, passed: bool, detail: str, seconds: float = 0.0) -> CheckResult:
    return CheckResult(check.name, PASS if passed else FAIL, check.points, detail,
                       "" if passed else check.hint, round(seconds, 2))


def skipped(check: Check, why: str) -> CheckResult:
    return CheckResult(check.name, SKIP, check.points, why)


@dataclass
class Report:
    exercise: str
    results: list[CheckResult] = field(default_factory=list)

    @property
    def earned(self) -> int:
        return sum(r.earned for r in self.results)

    @property
    def possible(self) -> int:
        """Points of the checks that ran: skipped ones (no root) do not count against."""
        return sum(r.points for r in self.results if r.status != SKIP)

    @property
    def passed(self) -> bool:
        return self.possible > 0 and self.earned == self.possible

    def score_line(self) -> str:
        ran = [r for r in self.results if r.status != SKIP]
        ok = sum(r.status == PASS for r in ran)
        line = (f"score {self.exercise}: {self.earned}/{self.possible} points "
                f"({ok}/{len(ran)} checks passed)")
        skips = len(self.results) - len(ran)
        return line + (f", {skips} skipped" if skips else "")

    def lines(self) -> list[str]:
        return [line for r in self.results for line in result_lines(r)] + [self.score_line()]


def result_lines(r: CheckResult) -> list[str]:
    """A result as the student reads it: status, name, points, detail; the hint on failure."""
    detail = f" - {r.detail}" if r.detail else ""
    out = [f"[{r.status}] {r.name} ({r.points} pt){detail}"]
    if r.status == FAIL and r.hint:
        out.append(f"       hint: {r.hint}")
    return out
