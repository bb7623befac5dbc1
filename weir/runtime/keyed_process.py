"""The keyed process operator: a KeyedProcessFunction over key-group state and timers.

Every keyed operation (process, reduce, rolling aggregations, keyed map/flat_map/filter)
runs as this operator with an adapter function (see adapters.py).
"""

from typing import Callable, Iterable

from weir.runtime.context import (OperatorClock, ProcessContext, RuntimeContext,
                                  TimerService)
from weir.runtime.errors import UserFunctionError, wrap_user_error
from weir.runtime.output_tag import split_side_output
from weir.runtime.timers import EVENT_TIME, PROCESSING_TIME, KeyGroupTimers

Emit = Callable[[object, object, object], None]  # (tag_id or None, value, timestamp)


def _process_methods(function) -> tuple:
    """The per-input element methods: process_element, or process_element1, 2, ..."""
    numbered = []
    while callable(getattr(function, f"process_element{len(numbered) + 1}", None)):
        numbered.append(getattr(function, f"process_element{len(numbered) + 1}"))
    return tuple(numbered) if numbered else (function.process_element,)


class KeyedProcessOperator:
    def __init__(self, function, backend, name: str,
                 subtask_index=0, parallelism=1, job_parameters=None):
        self.function = function
        self.backend = backend
        self.name = name
        self.clock = OperatorClock()
        backend.clock = lambda: self.clock.processing_time
        self.active_key_groups: Iterable[int] = ()
        self._timers = {}
        self._emit: Emit = None
        self._output_ts = None
        self.runtime_context = RuntimeContext(
            name, backend, subtask_index, parallelism, backend.max_parallelism, job_parameters)
        self.ctx = ProcessContext(TimerService(self.clock, self._timers_of_current_key),
                                  self._emit_side, self.clock, self._emit_timestamped)
        self._processes = _process_methods(function)
        self._on_timer = getattr(function, "on_timer", None)

    # -- lifecycle -------------------------------------------------------------------
    def open(self) -> None:
        if hasattr(self.function, "open"):
            self._call(self.function.open, self.runtime_context)

    def close(self) -> None:
        if hasattr(self.function, "close"):
            self._call(self.function.close)

    def flush(self) -> None:
        """Writes changed state pages and timers back to their stores."""
        self.backend.flush()
        for timers in self._timers.values():
            timers.flush()

    def release(self) -> None:
        """Flushes, then forgets every loaded page and timer (the stores stay)."""
        self.flush()
        self.backend.release()
        self._timers.clear()

    # -- timers ----------------------------------------------------------------------
    def timers_of(self, key_group: int) -> KeyGroupTimers:
        timers = self._timers.get(key_group)
        if timers is None:
            store = self.backend.key_group_pages(key_group).store
            timers = self._timers[key_group] = KeyGroupTimers(store)
        return timers

    def _timers_of_current_key(self):
        key = self.backend.current_key
        return self.timers_of(self.backend.key_group_of(key)), key

    # -- elements and time -----------------------------------------------------------
    def process_element(self, key, value, timestamp, emit: Emit, input_label: int = 0) -> None:
        """One record of input `input_label` (an operator of two inputs calls its
        function's process_element1 or process_element2, as Flink's)."""
        self.backend.set_current_key(key)
        ctx = self.ctx
        ctx.current_key = key
        ctx.current_timestamp = timestamp
        ctx.current_time_domain = None
        self._emit, self._output_ts = emit, timestamp
        self._collect(self._processes[input_label], value, ctx)

    def process_elements(self, records, key_selector, emit: Emit) -> None:
        """Processes (seq, value, timestamp) records in order; a function with a
        process_batch(records, key_selector, operator) method takes them all at once."""
        process_batch = getattr(self.function, "process_batch", None)
        if process_batch is not None:
            self._emit = emit
            self._call(process_batch, records, key_selector, self)
            return
        process = self.process_element
        for _, value, timestamp in records:
            process(key_selector(value), value, timestamp, emit)

    def select_key(self, key) -> None:
        """Makes `key` current for state and timers (for batch-processing functions)."""
        self.backend.set_current_key(key)
        self.ctx.current_key = key

    def advance_watermark(self, watermark: int, emit: Emit) -> None:
        if watermark > self.clock.watermark:
            self.clock.watermark = watermark
        self._fire(EVENT_TIME, self.clock.watermark, emit)

    def advance_processing_time(self, time: int, emit: Emit) -> None:
        if time > self.clock.processing_time:
            self.clock.processing_time = time
        self._fire(PROCESSING_TIME, self.clock.processing_time, emit)

    def _fire(self, domain: str, time: int, emit: Emit) -> None:
        if self._on_timer is None:
            return
        ctx = self.ctx
        for key_group in list(self.active_key_groups):
            timers = self.timers_of(key_group)
            due = timers.pop_due(domain, time)
            while due is not None:
                timestamp, key = due
                self.backend.set_current_key(key)
                ctx.current_key = key
                ctx.current_timestamp = timestamp
                ctx.current_time_domain = domain
                self._emit = emit
                self._output_ts = timestamp if domain == EVENT_TIME else None
                self._collect(self._on_timer, timestamp, ctx)
                due = timers.pop_due(domain, time)

    # -- output ----------------------------------------------------------------------
    def _emit_timestamped(self, tag_id, value, timestamp) -> None:
        self._emit(tag_id, value, timestamp)

    def _emit_side(self, tag_id, value) -> None:
        self._emit(tag_id, value, self._output_ts)

    def _collect(self, method, argument, ctx) -> None:
        try:
            result = method(argument, ctx)
            if result is None:
                return
            emit, timestamp = self._emit, self._output_ts
            for item in result:
                tag_id, value = split_side_output(item)
                emit(tag_id, value, timestamp)
        except UserFunctionError:
            raise
        except Exception as exc:
            raise wrap_user_error(exc, self.name, method) from exc

    def _call(self, method, *args):
        try:
            return method(*args)
        except UserFunctionError:
            raise
        except Exception as exc:
            raise wrap_user_error(exc, self.name, method) from exc
