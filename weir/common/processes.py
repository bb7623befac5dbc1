"""Whether a process runs (by its id), for the job directory and the class archive."""

import os


def process_alive(pid: int | None) -> bool:
    """Whether process `pid` runs (one that ended, a zombie included, does not)."""
    if not pid:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:  # a zombie (exited, not yet reaped by its parent) is not running
        with open(f"/proc/{pid}/stat", encoding="ascii") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return True
