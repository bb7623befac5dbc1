"""KeyedOperatorHarness: drives a keyed operator without Spark, as Flink's test harnesses.

Feed elements, advance the watermark and processing time, take a snapshot and restore it
into a fresh operator between any two calls; read what the operator emitted. Elements go
one by one (`process_element`, Flink's path) or a micro-batch at a time, key group by key
group, as the engines run them (`process_micro_batch`).
"""

import copy
from collections import defaultdict

from weir.runtime import adapters
from weir.runtime.broadcast import BROADCAST_INPUT, BroadcastSpec
from weir.runtime.interval_join import IntervalJoinSpec
from weir.runtime.key_groups import DEFAULT_MAX_PARALLELISM
from weir.runtime.keyed_batch import process_key_group_batch
from weir.runtime.operator_factory import create_keyed_operator
from weir.runtime.state.backend import KeyedStateBackend, MemoryPageStore
from weir.runtime.window.spec import WindowSpec
from weir.runtime.wire import AFTER_WATERMARK, BEFORE_WATERMARK, RecordColumns, make_seq


class KeyedOperatorHarness:
    """Hosts a KeyedProcessFunction (or an adapter, or a window's WindowSpec) over
    in-memory key-group stores.

    An operator of two inputs (process_element1/process_element2, as Flink's
    KeyedCoProcessFunction) takes a key selector per input, as a tuple: feed it with
    `process_element1`/`process_element2` (or `process_element(..., input_label=i)`).
    """

    def __init__(
        self,
        function,
        key_selector,
        max_parallelism=DEFAULT_MAX_PARALLELISM,
        pages_per_key_group=1,
        name="operator-under-test",
        snapshot=None,
        batch_execution=False,
    ):
        self.batch_execution = batch_execution  # Flink's BATCH mode: timers fire at the end
        self._prototype = function
        selectors = key_selector if isinstance(key_selector, tuple) else (key_selector,)
        self.key_selectors = tuple(adapters.resolve(k, "get_key") for k in selectors)
        self.key_selector = self.key_selectors[0]
        self.max_parallelism = max_parallelism
        self.pages_per_key_group = pages_per_key_group
        self.name = name
        self.outputs = []
        self.side_outputs = defaultdict(list)
        self.stores = defaultdict(MemoryPageStore)
        if snapshot is not None:
            for key_group, pages in snapshot["stores"].items():
                self.stores[key_group] = MemoryPageStore(pages)
        self.operator = self._new_operator(snapshot)

    def _new_operator(self, snapshot):
        function = self._operator_function(copy.deepcopy(self._prototype))
        backend = KeyedStateBackend(
            lambda kg: self.stores[kg], self.max_parallelism, self.pages_per_key_group
        )
        operator = create_keyed_operator(function, backend, self.name)
        operator.batch_execution = self.batch_execution
        if snapshot is not None:
            operator.clock.watermark = snapshot["watermark"]
            operator.clock.processing_time = snapshot["processing_time"]
        operator.open()
        return operator

    def _operator_function(self, function):
        """A window's or interval join's spec as it is; a function wrapped as the plan
        wraps it."""
        if isinstance(function, (WindowSpec, IntervalJoinSpec, BroadcastSpec)):
            return function
        two_inputs = len(self.key_selectors) == 2
        method = "process_element1" if two_inputs else "process_element"
        if not hasattr(function, method):
            raise TypeError(
                f"the harness needs an object with {method} for "
                f"{len(self.key_selectors)} key selector(s), or a WindowSpec"
            )
        if two_inputs:
            return adapters.KeyedCoProcess(function)
        if isinstance(function, adapters._KeyedAdapter):
            return function
        return adapters.KeyedProcess(function)

    def _emit(self, tag_id, value, timestamp):
        if tag_id is None:
            self.outputs.append((value, timestamp))
        else:
            self.side_outputs[tag_id].append((value, timestamp))

    def _all_key_groups(self):
        return sorted(self.stores)

    def process_element(self, value, timestamp=None, input_label: int = 0):
        key = self.key_selectors[input_label](value)
        self.operator.active_key_groups = (self.operator.backend.key_group_of(key),)
        self.operator.process_element(key, value, timestamp, self._emit, input_label)
        self.operator.flush()
        return self

    def process_element1(self, value, timestamp=None):
        return self.process_element(value, timestamp, 0)

    def process_element2(self, value, timestamp=None):
        return self.process_element(value, timestamp, 1)

    def broadcast_element(self, value, timestamp=None):
        """An element of a broadcast operator's broadcast input: to every key group, as the
        engines send it."""
        for key_group in range(self.max_parallelism):
            self.operator.active_key_groups = (key_group,)
            self.operator.process_element(None, value, timestamp, self._emit, BROADCAST_INPUT)
        self.operator.flush()
        return self

    def process_micro_batch(
        self, elements, watermark=None, processing_time=None, before_watermark=()
    ):
        """One micro-batch as the engines run it (weir.runtime.keyed_batch), key group by
        key group: the (value, timestamp) records of `before_watermark` (produced upstream
        before the watermark's advance), then the timers due at `watermark` and
        `processing_time` (None: the clock stays), then the (value, timestamp) records of
        `elements`, as a batch. An operator of one input."""
        if len(self.key_selectors) != 1:
            raise TypeError(
                "process_micro_batch drives an operator of one input; feed two "
                "inputs with process_element1/process_element2"
            )
        clock, select = self.operator.clock, self.key_selector
        watermark = clock.watermark if watermark is None else watermark
        processing_time = clock.processing_time if processing_time is None else processing_time
        by_group = defaultdict(list)
        for phase, items in ((BEFORE_WATERMARK, before_watermark), (AFTER_WATERMARK, elements)):
            for counter, (value, timestamp) in enumerate(items):
                key_group = self.operator.backend.key_group_of(select(value))
                by_group[key_group].append((make_seq(phase, 0, counter), value, timestamp))
        for key_group in sorted(set(by_group) | set(self.stores)):
            records = RecordColumns.of(by_group.get(key_group, ()), select)
            output = process_key_group_batch(
                self.operator, key_group, records, watermark, processing_time
            )
            self.operator.release()
            for _, tag_id, value, timestamp in output.records():
                self._emit(tag_id, value, timestamp)
        return self

    def process_watermark(self, watermark: int):
        self.operator.active_key_groups = self._all_key_groups()
        self.operator.advance_watermark(watermark, self._emit)
        self.operator.flush()
        return self

    def set_processing_time(self, time_ms: int):
        self.operator.active_key_groups = self._all_key_groups()
        self.operator.advance_processing_time(time_ms, self._emit)
        self.operator.flush()
        return self

    def end_input(self):
        """The end of every key group's input: event-time timers fire as at Flink's
        +infinity watermark (in BATCH execution every processing-time timer then fires)."""
        self.operator.active_key_groups = self._all_key_groups()
        self.operator.end_input(self._emit)
        self.operator.flush()
        return self

    def extract_outputs(self):
        """The main outputs as (value, timestamp), cleared after reading."""
        outputs, self.outputs = self.outputs, []
        return outputs

    def extract_values(self):
        return [value for value, _ in self.extract_outputs()]

    def metric(self, name: str) -> int:
        """The count of the operator's metric counter `name` (e.g. numLateRecordsDropped)."""
        return self.operator.runtime_context.get_metrics_group().counter(name).get_count()

    def side_output(self, tag):
        return list(self.side_outputs[getattr(tag, "tag_id", tag)])

    def snapshot(self):
        """A deep copy of every key group's pages plus the clocks."""
        self.operator.flush()
        return {
            "stores": {kg: dict(store.pages) for kg, store in self.stores.items()},
            "watermark": self.operator.clock.watermark,
            "processing_time": self.operator.clock.processing_time,
        }

    @classmethod
    def restore(cls, function, key_selector, snapshot, **kwargs):
        return cls(function, key_selector, snapshot=snapshot, **kwargs)

    def num_keyed_state_entries(self) -> int:
        """Entries (key, state) held across all pages: for leak checks."""
        from weir.runtime.state.backend import loads

        total = 0
        for store in self.stores.values():
            for page_id, blob in store.pages.items():
                if page_id >= 0:  # negative ids hold timers
                    total += sum(len(entry) for entry in loads(blob).values())
        return total

    def num_timers(self) -> int:
        from weir.runtime.timers import KeyGroupTimers

        return sum(KeyGroupTimers(store).count() for store in self.stores.values())

    def close(self):
        self.operator.close()
