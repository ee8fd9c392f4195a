"""The short version of the differential fuzzing (`make fuzz` is the long one): seeded
cases of generated frames and writes through the Python and the compiled pipeline (and
traffic managers) of mrc.p4 and a spread of the corpus, outputs identical; the same under
AddressSanitizer and UBSan in a child process, 0 reports; and the fuzzer's own parts
(parser paths, determinism, a planted bug found and reported with what reproduces it)."""

from __future__ import annotations

import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from p4emu.compiler import load_ir
from p4emu.frontend import compile_file
from p4emu.fuzz import driver
from p4emu.fuzz.cases import Loaded, Target, run_pipeline_case, run_tm_case
from p4emu.fuzz.frames import FrameGen, get_bits, set_bits
from p4emu.fuzz.layout import parser_paths
from p4emu.native import build
from p4emu.native.cgen import check_program
from tests.unit.native.compare import P4_DIR, ROOT, stf_files

MRC = Target("mrc.p4", ROOT / "mrclab" / "p4src" / "mrc.p4",
             tuple(sorted((P4_DIR / "mrc").glob("*.stf"))) + (ROOT / "scripts" / "bench_mrc.stf",))
# one program per feature the C must get right on odd input: stacks, lookahead/advance,
# checksums over the payload, selectors, multicast, short headers, key types, signed
# arithmetic, MRI's stack of records, packet lengths
SPREAD = ["header_stack.p4", "lookahead_advance.p4", "checksum_payload.p4",
          "action_selector.p4", "multicast.p4", "parser/f2_short.p4", "tables/f2_keytypes.p4",
          "expressions/f2_signed.p4", "tutorials/fid_mri.p4", "v1model_semantics/f4_pktlen.p4"]


def _target(name: str) -> Target:
    program = P4_DIR / name
    return Target(name, program, tuple(stf_files(program)))


@pytest.fixture(scope="module")
def mrc() -> Loaded:
    return Loaded.load(MRC)


def test_the_spread_is_in_the_corpus_and_inside_the_subset():
    from tests.unit.native.refusals import REFUSED

    for name in SPREAD:
        assert (P4_DIR / name).exists(), name
        assert name not in REFUSED, name
        assert stf_files(P4_DIR / name), name


def test_parser_paths_of_mrc_p4_lead_to_every_header():
    program = load_ir(compile_file(str(MRC.program)).ir)
    paths = parser_paths(dict(check_program(program).roles)["parser"])
    ends = {p.states[-1]: p for p in paths}
    assert set(ends) >= {"parse_packet_out", "parse_ethernet", "parse_ipv4", "parse_tcp",
                         "parse_udp", "parse_mrc", "parse_probe"}
    assert ends["parse_packet_out"].port == 255  # select on standard_metadata.ingress_port
    mrc = ends["parse_mrc"]
    assert [h for h, _, _ in mrc.headers] == ["hdr.ethernet", "hdr.ipv4", "hdr.udp", "hdr.mrc"]
    assert mrc.length == 14 + 20 + 8 + 40 and mrc.boundaries() == [0, 14, 34, 42, 82]
    frame = FrameGen(__import__("random").Random(1), [mrc], []).from_path(mrc)
    for c in mrc.constraints:  # etherType 0x0800, IHL 5, no fragment, UDP, port 4793
        if len(frame) * 8 >= c.offset + c.width:
            assert get_bits(frame, c.offset, c.width) & c.mask == c.value


def test_bits_are_set_and_read_msb_first():
    buf = bytearray(4)
    set_bits(buf, 4, 12, 0xABC)
    assert buf == bytearray.fromhex("0abc0000") and get_bits(buf, 4, 12) == 0xABC
    set_bits(buf, 15, 2, 3)
    assert buf == bytearray.fromhex("0abd8000")


def test_mrc_p4_pipelines_agree_on_fuzzed_frames(mrc):
    total = forwarded = 0
    for seed in range(3):
        result = run_pipeline_case(mrc, seed, 700)
        assert not result.findings, "\n".join(f.describe() for f in result.findings)
        total += result.frames
        forwarded += result.forwarded
        assert set(result.strategies) == {"path", "seed", "cut", "noise"}
    assert total == 2100 and forwarded > 300  # not only drops


def test_mrc_p4_traffic_managers_agree_on_fuzzed_frames(mrc):
    for seed in range(2):
        result = run_tm_case(mrc, seed, 400)
        assert not result.findings, "\n".join(f.describe() for f in result.findings)
        assert result.frames == 400 and result.forwarded > 50


@pytest.mark.parametrize("name", SPREAD)
def test_corpus_pipelines_agree_on_fuzzed_frames(name):
    loaded = Loaded.load(_target(name))
    result = run_pipeline_case(loaded, 5, 300)
    assert not result.findings, "\n".join(f.describe() for f in result.findings)
    assert result.frames == 300


def test_a_case_is_the_same_for_the_same_seed(mrc):
    a, b = run_pipeline_case(mrc, 42, 300), run_pipeline_case(mrc, 42, 300)
    assert (a.frames, a.forwarded, a.strategies) == (b.frames, b.forwarded, b.strategies)
    c = run_pipeline_case(mrc, 43, 300)
    assert (c.forwarded, c.strategies) != (a.forwarded, a.strategies)


