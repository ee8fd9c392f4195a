"""Entry point: `python -m endpoint send|recv ...`."""

import sys

from endpoint.cli import main

sys.exit(main())
