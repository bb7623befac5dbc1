"""The interval join operator, as Flink's IntervalJoinOperator.

Two keyed inputs; a left record at time t joins every right record of its key at times in
[t + lower, t + upper] (a right record at time t: left records in [t - upper, t - lower]).
Each input's records are buffered per key, sorted by timestamp (two parallel lists: a
record joins by two binary searches, not a scan of the buffer), until the watermark passes
the last time a record of the other input could still join them; an event-time timer (in
the namespace of its input) then drops that timestamp's records. A record behind the watermark joins
nothing: it goes to its input's late-data side output if there is one, else it is counted
in numLateRecordsDropped. Outputs carry the larger of the two timestamps.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from typing import TYPE_CHECKING, Any, Callable, Mapping, Optional, Sequence

from weir.runtime.errors import UserFunctionError, wrap_user_error
from weir.runtime.keyed_operator import Emit, KeyedStreamOperator
from weir.runtime.output_tag import split_side_output
from weir.runtime.timers import EVENT_TIME
from weir.runtime.wire import MIN_WATERMARK

if TYPE_CHECKING:
    from weir.runtime.output_tag import OutputTag
    from weir.runtime.state.backend import KeyedStateBackend

LATE_DROPPED = "numLateRecordsDropped"
BUFFERS = ("_weir_interval_join_left", "_weir_interval_join_right")
LEFT, RIGHT = 0, 1


class IntervalJoinSpec:
    """What an interval join node declares: the bounds (inclusive unless told otherwise),
    the ProcessJoinFunction and each input's late-data side output tag (or None)."""

    def __init__(
        self,
        lower: int,
        upper: int,
        function: Any,
        lower_inclusive: bool = True,
        upper_inclusive: bool = True,
        late_tag_ids: Sequence[Optional[str]] = (None, None),
    ) -> None:
        self.lower = lower if lower_inclusive else lower + 1
        self.upper = upper if upper_inclusive else upper - 1
        self.function = function
        self.late_tag_ids = tuple(late_tag_ids)


class ProcessJoinContext:
    """The `ctx` of ProcessJoinFunction.process_element(left, right, ctx)."""

    left_timestamp: int  # (both set by the operator before each call of the function)
    right_timestamp: int

    def __init__(self, emit_side: Callable[[str, Any], None]) -> None:
        self._emit_side = emit_side
        self.left_timestamp = self.right_timestamp = None  # type: ignore[assignment]

    def get_left_timestamp(self) -> int:
        return self.left_timestamp

    def get_right_timestamp(self) -> int:
        return self.right_timestamp

    def get_timestamp(self) -> int:
        return max(self.left_timestamp, self.right_timestamp)

    def output(self, output_tag: OutputTag, value: Any) -> None:
        self._emit_side(output_tag.tag_id, value)


class IntervalJoinOperator(KeyedStreamOperator):
    def __init__(
        self,
        spec: IntervalJoinSpec,
        backend: KeyedStateBackend,
        name: str,
        subtask_index: int = 0,
        parallelism: int = 1,
        job_parameters: Optional[Mapping[str, str]] = None,
    ) -> None:
        super().__init__(backend, name, subtask_index, parallelism, job_parameters)
        self.spec = spec
        self.function = spec.function
        self._process = getattr(spec.function, "process_element", spec.function)
        self.ctx = ProcessJoinContext(self._emit_side)
        self.late_dropped = self.runtime_context.get_metrics_group().counter(LATE_DROPPED)

    # -- records ---------------------------------------------------------------------
    def process_element(
        self, key: Any, value: Any, timestamp: Optional[int], emit: Emit, input_label: int = 0
    ) -> None:
        if timestamp is None:
            raise ValueError(
                f"interval join '{self.name}': a record without a timestamp; "
                "the records of an interval join need event-time timestamps "
                "(assign_timestamps_and_watermarks)"
            )
        self._emit = emit
        watermark = self.clock.watermark
        if watermark != MIN_WATERMARK and timestamp < watermark:
            self._late(value, timestamp, input_label)
            return
        self.backend.set_current_key(key)
        self._buffer(input_label, value, timestamp)
        self._join(input_label, value, timestamp)
        spec = self.spec
        if input_label == LEFT:
            cleanup = timestamp + spec.upper if spec.upper > 0 else timestamp
        else:
            cleanup = timestamp - spec.lower if spec.lower < 0 else timestamp
        self.register_timer(EVENT_TIME, cleanup, input_label)

    def _late(self, value: Any, timestamp: int, input_label: int) -> None:
        tag_id = self.spec.late_tag_ids[input_label]
        if tag_id is None:
            self.late_dropped.inc()
        else:
            self._emit(tag_id, value, timestamp)

    def _buffer(self, input_label: int, value: Any, timestamp: int) -> None:
        """Adds the record after those of the same or earlier times (usually: appends)."""
        name = BUFFERS[input_label]
        buffer = self.backend.get_entry(name)
        if buffer is None:
            self.backend.put_entry(name, ([timestamp], [value]))
            return
        times, values = buffer
        if not times or times[-1] <= timestamp:
            times.append(timestamp)
            values.append(value)
        else:
            at = bisect_right(times, timestamp)
            times.insert(at, timestamp)
            values.insert(at, value)
        self.backend.put_entry(name, buffer)

    def _join(self, input_label: int, value: Any, timestamp: int) -> None:
        """Joins the record with the other input's buffered records in its interval, in
        timestamp order."""
        others = self.backend.get_entry(BUFFERS[1 - input_label])
        if not others:
            return
        if input_label == LEFT:
            low, high = timestamp + self.spec.lower, timestamp + self.spec.upper
        else:
            low, high = timestamp - self.spec.upper, timestamp - self.spec.lower
        times, values = others
        for at in range(bisect_left(times, low), bisect_right(times, high)):
            if input_label == LEFT:
                self._collect(value, values[at], timestamp, times[at])
            else:
                self._collect(values[at], value, times[at], timestamp)

    def _collect(self, left: Any, right: Any, left_ts: int, right_ts: int) -> None:
        ctx = self.ctx
        ctx.left_timestamp, ctx.right_timestamp = left_ts, right_ts
        timestamp = left_ts if left_ts > right_ts else right_ts
        try:
            result = self._process(left, right, ctx)
            if result is None:
                return
            emit = self._emit
            for item in result:
                tag_id, output = split_side_output(item)
                emit(tag_id, output, timestamp)
        except UserFunctionError:
            raise
        except Exception as exc:
            raise wrap_user_error(exc, self.name, self._process) from exc

    def _emit_side(self, tag_id: str, value: Any) -> None:
        self._emit(tag_id, value, self.ctx.get_timestamp())

    # -- timers ----------------------------------------------------------------------
    def on_timer(self, domain: str, timestamp: int, key: Any, namespace: int) -> None:
        """Drops the bucket no record of the other input can join any more."""
        spec = self.spec
        if namespace == LEFT:
            bucket = timestamp - spec.upper if spec.upper > 0 else timestamp
        else:
            bucket = timestamp + spec.lower if spec.lower < 0 else timestamp
        name = BUFFERS[namespace]
        buffer = self.backend.get_entry(name)
        if buffer is None:
            return
        times, values = buffer
        low, high = bisect_left(times, bucket), bisect_right(times, bucket)
        if low == high:
            return
        del times[low:high], values[low:high]
        if times:
            self.backend.put_entry(name, buffer)
        else:
            self.backend.remove_entry(name)
