"""Pausing Python's cyclic garbage collector around batch work.

A micro-batch allocates hundreds of thousands of short-lived records (rows, tuples, lists)
that reference counting frees by itself. With the collector on, those allocations keep
triggering collections that scan every live object: building a source's rows took ~2.7x
longer (measured: 3.9 us/row with the collector, 1.4 us without). Work done between
`paused_gc()` enter and exit runs without collections; cycles made meanwhile are collected
once the collector runs again.

Spark's reused Python workers also run a full `gc.collect()` after every task, which scans
every object the worker holds: pyspark, pandas, pyarrow and numpy alone are ~80,000 objects,
~30 ms a scan, more with weir's and the user's modules (py-spy on YSB: ~30% of all Python
worker CPU). `freeze_long_lived()`, called as a task starts, moves what the worker holds then
out of the collector's sight (gc.freeze) whenever modules were imported since it last did.
"""

import gc
import sys
from contextlib import contextmanager
from typing import Iterator

_modules_when_frozen = 0


def freeze_long_lived() -> None:
    """Freezes every object alive if modules were imported since the last freeze: later
    collections then skip them. Call it as a task starts, before the task builds its
    operator or chain. Frozen objects are still freed by reference counting, but a cycle
    among them never is: apart from modules, a freeze keeps the few objects Spark made for
    the starting task, and freezes happen only while imports go on (a task or two per
    worker)."""
    global _modules_when_frozen
    if len(sys.modules) != _modules_when_frozen:
        gc.collect()
        gc.freeze()
        _modules_when_frozen = len(sys.modules)


def thaw() -> None:
    """Gives frozen objects back to the collector (a worker drops operators it kept: their
    cycles must be collectable); the next `freeze_long_lived()` freezes again."""
    global _modules_when_frozen
    gc.unfreeze()
    _modules_when_frozen = 0


@contextmanager
def paused_gc() -> Iterator[None]:
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
