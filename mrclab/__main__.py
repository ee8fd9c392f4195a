import sys

from mrclab.cli import main

sys.exit(main())
