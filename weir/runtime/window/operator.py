"""Flink's window operator: a keyed operator whose state and timers are per window.

Per element: assign windows, merge session windows, add the element to each window's
contents, ask the trigger, fire/purge, register the window's cleanup timer. Per timer: ask
the trigger, fire/purge, and at the cleanup time (window end + allowed lateness) drop the
window's contents, trigger state, per-window state and timers.

The window is the namespace of its state and its timers (as Flink's InternalTimerService<W>),
so a key with many open windows reads and writes only the windows a batch touches.
"""

from __future__ import annotations

from typing import (
    TYPE_CHECKING,
    Any,
    Callable,
    Collection,
    Iterable,
    Iterator,
    Mapping,
    Optional,
    Sequence,
)

from weir.runtime.keyed_operator import KeyedStreamOperator
from weir.runtime.output_tag import split_side_output
from weir.runtime.wire import MAX_WATERMARK
from weir.runtime.state.descriptors import ValueStateDescriptor
from weir.runtime.timers import EVENT_TIME, PROCESSING_TIME
from weir.runtime.window.vectorized_windows import assign_windows as assign_vectorized_windows
from weir.runtime.window.vectorized_windows import group_windows, key_ids_of
from weir.runtime.window.contents import ENTRY, EvictingContents
from weir.runtime.window.contexts import ProcessWindowContext, WindowTriggerContext
from weir.runtime.window.evictors import Evictor
from weir.runtime.window.merging import MergingWindowSet
from weir.runtime.window.spec import WindowSpec
from weir.runtime.window.windows import TimeWindow
from weir.runtime.window.namespaces import NamespacedStateStore, NamespaceView

if TYPE_CHECKING:
    import numpy as np

    from weir.runtime.context import RuntimeContext
    from weir.runtime.keyed_operator import Emit
    from weir.runtime.state.backend import KeyedStateBackend
    from weir.runtime.window.triggers import TriggerResult
    from weir.runtime.window.vectorized_windows import WindowGroups
    from weir.runtime.window.windows import Window

    Item = tuple[Any, Optional[int]]  # (value, timestamp)
    # (window, update, argument): the window's contents become update(contents, argument)
    Update = tuple[Window, Callable[[Any, Any], Any], Any]
    # (key, None, its updates), or (key, its items, None) for a key with late data
    KeyGroup = tuple[Any, Optional[list[Item]], Optional[list[Update]]]

LATE_DROPPED = "numLateRecordsDropped"  # Flink's metric name


class _AssignerContext:
    def __init__(self, operator: WindowOperator) -> None:
        self._operator = operator

    def get_current_processing_time(self) -> int:
        return self._operator.clock.processing_time

    def get_runtime_context(self) -> RuntimeContext:
        return self._operator.runtime_context


