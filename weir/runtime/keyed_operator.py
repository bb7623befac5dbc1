"""The keyed operator protocol: what the runtime asks of every operator on a keyed stream.

As Flink's AbstractStreamOperator with its InternalTimerService: an operator is opened,
given micro-batches of records (`process_batch`, or `process_element` one by one with an
input label), told of each new watermark and processing time (it fires the timers that are
due) and of the end of a key group's input, flushed (its changed state pages and timers
written: the snapshot), released (pages forgotten) and closed. Timers are (timestamp, key,
namespace): a keyed process function's timers have no namespace, a window's timers have
the window as theirs.

The keyed process operator, the window operator, the interval join operator and the
non-keyed operator (no timers) implement it.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TYPE_CHECKING, Any, Callable, Dict, Mapping, Optional, Sequence, Tuple

from weir.runtime.context import OperatorClock, RuntimeContext
from weir.runtime.errors import call_user
from weir.runtime.timers import EVENT_TIME, PROCESSING_TIME, KeyGroupTimers, namespace_of
from weir.runtime.wire import MAX_WATERMARK

if TYPE_CHECKING:
    from weir.runtime.state.backend import KeyedStateBackend
    from weir.runtime.state.operator_state import Snapshot

Emit = Callable[[Optional[str], Any, Optional[int]], None]  # (tag_id or None, value, timestamp)


class KeyedStreamOperator(ABC):
    """An operator of one task over its active key groups: records in
    (`process_element`, or a micro-batch's in `process_batch`), timers out (`on_timer`),
    state and timers in the key groups' page stores. Each operator defines the two."""

    # Whether on_timer is ever called: an operator without timers skips the timer queues.
    handles_timers = True
    function: Any = None  # the user's function, opened and closed with the operator
    # Flink's BATCH execution (BatchExecutionInternalTimeService): timers fire only when a
    # key's input ends, event-time then processing-time, and timers registered while
    # they fire are dropped (the timer service is quiesced)
    batch_execution = False
    _quiesced = False

    def __init__(
        self,
        backend: KeyedStateBackend,
        name: str,
        subtask_index: int = 0,
        parallelism: int = 1,
        job_parameters: Optional[Mapping[str, str]] = None,
    ) -> None:
        self.backend = backend
        self.name = name
        self.clock = OperatorClock()
        backend.clock = lambda: self.clock.processing_time
        backend.state_types.owner = name
        self.active_key_groups: Sequence[int] = ()
        self._timers: Dict[int, KeyGroupTimers] = {}  # key group -> its timers
        # (set by whatever processes records or fires timers, before it emits)
        self._emit: Emit = None  # type: ignore[assignment]
        self.runtime_context = RuntimeContext(
            name, backend, subtask_index, parallelism, backend.max_parallelism, job_parameters
        )

    # -- lifecycle -------------------------------------------------------------------
    def open(self) -> None:
        """Opens the user functions; state may be read from here on."""
        if hasattr(self.function, "open"):
            self._call(self.function.open, self.runtime_context)

    def close(self) -> None:
        """Closes the user functions."""
        if hasattr(self.function, "close"):
            self._call(self.function.close)

    def flush(self) -> None:
        """Writes changed state pages and timers back to their stores (the snapshot)."""
        self.backend.flush()
        for timers in self._timers.values():
            timers.flush()

    def snapshot_operator_state(self, key_group: int) -> Optional[Tuple[int, Snapshot]]:
        """Snapshots the operator state of the instance in `key_group` into its pages, if
        the operator keeps any; returns what the driver must keep for a restart
        ((checkpoints taken, snapshot)) or None. Keyed operators keep keyed state only."""
        return None

    def release(self) -> None:
        """Flushes, then forgets every loaded page and timer (the stores stay)."""
        self.flush()
        self.backend.release()
        self._timers.clear()

    # -- records ---------------------------------------------------------------------
    @abstractmethod
    def process_element(
        self, key: Any, value: Any, timestamp: Optional[int], emit: Emit, input_label: int = 0
    ) -> None:
        """One record of `key` (of input `input_label`); outputs go to `emit`."""

    def process_batch(
        self,
        values: Sequence[Any],
        stamps: Sequence[Optional[int]],
        keys: Sequence[Any],
        emit: Emit,
    ) -> None:
        """A micro-batch's records of one input, in order: their values, timestamps and
        keys (parallel columns)."""
        process = self.process_element
        for value, timestamp, key in zip(values, stamps, keys):
            process(key, value, timestamp, emit)

    def process_labelled(
        self,
        values: Sequence[Any],
        stamps: Sequence[Optional[int]],
        inputs: Sequence[int],
        keys: Sequence[Any],
        emit: Emit,
    ) -> None:
        """A micro-batch's records of several inputs, in order: their values, timestamps,
        input labels and keys (parallel columns)."""
        process = self.process_element
        for value, timestamp, input_label, key in zip(values, stamps, inputs, keys):
            process(key, value, timestamp, emit, input_label)

    def select_key(self, key: Any) -> None:
        """Makes `key` current for state and timers."""
        self.backend.set_current_key(key)

    # -- timers ----------------------------------------------------------------------
    def timers_of(self, key_group: int) -> KeyGroupTimers:
        timers = self._timers.get(key_group)
        if timers is None:
            store = self.backend.key_group_pages(key_group).store
            timers = self._timers[key_group] = KeyGroupTimers(store)
        return timers

    def register_timer(self, domain: str, timestamp: int, namespace: Any = None) -> None:
        """A timer of the current key (in `namespace`) at `timestamp`."""
        if self._quiesced:
            return
        key = self.backend.current_key
        self.timers_of(self.backend.key_group_of(key)).register(domain, timestamp, key, namespace)

    def delete_timer(self, domain: str, timestamp: int, namespace: Any = None) -> None:
        key = self.backend.current_key
        self.timers_of(self.backend.key_group_of(key)).delete(domain, timestamp, key, namespace)

    def advance_watermark(self, watermark: int, emit: Emit) -> None:
        if self.batch_execution:
            return  # Flink's batch execution: -infinity until the input ends (end_input)
        if watermark > self.clock.watermark:
            self.clock.watermark = watermark
        self._fire(EVENT_TIME, self.clock.watermark, emit)

    def end_input(self, emit: Emit) -> None:
        """The input of the active key groups has ended: their event-time timers fire as
        at Flink's +infinity watermark (in BATCH execution its processing-time timers
        then fire too, all of them). The operator's watermark then returns to where it
        was: the input of its other key groups may go on."""
        watermark = self.clock.watermark
        self.clock.watermark = MAX_WATERMARK
        self._quiesced = self.batch_execution
        try:
            self._fire(EVENT_TIME, MAX_WATERMARK, emit)
            if self.batch_execution:
                self._fire(PROCESSING_TIME, MAX_WATERMARK, emit)
        finally:
            self.clock.watermark = watermark
            self._quiesced = False

    def advance_processing_time(self, time: int, emit: Emit) -> None:
        if time > self.clock.processing_time:
            self.clock.processing_time = time
        if not self.batch_execution:
            self._fire(PROCESSING_TIME, self.clock.processing_time, emit)

    def _fire(self, domain: str, time: int, emit: Emit) -> None:
        if not self.handles_timers:
            return
        self._emit = emit
        for key_group in list(self.active_key_groups):
            timers = self.timers_of(key_group)
            due = timers.pop_due(domain, time)
            while due is not None:
                key = due[1]
                self.select_key(key)
                self.on_timer(domain, due[0], key, namespace_of(due))
                due = timers.pop_due(domain, time)

    @abstractmethod
    def on_timer(self, domain: str, timestamp: int, key: Any, namespace: Any) -> None:
        """A due timer of `key` (already current); outputs go to self._emit."""

    # -- user code -------------------------------------------------------------------
    def _call(self, method: Callable[..., Any], *args: Any) -> Any:
        """Calls user code; an error names this operator and the user's file and line."""
        return call_user(self.name, method, *args)
