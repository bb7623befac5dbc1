"""TestStream: a scripted source for testing jobs step by step (in the spirit of Beam's).

Every step is one micro-batch, on the in-process runner and on Spark alike:

    stream = (TestStream()
              .add_elements(TimestampedValue(("a", 1), 1), TimestampedValue(("a", 2), 7))
              .advance_watermark_to(9)          # the next batch runs at watermark 9
              .advance_processing_time(1_000)   # ... and 1 s later on the test clock
              .add_elements(TimestampedValue(("a", 3), 4)))
    env.from_source(stream, WatermarkStrategy.no_watermarks(), "test")

Step i runs in batch i + 1 (batch 0 is a preamble); the batch after the last step runs at
the +infinity watermark of the end of input. The TestStream sets the watermark itself: do
not add a watermark strategy that emits watermarks. Its test clock is the processing time
of the first keyed operator downstream (and of the whole job on the in-process runner).
"""

from typing import Any, List, Optional, Tuple

from weir.runtime.wire import MAX_WATERMARK
from weir.runtime.scripted import ELEMENTS, PROCESSING_TIME, WATERMARK, ScriptedReader
from weir.runtime.window.windows import TimestampedValue


class TestStream:
    __test__ = False  # not a pytest test class

    def __init__(self, type_info=None, initial_processing_time: int = 0):
        self.type_info = type_info
        self.initial_processing_time = initial_processing_time
        self.steps: List[Tuple[str, Any]] = []
        self._clock = initial_processing_time
        self._watermark: Optional[int] = None

    def add_elements(self, *elements) -> "TestStream":
        """Elements as TimestampedValue(value, ts), or plain values without a timestamp."""
        records = []
        for element in elements:
            if isinstance(element, TimestampedValue):
                records.append((element.value, element.timestamp))
            else:
                records.append((element, None))
        self.steps.append((ELEMENTS, records))
        return self

    def advance_watermark_to(self, timestamp: int) -> "TestStream":
        if timestamp <= 0:
            raise ValueError(
                f"TestStream watermarks must be positive (engines start at 0), got {timestamp}"
            )
        if self._watermark is not None and timestamp < self._watermark:
            raise ValueError(f"the watermark cannot go back: {timestamp} < {self._watermark}")
        self._watermark = timestamp
        self.steps.append((WATERMARK, int(timestamp)))
        return self

    def advance_watermark_to_infinity(self) -> "TestStream":
        return self.advance_watermark_to(MAX_WATERMARK)

    def advance_processing_time(self, advance_by_ms: int) -> "TestStream":
        if advance_by_ms < 0:
            raise ValueError("processing time cannot go back")
        self._clock += int(advance_by_ms)
        self.steps.append((PROCESSING_TIME, self._clock))
        return self

    def create_reader(self) -> ScriptedReader:
        return ScriptedReader(self.steps, self.initial_processing_time)

    @staticmethod
    def batch_of_step(step_index: int) -> int:
        """The micro-batch id step `step_index` runs in."""
        return step_index + 1
