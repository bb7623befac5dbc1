"""Pausing Python's cyclic garbage collector around batch work.

A micro-batch allocates hundreds of thousands of short-lived records (rows, tuples, lists)
that reference counting frees by itself. With the collector on, those allocations keep
triggering collections that scan every live object: building a source's rows took ~2.7x
longer (measured: 3.9 us/row with the collector, 1.4 us without). Work done between
`paused_gc()` enter and exit runs without collections; cycles made meanwhile are collected
once the collector runs again.
"""

import gc
from contextlib import contextmanager


@contextmanager
def paused_gc():
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
