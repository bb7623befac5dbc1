"""`python -m weir`: the `weir` command (weir.cli)."""

import sys

from weir.cli import main

sys.exit(main())
