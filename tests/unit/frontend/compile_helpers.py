"""Compile a P4 source with `python -m p4emu compile`, in-process, as a user would."""

from __future__ import annotations

import contextlib
import io
import types
from pathlib import Path

from p4emu.compile_cmd import main as compile_main


def compile_source(tmp_path: Path, name: str, source: str, p4info: bool = False):
    """Run `python -m p4emu compile` in-process; returns (source path, result with
    returncode/stdout/stderr)."""
    src = tmp_path / f"{name}.p4"
    src.write_text(source)
    argv = [str(src), "-o", str(tmp_path / f"{name}.json")]
    if p4info:
        argv += ["--p4runtime-files", str(tmp_path / f"{name}.txtpb")]
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = compile_main(argv)
        except SystemExit as e:  # argparse
            rc = e.code
    return src, types.SimpleNamespace(returncode=rc, stdout=out.getvalue(), stderr=err.getvalue())


_BASE = """#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; bit<16> b; }
struct headers { h_t h; }
struct meta_t { bit<8> m; }
parser P(packet_in pkt, out headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    %(states)s
}
control VC(inout headers hdr, inout meta_t meta) { apply { } }
%(globals)s
control I(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    %(locals)s
    apply {
        %(body)s
    }
}
control E(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
"""
_START = "state start { pkt.extract(hdr.h); transition accept; }"


def v1model_program(globals="", locals="", body="", states=_START) -> str:
    """A V1Switch program with the pieces filled in (struct headers { h_t h; }, meta.m)."""
    return _BASE % dict(globals=globals, locals=locals, body=body, states=states)
