"""Every tests/p4/mrc/*.stf through mrclab/p4src/mrc.p4's native pipeline: the same verdict (all
expectations met) and the same output packets as the Python pipeline."""

from __future__ import annotations

import pytest

from tests.unit.native.compare import P4_DIR, ROOT, compare

PROGRAM = ROOT / "mrclab" / "p4src" / "mrc.p4"
STF_FILES = sorted((P4_DIR / "mrc").glob("*.stf"))
PRIORITY_QUEUES = 2  # as tests/unit/dataplane/test_mrc_stf.py


def test_suite_present():
    assert len(STF_FILES) >= 20


@pytest.mark.parametrize("stf", STF_FILES, ids=[p.name for p in STF_FILES])
def test_mrc_stf_same_as_python(stf):
    (verdict,) = compare(PROGRAM, [stf], PRIORITY_QUEUES)
    ok, passed, failed, _ = verdict
    assert ok and passed > 0 and failed == 0
