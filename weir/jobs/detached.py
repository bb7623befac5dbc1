"""A detached job's process: `python -m weir.jobs.detached JOB_ID` (weir.jobs.runner)."""

import sys

from weir.jobs.runner import main

if __name__ == "__main__":
    sys.exit(main())
