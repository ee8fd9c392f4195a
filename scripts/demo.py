"""`make demo`: bring up fat-tree k=4, program it, pingall, print a summary table.

Same as `mrclab demo [--topo SPEC] [--target auto|p4emu|bmv2]`; needs root.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from mrclab.cli import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main(["demo", *sys.argv[1:]]))
