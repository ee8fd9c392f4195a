"""Entry point: `python -m mrclab.endpoint send|recv ...`."""

import sys

from mrclab.endpoint.cli import main

sys.exit(main())
