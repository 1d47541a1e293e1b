"""`python -m srcad ...`: the same command line as the `srcad` console script (see srcad/cli.py)."""
import sys

from .cli import main

sys.exit(main())
