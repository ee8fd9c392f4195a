"""The project's loggers stay plain after Mininet is imported: INFO lines reach the root
handler once, at the level the command set (a fresh interpreter: import order matters)."""

import subprocess
import sys

CODE = """
import logging
logging.getLogger("mrclab.before")           # made before Mininet
import mrclab.lab.lab                        # imports Mininet
import mrclab.lab.soak
logging.basicConfig(level=logging.INFO, format="%(name)s %(message)s", force=True)
for name in ("mrclab.before", "mrclab.lab.soak", "mrclab.made.after"):
    logging.getLogger(name).info("hello")
"""


def test_info_lines_of_the_project_print_once_after_mininet_is_imported():
    proc = subprocess.run([sys.executable, "-c", CODE], capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0, proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.endswith("hello")]
    assert lines == ["mrclab.before hello", "mrclab.lab.soak hello", "mrclab.made.after hello"]
