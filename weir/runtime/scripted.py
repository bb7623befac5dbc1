"""A scripted source: each step of a script is one micro-batch (see weir.testing.TestStream).

Batch 0 is a preamble; batch i+1 runs step i. A step sets the watermark and processing time
its batch runs with. Engines compute a batch's watermark from the batches before it, so the
watermark of step i travels as a control record in the batch before it. The end of input
is a batch of its own after the last step: end-of-input timers fire there.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterator, List, Optional, Tuple

from weir.runtime.wire import END_OF_INPUT_TS, MIN_WATERMARK
from weir.runtime.sources import SourceReader

if TYPE_CHECKING:
    from weir.runtime.sources import Offset

    # (its (value, timestamp) elements, the watermark to announce for the next batch, clock)
    Batch = Tuple[List[Tuple[object, Optional[int]]], Optional[int], int]

ELEMENTS = "elements"
WATERMARK = "watermark"
PROCESSING_TIME = "processing_time"


class ScriptedReader(SourceReader):
    bounded = True

    def __init__(self, steps: List[Tuple[str, Any]], initial_processing_time: int = 0) -> None:
        self.batches = self._plan(steps, initial_processing_time)

    @staticmethod
    def _plan(steps: List[Tuple[str, Any]], clock: int) -> List[Batch]:
        """Per batch: (elements, watermark to announce for the next batch, clock)."""
        batches: List[List[Any]] = [[[], None, clock]]
        watermark = MIN_WATERMARK
        for kind, argument in steps:
            elements: List[Tuple[object, Optional[int]]] = []
            if kind == ELEMENTS:
                elements = list(argument)
            elif kind == WATERMARK:
                if argument > watermark:
                    watermark = argument
                    batches[-1][1] = min(watermark, END_OF_INPUT_TS)
            elif kind == PROCESSING_TIME:
                clock = argument
            batches.append([elements, None, clock])
        return [tuple(b) for b in batches]

    def latest_offset(self, start: Offset, limit: Optional[int] = None) -> Offset:
        if start["end"]:
            return start
        if start["pos"] >= len(self.batches):  # the end, in a batch of its own
            return {"pos": start["pos"], "end": 1}
        return {"pos": start["pos"] + 1, "end": 0}  # one step per micro-batch

    def split_count(self, start_pos: int, end_pos: int) -> int:
        return end_pos - start_pos

    def read(self, lo: int, hi: int) -> Iterator[Tuple[object, Optional[int]]]:
        for batch in self.batches[lo:hi]:
            yield from batch[0]

    def announced_watermark(self, split: Tuple[int, int, int]) -> Optional[int]:
        """The watermark this split's batch announces for the next batch, if any."""
        return self.batches[split[1]][1]

    def processing_time(self, split: Tuple[int, int, int]) -> int:
        return self.batches[split[1]][2]
