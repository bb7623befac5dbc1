"""What a window operator is built from: the plan holds this, each instance is built from it.

A WindowSpec is the declaration `window(assigner).trigger(...).evictor(...)
.allowed_lateness(...).side_output_late_data(...).<function>(...)` makes; the runtime builds
a WindowOperator from it (a copy per operator instance).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

from weir.runtime.window import triggers as t
from weir.runtime.window.vectorized_aggregates import batch_aggregation
from weir.runtime.window.contents import EvictingContents

if TYPE_CHECKING:
    from weir.runtime.window.assigners import WindowAssigner
    from weir.runtime.window.contents import Contents, ElementContents, WindowFunction
    from weir.runtime.window.evictors import Evictor
    from weir.runtime.window.vectorized_aggregates import BatchAggregation


def _event_time_only(trigger: t.Trigger[Any, Any]) -> bool:
    """Whether a built-in trigger never registers processing-time timers."""
    if type(trigger) is t.PurgingTrigger:
        return _event_time_only(trigger.nested_trigger)
    return type(trigger) in (
        t.EventTimeTrigger,
        t.ContinuousEventTimeTrigger,
        t.CountTrigger,
        t.NeverTrigger,
    )


class WindowSpec:
    def __init__(
        self,
        assigner: WindowAssigner[Any, Any],
        trigger: t.Trigger[Any, Any],
        contents: ElementContents,
        window_function: WindowFunction,
        evictor: Optional[Evictor] = None,
        allowed_lateness: int = 0,
        late_tag_id: Optional[str] = None,
    ) -> None:
        self.assigner = assigner
        self.trigger = trigger
        self.contents: Contents = EvictingContents(contents, evictor) if evictor else contents
        self.window_function = window_function
        self.allowed_lateness = allowed_lateness
        self.late_tag_id = late_tag_id
        self.merging = hasattr(assigner, "merge_windows")
        self.event_time = assigner.is_event_time()
        # Per key, a micro-batch's on-time elements can be added window by window: one state
        # read/write and timer registration per window instead of per element.
        self.batches_by_window = (
            self.event_time
            and not self.merging
            and evictor is None
            and type(trigger) is t.EventTimeTrigger
        )
        self.batch_aggregation: Optional[BatchAggregation] = (
            batch_aggregation(contents) if self.batches_by_window else None
        )
        # A batch's on-time elements cut into (key, window) groups with numpy, where the
        # assigner is a built-in event-time one (else, or with this off: per key in Python)
        self.batches_at_once = self.batches_by_window
        # Only processing-time timers need every key group woken in every micro-batch.
        self.needs_processing_time = not (self.event_time and _event_time_only(trigger))

    def user_functions(self) -> list[Any]:
        """The user's functions in this window (to open and close)."""
        return [
            f
            for f in (self.contents.user_function, self.window_function.user_function)
            if f is not None
        ]
