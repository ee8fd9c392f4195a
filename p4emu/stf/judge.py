"""Judge a run's outputs against STF expectations (pure)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from p4emu.stf.commands import Expect


def packet_matches(pattern: str | None, exact_length: bool, data: bytes) -> bool:
    """`pattern` is upper-case hex nibbles with `*` wildcards; a prefix comparison unless
    `exact_length`. None matches any packet."""
    if pattern is None:
        return True
    got = data.hex().upper()
    if len(got) < len(pattern) or (exact_length and len(got) != len(pattern)):
        return False
    return all(p == "*" or p == g for p, g in zip(pattern, got, strict=False))


@dataclass(frozen=True)
class Mismatch:
    port: int
    expected: Expect | None  # None: a packet nobody expected
    got: bytes | None  # None: the expected packet never came

    def describe(self) -> str:
        if self.expected is None:
            want = "no packet"
        elif self.expected.pattern is None:
            want = "any packet"
        else:
            want = self.expected.pattern + ("$" if self.expected.exact_length else "")
        where = f" (line {self.expected.line})" if self.expected is not None else ""
        got = "nothing" if self.got is None else self.got.hex().upper()
        return f"port {self.port}: expected {want}{where}, got {got}"


@dataclass(frozen=True)
class Verdict:
    passed: int
    mismatches: tuple[Mismatch, ...]

    @property
    def failed(self) -> int:
        return len(self.mismatches)


def judge(expects: Iterable[Expect], outputs: Mapping[int, list[bytes]],
          watched: Iterable[int]) -> Verdict:
    """Per watched port, outputs must equal the expected packets in count and order.

    Every expectation met counts as one pass; every unmet expectation and every packet
    beyond the expected ones on a watched port counts as one failure. Ports outside
    `watched` are ignored.
    """
    per_port: dict[int, list[Expect]] = {}
    for exp in expects:
        per_port.setdefault(exp.port, []).append(exp)
    passed = 0
    mismatches: list[Mismatch] = []
    for port in sorted(set(watched) | set(per_port)):
        wanted = per_port.get(port, [])
        got = outputs.get(port, [])
        for i, exp in enumerate(wanted):
            data = got[i] if i < len(got) else None
            if data is not None and packet_matches(exp.pattern, exp.exact_length, data):
                passed += 1
            else:
                mismatches.append(Mismatch(port, exp, data))
        mismatches.extend(Mismatch(port, None, extra) for extra in got[len(wanted):])
    return Verdict(passed, tuple(mismatches))
