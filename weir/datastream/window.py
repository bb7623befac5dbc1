"""Windows, assigners, triggers and evictors (`pyflink.datastream.window` -> here).

Evictors are Flink's Java API (PyFlink has none): WindowedStream.evictor(...).
"""

from weir.runtime.window.assigners import (  # noqa: F401
    CountSlidingWindowAssigner,
    CountTumblingWindowAssigner,
    DynamicEventTimeSessionWindows,
    DynamicProcessingTimeSessionWindows,
    EventTimeSessionWindows,
    GlobalWindows,
    MergingWindowAssigner,
    ProcessingTimeSessionWindows,
    SessionWindowTimeGapExtractor,
    SlidingEventTimeWindows,
    SlidingProcessingTimeWindows,
    TumblingEventTimeWindows,
    TumblingProcessingTimeWindows,
    WindowAssigner,
)
from weir.runtime.window.evictors import (  # noqa: F401
    CountEvictor,
    DeltaEvictor,
    Evictor,
    TimeEvictor,
)
from weir.runtime.window.triggers import (  # noqa: F401
    ContinuousEventTimeTrigger,
    ContinuousProcessingTimeTrigger,
    CountTrigger,
    EventTimeTrigger,
    NeverTrigger,
    ProcessingTimeTrigger,
    PurgingTrigger,
    Trigger,
    TriggerResult,
)
from weir.runtime.window.windows import (  # noqa: F401
    CountWindow,
    GlobalWindow,
    TimestampedValue,
    TimeWindow,
    Window,
)
from weir.common.gaps import module_gaps  # noqa: E402

__getattr__ = module_gaps(
    __name__,
    "pyflink.datastream.window",
    ["CountWindowSerializer", "GlobalWindowSerializer", "TimeWindowSerializer"],
)