class WindowOperator(KeyedStreamOperator):
    def __init__(
        self,
        spec: WindowSpec,
        backend: KeyedStateBackend,
        name: str,
        subtask_index: int = 0,
        parallelism: int = 1,
        job_parameters: Optional[Mapping[str, str]] = None,
    ) -> None:
        super().__init__(backend, name, subtask_index, parallelism, job_parameters)
        self.spec = spec
        self.assigner = spec.assigner
        self.trigger = spec.trigger
        self.contents = spec.contents
        self.window_function = spec.window_function
        self.allowed_lateness = spec.allowed_lateness
        self.late_tag_id = spec.late_tag_id
        self.merging = spec.merging
        self.event_time = spec.event_time
        self.batches_by_window = spec.batches_by_window
        self.batch_aggregation = spec.batch_aggregation
        self.batches_at_once = spec.batches_at_once
        self.key: Any = None
        self.late_dropped = self.runtime_context.get_metrics_group().counter(LATE_DROPPED)
        self.window_contents = NamespaceView(backend, "_weir_window_contents")
        self.trigger_state = NamespacedStateStore(NamespaceView(backend, "_weir_trigger_state"))
        self.window_state = NamespacedStateStore(NamespaceView(backend, "_weir_window_state"))
        self.merging_windows = self.runtime_context.get_state(
            ValueStateDescriptor("_weir_merging_windows")
        )
        self.trigger_ctx = WindowTriggerContext(self)
        self.process_ctx = ProcessWindowContext(self)
        self.assigner_ctx = _AssignerContext(self)
        self.evictor_ctx = Evictor.EvictorContext(self.clock)

    # -- lifecycle --------------------------------------------------------------------
    def open(self) -> None:
        for function in self.spec.user_functions():
            if hasattr(function, "open"):
                self._call(function.open, self.runtime_context)

    def close(self) -> None:
        for function in self.spec.user_functions():
            if hasattr(function, "close"):
                self._call(function.close)

    def select_key(self, key: Any) -> None:
        self.backend.set_current_key(key)
        self.key = key

    def collect(self, tag_id: Optional[str], value: Any, timestamp: Optional[int]) -> None:
        self._emit(tag_id, value, timestamp)

    # -- time helpers -----------------------------------------------------------------
    def cleanup_time(self, window: Window) -> int:
        if not self.event_time:
            return window.max_timestamp()
        return min(window.max_timestamp() + self.allowed_lateness, MAX_WATERMARK)

    def is_window_late(self, window: Window) -> bool:
        return self.event_time and self.cleanup_time(window) <= self.clock.watermark

    def _register_cleanup_timer(self, window: Window) -> None:
        self._cleanup_timer(window, self.register_timer)

    def _delete_cleanup_timer(self, window: Window) -> None:
        self._cleanup_timer(window, self.delete_timer)

    def _cleanup_timer(self, window: Window, action: Callable[[str, int, Any], None]) -> None:
        time = self.cleanup_time(window)
        if time != MAX_WATERMARK:  # windows that never end are never cleaned up
            action(EVENT_TIME if self.event_time else PROCESSING_TIME, time, window)

    # -- elements ---------------------------------------------------------------------
    def process_batch(
        self,
        values: Sequence[Any],
        stamps: Sequence[Optional[int]],
        keys: Sequence[Any],
        emit: Emit,
    ) -> None:
        """A micro-batch's records (values, timestamps and keys as columns), with the same
        results as one by one.

        With the event-time trigger, an element into a window that the watermark has not
        passed only adds to the window and registers its timer. So the batch is cut into
        (key, window) groups, and each group is added to its window at once: one state
        write and one timer per window. A key with late data (an element in a window the
        watermark has passed, or in no window and beyond the allowed lateness) goes
        element by element instead. Over built-in event-time windows the groups are cut
        with numpy (vectorized_windows), and a built-in aggregation's partial results are
        computed for the whole batch (vectorized_aggregates); otherwise per key in Python.
        """
        if not self.batches_by_window:
            super().process_batch(values, stamps, keys, emit)
            return
        self._emit = emit
        if values:
            self._call(self._add_batch, values, stamps, keys)

    def _add_batch(
        self, values: Sequence[Any], stamps: Sequence[Optional[int]], keys: Sequence[Any]
    ) -> None:
        groups: Optional[Iterable[KeyGroup]] = (
            self.vectorized_groups(values, stamps, keys) if self.batches_at_once else None
        )
        if groups is None:
            groups = self.groups_per_key(values, stamps, keys)
        for key, late_items, updates in groups:
            if late_items is None:  # (then there are updates)
                self._store_windows(key, updates)  # type: ignore[arg-type]
            else:
                self._one_by_one(key, late_items)

    def groups_per_key(
        self, values: Sequence[Any], stamps: Sequence[Optional[int]], keys: Sequence[Any]
    ) -> Iterator[KeyGroup]:
        """(key, None, [(window, add, its elements)]) per key in arrival order, or (key,
        its items, None) for a key with late data: any assigner, in Python."""
        by_key: dict[Any, list[Item]] = {}
        for key, value, timestamp in zip(keys, values, stamps):
            items = by_key.get(key)
            if items is None:
                by_key[key] = [(value, timestamp)]
            else:
                items.append((value, timestamp))
        for key, items in by_key.items():
            yield self._key_groups(key, items)

    def _key_groups(self, key: Any, items: list[Item]) -> KeyGroup:
        watermark = self.clock.watermark
        assign, context = self.assigner.assign_windows, self.assigner_ctx
        by_window: dict[Window, list[Item]] = {}
        for value, timestamp in items:
            windows = assign(value, timestamp, context)
            # (event time: the assigner has raised for a None timestamp)
            if not windows and timestamp + self.allowed_lateness <= watermark:  # type: ignore[operator]
                return key, items, None  # late, in no window: counted
            for window in windows:
                if window.max_timestamp() <= watermark:
                    return key, items, None
                elements = by_window.get(window)
                if elements is None:
                    by_window[window] = [(value, timestamp)]
                else:
                    elements.append((value, timestamp))
        return (
            key,
            None,
            [(window, self._add_all, elements) for window, elements in by_window.items()],
        )

    def _add_all(self, stored: Any, elements: list[Item]) -> Any:
        add = self.contents.add
        for value, timestamp in elements:
            stored = add(stored, value, timestamp)
        return stored

    def _one_by_one(self, key: Any, items: list[Item]) -> None:
        """A key's items element by element (it has late data)."""
        self.select_key(key)
        for value, timestamp in items:
            self._process_element(value, timestamp)

    def vectorized_groups(
        self, values: Sequence[Any], stamps: Sequence[Optional[int]], keys: Sequence[Any]
    ) -> Optional[list[KeyGroup]]:
        """The groups of groups_per_key, cut with numpy, keys in order of first arrival;
        None where vectorized_windows/vectorized_aggregates cannot give the element-by-
        element results (an assigner that is not a built-in one)."""
        assigned = assign_vectorized_windows(self.assigner, stamps)
        if assigned is None:
            return None
        key_ids, unique_keys = key_ids_of(keys)
        # (assigned: the assigner is a built-in tumbling or sliding one, which has a size)
        groups = group_windows(
            key_ids,
            len(unique_keys),
            assigned,
            self.assigner.size,  # type: ignore[attr-defined]
            self.clock.watermark,
            self.allowed_lateness,
        )
        aggregation = self.batch_aggregation
        partials: Optional[Sequence[Any]]
        combine: Callable[[Any, Any], Any]
        if aggregation is not None:
            partials, combine = aggregation.partials(values, groups), aggregation.combine
        else:  # the user's functions add each group's elements, in order
            partials, combine = _group_items(values, stamps, groups), self._add_all
        if partials is None:
            return None
        late_items = self._late_items(groups.late_keys, key_ids, values, stamps)
        size: int = self.assigner.size  # type: ignore[attr-defined]  # (as above)
        order, group_keys = groups.emit_order.tolist(), groups.key_ids.tolist()
        starts, index = groups.starts.tolist(), 0
        result: list[KeyGroup] = []
        for key_id, key in enumerate(unique_keys):
            end = index
            while end < len(order) and group_keys[end] == key_id:
                end += 1
            if key_id in late_items:
                result.append((key, late_items[key_id], None))
            else:
                result.append(
                    (
                        key,
                        None,
                        [
                            (TimeWindow(starts[g], starts[g] + size), combine, partials[order[g]])
                            for g in range(index, end)
                        ],
                    )
                )
            index = end
        return result

    @staticmethod
    def _late_items(
        late_keys: np.ndarray,
        key_ids: np.ndarray,
        values: Sequence[Any],
        stamps: Sequence[Optional[int]],
    ) -> dict[int, list[Item]]:
        """{key id: its (value, timestamp) items} of the keys that met a passed window."""
        if not late_keys.any():
            return {}
        late_items: dict[int, list[Item]] = {}
        for key_id, late, value, timestamp in zip(
            key_ids.tolist(), late_keys[key_ids].tolist(), values, stamps
        ):
            if late:
                late_items.setdefault(key_id, []).append((value, timestamp))
        return late_items

    def _store_windows(self, key: Any, updates: list[Update]) -> None:
        """For each (window, update, argument): the window's contents become
        update(contents, argument), and the window's timers are registered."""
        self.select_key(key)
        view = self.window_contents
        register = self.register_timer
        for window, update, argument in updates:
            view.namespace = window
            view.put_entry(ENTRY, update(view.get_entry(ENTRY), argument))
            end = window.max_timestamp()
            register(EVENT_TIME, end, window)  # EventTimeTrigger's timer
            if self.cleanup_time(window) != end:
                self._register_cleanup_timer(window)

    def process_element(
        self, key: Any, value: Any, timestamp: Optional[int], emit: Emit, input_label: int = 0
    ) -> None:
        self.select_key(key)
        self._emit = emit
        self._call(self._process_element, value, timestamp)

    def _process_element(self, value: Any, timestamp: Optional[int]) -> None:
        windows = self.assigner.assign_windows(value, timestamp, self.assigner_ctx)
        if self.merging:
            skipped = self._process_merging(value, timestamp, windows)
        else:
            skipped = True
            for window in windows:
                if self.is_window_late(window):
                    continue
                skipped = False
                self._add_and_trigger(window, window, value, timestamp)
        # (event time: the assigner has raised for a None timestamp)
        if (
            skipped
            and self.event_time
            and timestamp + self.allowed_lateness  # type: ignore[operator]
            <= self.clock.watermark
        ):
            if self.late_tag_id is not None:
                self.collect(self.late_tag_id, value, timestamp)
            else:
                self.late_dropped.inc()

    def _add_and_trigger(
        self, window: Window, state_window: Window, value: Any, timestamp: Optional[int]
    ) -> None:
        view = self.window_contents
        view.namespace = state_window
        view.put_entry(ENTRY, self.contents.add(view.get_entry(ENTRY), value, timestamp))
        self.trigger_ctx.window = window
        result = self.trigger.on_element(value, timestamp, window, self.trigger_ctx)
        self._act(result, window, state_window)
        self._register_cleanup_timer(window)

    def _process_merging(
        self, value: Any, timestamp: Optional[int], windows: Collection[Window]
    ) -> bool:
        # (self.merging: the assigner has merge_windows)
        merging = MergingWindowSet(
            self.assigner,  # type: ignore[arg-type]
            self.merging_windows.value(),
        )
        skipped = True
        for window in windows:
            actual = merging.add_window(window, self._merge)
            if self.is_window_late(actual):
                merging.retire_window(actual)
                continue
            skipped = False
            state_window = merging.state_window(actual)
            # (add_window has mapped `actual` to its state window)
            self._add_and_trigger(
                actual,
                state_window,  # type: ignore[arg-type]
                value,
                timestamp,
            )
        self._persist(merging)
        return skipped

    def _merge(
        self,
        merge_result: Window,
        merged_windows: list[Window],
        state_window: Window,
        merged_state_windows: list[Window],
    ) -> None:
        if self.event_time and self.cleanup_time(merge_result) <= self.clock.watermark:
            raise RuntimeError(
                f"the end timestamp of an event-time window cannot become earlier than the "
                f"current watermark by merging: {merge_result}, watermark "
                f"{self.clock.watermark}"
            )
        if not self.event_time and merge_result.max_timestamp() <= self.clock.processing_time:
            raise RuntimeError(
                f"the end timestamp of a processing-time window cannot become earlier than "
                f"the current processing time by merging: {merge_result}"
            )
        ctx = self.trigger_ctx
        ctx.window, ctx.merged_windows = merge_result, merged_windows
        self.trigger.on_merge(merge_result, ctx)
        ctx.merged_windows = ()
        for window in merged_windows:
            ctx.window = window
            self.trigger.clear(window, ctx)
            self._delete_cleanup_timer(window)
        self.window_contents.merge_namespaces(
            ENTRY, state_window, merged_state_windows, self.contents.merge
        )

    def _persist(self, merging: MergingWindowSet) -> None:
        if merging.changed:
            self.merging_windows.update(merging.mapping or None)

    # -- timers -----------------------------------------------------------------------
    def on_timer(self, domain: str, timestamp: int, key: Any, window: Window) -> None:
        if self.batches_by_window:  # EventTimeTrigger, no merging, no evictor
            self._call(self._on_event_time_trigger_timer, timestamp, window)
        else:
            self._call(self._on_window_timer, domain, timestamp, window)

    def _on_event_time_trigger_timer(self, timestamp: int, window: Window) -> None:
        """_on_window_timer with EventTimeTrigger's decisions inlined: fire at the window's
        end, drop everything at its cleanup time. Its clear() would delete the timer at
        the window's end, which has always fired (or is this one) by the cleanup time."""
        if timestamp == window.max_timestamp():
            self._fire_window(window, window)
        if timestamp == self.cleanup_time(window):
            self.window_contents.drop_namespace(window)
            self.process_ctx._window = window
            self.window_function.clear(self.process_ctx)
            self.window_state.view.drop_namespace(window)

    def _on_window_timer(self, domain: str, timestamp: int, window: Window) -> None:
        merging: Optional[MergingWindowSet] = None
        state_window: Optional[Window]
        state_window = window
        if self.merging:
            # (self.merging: the assigner has merge_windows)
            merging = MergingWindowSet(
                self.assigner,  # type: ignore[arg-type]
                self.merging_windows.value(),
            )
            state_window = merging.state_window(window)
            if state_window is None:
                return  # the window was merged away (or is gone) since the timer was set
        self.trigger_ctx.window = window
        if domain == EVENT_TIME:
            result = self.trigger.on_event_time(timestamp, window, self.trigger_ctx)
        else:
            result = self.trigger.on_processing_time(timestamp, window, self.trigger_ctx)
        self._act(result, window, state_window)
        if (domain == EVENT_TIME) == self.event_time and timestamp == self.cleanup_time(window):
            self._clear_all_state(window, state_window, merging)
        if merging is not None:
            self._persist(merging)

    def _clear_all_state(
        self, window: Window, state_window: Window, merging: Optional[MergingWindowSet]
    ) -> None:
        self.window_contents.drop_namespace(state_window)
        self.trigger_ctx.window = window
        self.trigger.clear(window, self.trigger_ctx)
        self.process_ctx._window = window
        self.window_function.clear(self.process_ctx)
        self.window_state.view.drop_namespace(window)
        if merging is not None:
            merging.retire_window(window)

    # -- firing -----------------------------------------------------------------------
    def _act(self, result: TriggerResult, window: Window, state_window: Window) -> None:
        if result.is_fire():
            self._fire_window(window, state_window)
        if result.is_purge():
            self.window_contents.drop_namespace(state_window)

    def _fire_window(self, window: Window, state_window: Window) -> None:
        view = self.window_contents
        view.namespace = state_window
        stored = view.get_entry(ENTRY)
        if stored is None:
            return
        if isinstance(self.contents, EvictingContents):
            elements, kept = self.contents.evaluate(stored, window, self.evictor_ctx)
            view.namespace = state_window
            if kept:
                view.put_entry(ENTRY, kept)
            else:
                view.remove_entry(ENTRY)
            if elements is None:
                return
        else:
            elements = self.contents.result(stored)
        self.process_ctx._window = window
        results = self.window_function.process(self.key, window, self.process_ctx, elements)
        if results is not None:
            timestamp = window.max_timestamp()
            for item in results:
                tag_id, value = split_side_output(item)
                self.collect(tag_id, value, timestamp)


def _group_items(
    values: Sequence[Any], stamps: Sequence[Optional[int]], groups: WindowGroups
) -> list[list[Item]]:
    """The (value, timestamp) items of each (key, window) group, in arrival order."""
    rows = groups.rows.tolist()
    return [
        [(values[i], stamps[i]) for i in rows[start : start + size]]
        for start, size in zip(groups.bounds.tolist(), groups.sizes.tolist())
    ]
