"""The keyed process operator: a KeyedProcessFunction over key-group state and timers.

Every keyed operation (process, reduce, rolling aggregations, keyed map/flat_map/filter)
runs as this operator with an adapter function (see adapters.py). Its sibling is the
window operator; both implement the protocol of keyed_operator.py.

A function with a `finish_bundle(select_key, ctx)` method (weir's own hook, used by the
Table API's Python aggregations, which PyFlink runs per bundle) is called after each
bundle of records (a key group's records of one micro-batch phase, or one record) and
yields outputs; `select_key(key)` makes a key current for its state.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, List, Mapping, Optional, Sequence, Tuple

from weir.runtime.context import ProcessContext, TimerService
from weir.runtime.errors import UserFunctionError, wrap_user_error
from weir.runtime.keyed_operator import Emit, KeyedStreamOperator
from weir.runtime.output_tag import split_side_output
from weir.runtime.timers import EVENT_TIME

if TYPE_CHECKING:
    from weir.runtime.state.backend import KeyedStateBackend


def _process_methods(function: Any) -> Tuple[Callable[..., Any], ...]:
    """The per-input element methods: process_element, or process_element1, 2, ..."""
    numbered: List[Callable[..., Any]] = []
    while callable(getattr(function, f"process_element{len(numbered) + 1}", None)):
        numbered.append(getattr(function, f"process_element{len(numbered) + 1}"))
    return tuple(numbered) if numbered else (function.process_element,)


class KeyedProcessOperator(KeyedStreamOperator):
    def __init__(
        self,
        function: Any,
        backend: KeyedStateBackend,
        name: str,
        subtask_index: int = 0,
        parallelism: int = 1,
        job_parameters: Optional[Mapping[str, str]] = None,
    ) -> None:
        super().__init__(backend, name, subtask_index, parallelism, job_parameters)
        self.function = function
        self._output_ts: Optional[int] = None
        self.ctx = ProcessContext(
            TimerService(self.clock, self), self._emit_side, self._set_output_timestamp
        )
        self._processes = _process_methods(function)
        self._on_timer = getattr(function, "on_timer", None)
        self._finish_bundle = getattr(function, "finish_bundle", None)
        self.handles_timers = self._on_timer is not None

    # -- elements and timers ---------------------------------------------------------
    def process_element(
        self, key: Any, value: Any, timestamp: Optional[int], emit: Emit, input_label: int = 0
    ) -> None:
        """One record of input `input_label` (an operator of two inputs calls its
        function's process_element1 or process_element2, as Flink's)."""
        self.backend.set_current_key(key)
        ctx = self.ctx
        ctx.current_key = key
        ctx.current_timestamp = timestamp
        ctx.current_time_domain = None
        self._emit, self._output_ts = emit, timestamp
        self._collect(self._processes[input_label], value, ctx)
        if self._finish_bundle is not None:
            self._collect(self._finish_bundle, self.select_key, ctx)

    def process_batch(
        self,
        values: Sequence[Any],
        stamps: Sequence[Optional[int]],
        keys: Sequence[Any],
        emit: Emit,
    ) -> None:
        """process_element for each record of one input (values, timestamps and keys as
        columns), in one loop (a keyed job's hottest path: one call level less per record)."""
        select, ctx, method = self.backend.set_current_key, self.ctx, self._processes[0]
        collect = self._collect
        ctx.current_time_domain = None
        self._emit = emit
        for value, timestamp, key in zip(values, stamps, keys):
            select(key)
            ctx.current_key = key
            ctx.current_timestamp = self._output_ts = timestamp
            collect(method, value, ctx)
        if self._finish_bundle is not None and len(values):
            collect(self._finish_bundle, self.select_key, ctx)

    def select_key(self, key: Any) -> None:
        self.backend.set_current_key(key)
        self.ctx.current_key = key

    def on_timer(self, domain: str, timestamp: int, key: Any, namespace: Any) -> None:
        ctx = self.ctx
        ctx.current_timestamp = timestamp
        ctx.current_time_domain = domain
        self._output_ts = timestamp if domain == EVENT_TIME else None
        # (timers fire only where the function has on_timer: handles_timers)
        self._collect(self._on_timer, timestamp, ctx)  # type: ignore[arg-type]

    # -- output ----------------------------------------------------------------------
    def _emit_side(self, tag_id: str, value: Any) -> None:
        self._emit(tag_id, value, self._output_ts)

    def _set_output_timestamp(self, timestamp: int) -> None:
        self._output_ts = timestamp

    def _collect(self, method: Callable[..., Any], argument: Any, ctx: ProcessContext) -> None:
        try:
            result = method(argument, ctx)
            if result is None:
                return
            emit = self._emit
            for item in result:  # (the timestamp read after the item is made)
                emit(*split_side_output(item), self._output_ts)
        except UserFunctionError:
            raise
        except Exception as exc:
            raise wrap_user_error(exc, self.name, method) from exc
