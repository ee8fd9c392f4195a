"""Run STF files through the Python and the native pipeline and compare what they did."""

from __future__ import annotations

from pathlib import Path

from p4emu.stf.cli import build_device, run_files

P4_DIR = Path(__file__).resolve().parents[2] / "p4"
ROOT = P4_DIR.parents[1]


def stf_files(program: Path) -> list[Path]:
    """`NAME.stf` and `NAME.<case>.stf` of `NAME.p4` (the suites' convention)."""
    return sorted(s for s in program.parent.glob(program.stem + "*.stf")
                  if s.name.split(".")[0] == program.stem)


def _recorded(fresh, record: list):
    def wrapped(*args, **kwargs):
        state, process = fresh(*args, **kwargs)

        def process_recorded(port, data, now_us):
            out = process(port, data, now_us)
            record.append((port, data, now_us, list(out)))
            return out
        return state, process_recorded
    return wrapped


def run(fresh, stf: Path) -> tuple[tuple, list]:
    """(verdict, every packet's (port, data, time, outputs)) of one STF file."""
    record: list = []
    results, errors = run_files(_recorded(fresh, record), [str(stf)])
    assert not errors, errors
    (r,) = results
    verdict = (r.ok, r.passed, r.failed, tuple(r.report_lines()))
    return verdict, record


def devices(program: Path, priority_queues: int = 1):
    """(Python factory, native factory) of `program`."""
    return (build_device(str(program), [], {}, priority_queues),
            build_device(str(program), [], {}, priority_queues, native=True))


def compare(program: Path, stfs: list[Path], priority_queues: int = 1) -> list[tuple]:
    """Assert every STF of `stfs` gives the same verdict and outputs both ways; returns
    the native verdicts."""
    py, native = devices(program, priority_queues)
    verdicts = []
    for stf in stfs:
        v_py, out_py = run(py, stf)
        v_nat, out_nat = run(native, stf)
        assert v_nat == v_py, f"{stf}: verdict {v_nat} (native) != {v_py} (python)"
        assert len(out_nat) == len(out_py), stf
        for a, b in zip(out_py, out_nat, strict=True):
            assert b == a, f"{stf}: packet from port {a[0]} at {a[2]}: native {b[3]} != {a[3]}"
        verdicts.append(v_nat)
    return verdicts
