"""What user functions print in a task, shown where PyFlink shows it: in a local run, on
the job's standard output (the driver's), among the records `DataStream.print()` writes.

A task of an engine whose workers are processes of their own (Spark's Python workers)
runs with its standard output captured; the text leaves with the task's rows as a
PRINTED control, and the driver writes it out before the micro-batch's sink output. On a
cluster (a plan without `forward_prints`) nothing is captured: prints stay in the
executors' logs, as with Flink's task managers.
"""

import io
import sys
from typing import Any, List, Optional, TextIO, Tuple, cast

from weir.runtime.wire import Bundler, Channel, Control


class PrintCapture:
    """Standard output of this process, captured while it is started (a worker process
    runs one task at a time)."""

    def __init__(self, enabled: bool):
        self.enabled = enabled
        self.buffer: Optional[io.StringIO] = None
        self.saved: Optional[TextIO] = None

    def __enter__(self) -> "PrintCapture":
        if self.enabled:
            self.saved, self.buffer = sys.stdout, io.StringIO()
            sys.stdout = self.buffer
        return self

    def __exit__(self, *exc_info: object) -> None:
        if self.enabled:
            sys.stdout = self.saved

    def rows(self) -> List[Tuple[Any, ...]]:
        """The text printed since the last call, as rows for the driver ([] if none)."""
        buffer = cast(io.StringIO, self.buffer)  # (set by __enter__ when enabled)
        if not self.enabled or not buffer.tell():
            return []
        text = buffer.getvalue()
        buffer.seek(0)
        buffer.truncate()
        bundler = Bundler()
        bundler.add_control(Channel.PRINTED, Control.PRINT, payload=text)
        return bundler.rows()


def show_printed(text: str) -> None:
    """The driver's end: the text goes to its standard output as printed."""
    sys.stdout.write(text)
    sys.stdout.flush()
