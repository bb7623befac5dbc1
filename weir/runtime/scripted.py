"""A scripted source: each step of a script is one micro-batch (see weir.testing.TestStream).

Batch 0 is a preamble; batch i+1 runs step i. A step sets the watermark and processing time
its batch runs with. Engines compute a batch's watermark from the batches before it, so the
watermark of step i travels as a control record in the batch before it. The end of input
is a batch of its own after the last step: end-of-input timers fire there.
"""

from typing import List, Optional

from weir.runtime.wire import END_OF_INPUT_TS, MIN_WATERMARK
from weir.runtime.sources import SourceReader

ELEMENTS = "elements"
WATERMARK = "watermark"
PROCESSING_TIME = "processing_time"


class ScriptedReader(SourceReader):
    bounded = True

    def __init__(self, steps: List[tuple], initial_processing_time: int = 0):
        self.batches = self._plan(steps, initial_processing_time)

    @staticmethod
    def _plan(steps, clock):
        """Per batch: (elements, watermark to announce for the next batch, clock)."""
        batches = [[[], None, clock]]
        watermark = MIN_WATERMARK
        for kind, argument in steps:
            elements = []
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

    def latest_offset(self, start: dict, limit: Optional[int] = None) -> dict:
        if start["end"]:
            return start
        if start["pos"] >= len(self.batches):  # the end, in a batch of its own
            return {"pos": start["pos"], "end": 1}
        return {"pos": start["pos"] + 1, "end": 0}  # one step per micro-batch

    def split_count(self, start_pos: int, end_pos: int) -> int:
        return end_pos - start_pos

    def read(self, lo: int, hi: int):
        for batch in self.batches[lo:hi]:
            yield from batch[0]

    def announced_watermark(self, split) -> Optional[int]:
        """The watermark this split's batch announces for the next batch, if any."""
        return self.batches[split[1]][1]

    def processing_time(self, split) -> int:
        return self.batches[split[1]][2]