def test_plan_splits_frames_over_programs_and_takes_turns():
    targets = [Target(n, Path(n)) for n in ("a", "b", "c")]
    cases = driver.plan_cases(targets, 10_000, seed=3, case_frames=1000, shares={"a": 0.5})
    by = {n: sum(f for _, t, _, f in cases if t == n) for n in "abc"}
    assert by == {"a": 5000, "b": 2500, "c": 2500}
    assert [t for _, t, _, _ in cases[:3]] == ["a", "b", "c"]  # turns
    assert [k for k, t, _, _ in cases if t == "b"] == ["pipeline", "tm", "pipeline"]
    assert len({s for _, _, s, _ in cases}) == len(cases)
    assert cases == driver.plan_cases(targets, 10_000, 3, 1000, shares={"a": 0.5})


def test_a_planted_difference_is_found_and_reported_with_its_input(tmp_path, monkeypatch):
    """csum16 that drops the odd last byte: checksum_payload.p4 tells it at once."""
    import p4emu.native.cgen as cgen

    rt = tmp_path / "rt"
    shutil.copytree(cgen.RT, rt)
    text = (rt / "runtime.h").read_text()
    planted = text.replace("if (n & 1) total += (uint64_t)b[n - 1] << 8;", "")
    assert planted != text
    (rt / "runtime.h").write_text(planted)
    monkeypatch.setattr(cgen, "RT", rt)
    loaded = Loaded.load(_target("checksum_payload.p4"))
    found = [f for seed in range(5) for f in run_pipeline_case(loaded, seed, 500).findings]
    assert found
    f = found[0]
    assert f.kind == "output" and f.target == "checksum_payload.p4" and f.frame
    assert "python [" in f.detail and "native [" in f.detail
    assert f"seed {f.seed}" in f.describe() and f.frame in f.describe()
    # the reported frame alone shows it
    from p4emu.fuzz.cases import _Side
    from p4emu.native.pipeline import NativePipeline
    from p4emu.v1model.pipeline import Pipeline

    setups = [None, *loaded.setups]
    frame = bytes.fromhex(f.frame)
    assert any(_Side(loaded, Pipeline, 0, s).pipe.process(f.port, frame, 0)
               != _Side(loaded, NativePipeline, 0, s).pipe.process(f.port, frame, 0)
               for s in setups)


# -- the sanitized build ---------------------------------------------------------------------
needs_asan = pytest.mark.skipif(build.runtime_library(build.compiler()) is None,
                                reason="the C compiler has no shared ASan runtime")


def _sanitized(script: str) -> subprocess.CompletedProcess:
    env = build.sanitizer_env()
    return subprocess.run([sys.executable, "-c", textwrap.dedent(script)], env=env,
                          capture_output=True, text=True, timeout=600, cwd=str(ROOT))


@needs_asan
def test_sanitized_fuzzing_of_mrc_p4_reports_nothing():
    """The CI's sanitized run: mrc.p4 (pipelines and traffic managers) and header stacks in
    a child with ASan and UBSan; every report would end it."""
    cases = [("pipeline", "mrc.p4", 11, 600), ("tm", "mrc.p4", 12, 200),
             ("pipeline", "header_stack.p4", 13, 300)]
    summary = driver.run([MRC, _target("header_stack.p4")], cases, sanitize=True, jobs=1)
    assert summary.findings == [], "\n".join(summary.lines())
    assert summary.frames == 1100 and summary.cases == 3


@needs_asan
def test_a_sanitizer_report_ends_the_child_and_is_found():
    """A module that reads past its buffer, and one with signed overflow: each report is
    fatal and names the fault."""
    overrun = _sanitized("""
        from p4emu.native.build import build, PLACEHOLDER
        src = '''
        #define PY_SSIZE_T_CLEAN
        #include <Python.h>
        #include <stdlib.h>
        static PyObject *f(PyObject *m, PyObject *a) {
            long n = PyLong_AsLong(a);
            char *b = malloc(8);
            int x = b[n];
            free(b);
            return PyLong_FromLong(x);
        }
        static PyMethodDef ms[] = {{"f", f, METH_O, NULL}, {NULL}};
        static struct PyModuleDef d = {PyModuleDef_HEAD_INIT, "PH", NULL, -1, ms};
        PyMODINIT_FUNC PyInit_PH(void) { return PyModule_Create(&d); }
        '''.replace("PH", PLACEHOLDER)
        m = build(src)
        m.f(3)
        print("in bounds ok", flush=True)
        m.f(8)
        print("not reached")
    """)
    assert "in bounds ok" in overrun.stdout and "not reached" not in overrun.stdout
    assert overrun.returncode != 0
    report = driver.sanitizer_report(overrun.stderr)
    assert report is not None and ("heap-buffer-overflow" in report
                                   or "insufficient space for an object" in report)
    overflow = _sanitized("""
        from p4emu.native.build import build, PLACEHOLDER
        src = '''
        #define PY_SSIZE_T_CLEAN
        #include <Python.h>
        static PyObject *f(PyObject *m, PyObject *a) {
            int n = (int)PyLong_AsLong(a);
            return PyLong_FromLong(n + 2147483647);
        }
        static PyMethodDef ms[] = {{"f", f, METH_O, NULL}, {NULL}};
        static struct PyModuleDef d = {PyModuleDef_HEAD_INIT, "PH", NULL, -1, ms};
        PyMODINIT_FUNC PyInit_PH(void) { return PyModule_Create(&d); }
        '''.replace("PH", PLACEHOLDER)
        m = build(src)
        m.f(1)
    """)
    assert overflow.returncode != 0
    report = driver.sanitizer_report(overflow.stderr)
    assert report is not None and "signed integer overflow" in report
