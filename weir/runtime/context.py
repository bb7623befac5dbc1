"""The contexts user functions receive: RuntimeContext, process contexts, timer service."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Dict, Mapping, Optional

from weir.runtime.metrics import MetricGroup
from weir.runtime.wire import MIN_WATERMARK
from weir.runtime.state.states import KeyedStateStore, as_value_descriptor, create_state
from weir.runtime.timers import EVENT_TIME, PROCESSING_TIME

if TYPE_CHECKING:
    from weir.runtime.keyed_operator import KeyedStreamOperator
    from weir.runtime.output_tag import OutputTag
    from weir.runtime.state.backend import KeyedStateBackend
    from weir.runtime.state.descriptors import StateDescriptor
    from weir.runtime.state.states import KeyedState


class TimeDomain:
    EVENT_TIME = EVENT_TIME
    PROCESSING_TIME = PROCESSING_TIME


class OperatorClock:
    """The current watermark and processing time an operator instance sees."""

    def __init__(self) -> None:
        self.watermark = MIN_WATERMARK
        self.processing_time = 0


class RuntimeContext(KeyedStateStore):
    """PyFlink's RuntimeContext: task facts and, on keyed streams, keyed state."""

    def __init__(
        self,
        task_name: str,
        backend: Optional[KeyedStateBackend] = None,
        subtask_index: int = 0,
        parallelism: int = 1,
        max_parallelism: int = 128,
        job_parameters: Optional[Mapping[str, str]] = None,
    ) -> None:
        self._task_name = task_name
        self._backend = backend
        self._subtask_index = subtask_index
        self._parallelism = parallelism
        self._max_parallelism = max_parallelism
        self._job_parameters = dict(job_parameters or {})
        self._states: Dict[str, KeyedState] = {}
        self._metrics = MetricGroup()

    @property
    def keyed_state_backend(self) -> Optional[KeyedStateBackend]:
        """The keyed state backend (for operators built on keyed state, not for users)."""
        return self._backend

    def get_task_name(self) -> str:
        return self._task_name

    def get_index_of_this_subtask(self) -> int:
        return self._subtask_index

    def get_number_of_parallel_subtasks(self) -> int:
        return self._parallelism

    def get_max_number_of_parallel_subtasks(self) -> int:
        return self._max_parallelism

    def get_metrics_group(self) -> MetricGroup:
        return self._metrics

    def get_job_parameter(self, key: str, default_value: Optional[str] = None) -> Optional[str]:
        return self._job_parameters.get(key, default_value)

    def _state(self, descriptor: StateDescriptor, kind: str) -> KeyedState:
        if self._backend is None:
            raise RuntimeError(
                f"operator '{self._task_name}': keyed state is only available "
                "on a keyed stream (use key_by first)"
            )
        if kind == "value" and descriptor.kind in ("list", "map"):
            descriptor = as_value_descriptor(descriptor)  # (PyFlink's get_state)
        state = self._states.get(descriptor.name)
        if state is None:
            state = create_state(self._backend, descriptor, kind)
            self._backend.declare_state(descriptor)
            self._states[descriptor.name] = state
        return state


class TimerService:
    """ctx.timer_service(): the clocks, and timers of the current key (through `operator`,
    a keyed operator; None on a non-keyed stream)."""

    def __init__(
        self, clock: OperatorClock, operator: Optional[KeyedStreamOperator] = None
    ) -> None:
        self._clock = clock
        self._operator = operator

    def current_processing_time(self) -> int:
        return self._clock.processing_time

    def current_watermark(self) -> int:
        return self._clock.watermark

    def _keyed(self) -> KeyedStreamOperator:
        if self._operator is None:
            raise RuntimeError("timers can only be used on a keyed stream (use key_by first)")
        return self._operator

    def register_event_time_timer(self, timestamp: int) -> None:
        self._keyed().register_timer(EVENT_TIME, int(timestamp))

    def delete_event_time_timer(self, timestamp: int) -> None:
        self._keyed().delete_timer(EVENT_TIME, int(timestamp))

    def register_processing_time_timer(self, timestamp: int) -> None:
        self._keyed().register_timer(PROCESSING_TIME, int(timestamp))

    def delete_processing_time_timer(self, timestamp: int) -> None:
        self._keyed().delete_timer(PROCESSING_TIME, int(timestamp))


class ProcessContext:
    """The `ctx` of process_element (and, with `time_domain`, of on_timer)."""

    def __init__(
        self,
        timer_service: TimerService,
        emit_side: Callable[[str, Any], None],
        stamp: Optional[Callable[[int], None]] = None,
    ) -> None:
        self._timer_service = timer_service
        self._emit_side = emit_side
        self._stamp = stamp  # (sets the timestamp of what is emitted next)
        self.current_timestamp: Optional[int] = None
        self.current_key: Any = None
        self.current_time_domain: Optional[str] = None

    def timestamp(self) -> int:
        """The record's (or timer's) timestamp; Long.MIN_VALUE for a record without one,
        as in Flink."""
        timestamp = self.current_timestamp
        return MIN_WATERMARK if timestamp is None else timestamp

    def timer_service(self) -> TimerService:
        return self._timer_service

    def get_current_key(self) -> Any:
        return self.current_key

    def time_domain(self) -> Optional[str]:
        return self.current_time_domain

    def output(self, output_tag: OutputTag, value: Any) -> None:
        self._emit_side(output_tag.tag_id, value)

    def _stamp_outputs(self, timestamp: int) -> None:
        """weir's operators (CEP): what is emitted next carries `timestamp`, where
        Flink's operator sets its output's timestamp (a match's: its last event's)."""
        if self._stamp is None:
            raise RuntimeError("this context cannot set its outputs' timestamps")
        self._stamp(timestamp)
