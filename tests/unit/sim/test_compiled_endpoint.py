"""The endpoint compiled by mypyc (`mrclab.endpoint.compiled`: the same source files) gives
the same records as the pure-Python endpoint, byte for byte, on reduced quick runs of the
simulated experiments: each engine runs them all in a child process of its own
(`MRCLAB_ENDPOINT_COMPILED=1` and `0`; the two children run at once), and their
`results.json` are compared, wall-clock fields aside.

Never skipped: without a build of the sources as they are in the cache, the test builds
one into a temporary cache first (a minute or so; `make endpoint` or scripts/setup.sh
keep the cache's up to date)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from mrclab.endpoint import compiled
from tests.unit.sim.machine_free import machine_free

# Options of each reduced quick run (the two engines run the same list)
RUNS = {
    "permutation": {"duration": "110us", "modes": ["ev", "source"]},
    "incast": {},
    "failure": {"modes": ["ev"]},
    "planes": {"rate": "10G"},
    "signals": {},
    "failover": {"modes": ["ev"], "duration": "360us", "fail_at": "150us,250us"},
    "collective": {"iterations": 1, "scenarios": ["baseline"]},
}

_CHILD = """
import json, sys
from pathlib import Path
from mrclab.endpoint import compiled
from mrclab.experiments import runner
from mrclab.experiments.config import Options
import mrclab.endpoint.core.sender as sender

out, runs = Path(sys.argv[1]), json.loads(sys.argv[2])
for name, opts in runs.items():
    opts = {k: tuple(v) if isinstance(v, list) else v for k, v in opts.items()}
    runner.run(Options(name, quick=True, engine="sim", **opts), out / name)
print(json.dumps({"compiled": compiled.active(), "sender": sender.__file__}))
"""


@pytest.fixture(scope="module")
def cache(tmp_path_factory) -> Path:
    """A cache holding the build of the sources as they are: the usual one when it does,
    else a temporary one built now."""
    root = compiled.cache_root()
    if compiled.built(compiled.build_key(compiled.source_digests()), root) is None:
        root = tmp_path_factory.mktemp("endpoint-cache")
        compiled.build(root=root, quiet=True)
    return root


def _start(engine: str, out: Path, cache: Path) -> subprocess.Popen:
    env = {**os.environ, compiled.ENV: engine, compiled.CACHE_ENV: str(cache),
           "PYTHONHASHSEED": "0"}
    return subprocess.Popen([sys.executable, "-c", _CHILD, str(out), json.dumps(RUNS)],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)


def _finish(proc: subprocess.Popen) -> dict:
    stdout, stderr = proc.communicate(timeout=600)
    assert proc.returncode == 0, stderr[-3000:]
    return json.loads(stdout.strip().splitlines()[-1])


def _records(out: Path, name: str) -> str:
    results = json.loads((out / name / "results.json").read_text())
    return json.dumps(machine_free(results), sort_keys=True)


def test_the_compiled_endpoint_s_records_are_identical_to_the_python_one_s(cache, tmp_path):
    native = _start("1", tmp_path / "compiled", cache)
    python = _start("0", tmp_path / "python", cache)
    ran_native, ran_python = _finish(native), _finish(python)
    assert ran_native["compiled"] and not ran_native["sender"].endswith(".py")
    assert not ran_python["compiled"] and ran_python["sender"].endswith(".py")
    for name in RUNS:
        records = _records(tmp_path / "compiled", name)
        assert '"packet_hops"' in records  # real traffic was compared
        assert records == _records(tmp_path / "python", name), name
