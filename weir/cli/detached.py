"""A detached job's process: `python -m weir.cli.detached JOB_ID` (weir.cli.runner)."""

import sys

from weir.cli.runner import main

if __name__ == "__main__":
    sys.exit(main())
