"""The keyed operator protocol: the keyed process operator and the window operator are
siblings; a window's state and timers are namespaced by the window (as Flink's)."""

import pytest

from tests.transcripts import functions as f
from tests.transcripts.runner import window_spec
from tests.transcripts.windows import Transcript
from weir.datastream.window import (
    SlidingEventTimeWindows,
    TimeWindow,
    Trigger,
    TriggerResult,
    TumblingEventTimeWindows,
)
from weir.runtime.adapters import KeyedProcess
from weir.runtime.errors import UserFunctionError
from weir.runtime.keyed_batch import process_key_group_batch
from weir.runtime.keyed_operator import KeyedStreamOperator
from weir.runtime.keyed_process import KeyedProcessOperator
from weir.runtime.operator_factory import create_keyed_operator, wakes_every_batch
from weir.runtime.state.backend import KeyedStateBackend, MemoryPageStore
from weir.runtime.timers import EVENT_TIME, KeyGroupTimers
from weir.runtime.wire import AFTER_WATERMARK, MIN_WATERMARK, RecordColumns, make_seq
from weir.runtime.window.operator import WindowOperator
from weir.testing.harness import KeyedOperatorHarness


class RecordingBackend(KeyedStateBackend):
    """Remembers which entries (state names or window slots) were written."""

    def __init__(self, *args):
        super().__init__(*args)
        self.written = []

    def put_entry(self, state_name, stored):
        self.written.append(state_name)
        super().put_entry(state_name, stored)


def tumbling_sum(keyed):
    return keyed.window(TumblingEventTimeWindows.of(10)).reduce(f.add_values)


class Ticks:
    def process_element(self, value, ctx):
        ctx.timer_service().register_event_time_timer(10)
        ctx.timer_service().register_event_time_timer(10)  # once per (key, time)

    def on_timer(self, timestamp, ctx):
        yield ctx.get_current_key(), timestamp


def test_both_operators_are_built_from_the_plan_as_siblings():
    backend = KeyedStateBackend(lambda kg: MemoryPageStore(), 4)
    window = create_keyed_operator(window_spec(Transcript("t", tumbling_sum, [])), backend, "w")
    process = create_keyed_operator(KeyedProcess(Ticks()), backend, "p")
    assert type(window) is WindowOperator and type(process) is KeyedProcessOperator
    assert isinstance(window, KeyedStreamOperator) and isinstance(process, KeyedStreamOperator)
    # only the process function may have processing-time timers: it wakes every batch
    assert not wakes_every_batch(window.spec) and wakes_every_batch(process.function)


def test_a_batch_writes_only_the_window_it_touches_among_many_open_ones():
    stores = {}
    backend = RecordingBackend(lambda kg: stores.setdefault(kg, MemoryPageStore()), 1)
    spec = window_spec(Transcript("t", tumbling_sum, []))
    spec.batches_at_once = False  # the per-window path (the at-once path writes the same)
    operator = WindowOperator(spec, backend, "w")
    operator.open()

    def batch(elements):
        records = [
            (make_seq(AFTER_WATERMARK, 0, i), value, ts) for i, (value, ts) in enumerate(elements)
        ]
        outputs = process_key_group_batch(
            operator, 0, RecordColumns.of(records, f.key_of), MIN_WATERMARK, 0
        )
        operator.release()
        return outputs.records()

    batch([(("a", 1), ts) for ts in range(0, 1000, 10)])  # 100 open windows of key "a"
    timers = KeyGroupTimers(stores[0])
    assert timers.count() == 100
    backend.written.clear()
    assert batch([(("a", 5), 995)]) == []
    assert backend.written == [("_weir_window_contents", TimeWindow(990, 1000))]
    page = operator.backend.key_group_pages(0).page(0)
    assert page["a"][("_weir_window_contents", TimeWindow(990, 1000))] == {"contents": ("a", 6)}
    assert len(page["a"]) == 100  # one slot per window, nothing else


class EveryWindowAt(Trigger):
    """Fires every window of a key at one shared event time (and forgets it on clear)."""

    def __init__(self, time):
        self.time = time

    def on_element(self, element, timestamp, window, ctx):
        ctx.register_event_time_timer(self.time)
        return TriggerResult.CONTINUE

    def on_event_time(self, time, window, ctx):
        return TriggerResult.FIRE_AND_PURGE if time == self.time else TriggerResult.CONTINUE

    def on_processing_time(self, time, window, ctx):
        return TriggerResult.CONTINUE

    def on_merge(self, window, ctx):
        pass

    def clear(self, window, ctx):
        ctx.delete_event_time_timer(self.time)


def test_timers_of_one_key_at_one_time_are_kept_per_window():
    spec = window_spec(
        Transcript(
            "t",
            lambda ks: (
                ks.window(SlidingEventTimeWindows.of(10, 5))
                .trigger(EveryWindowAt(50))
                .allowed_lateness(100)
                .process(f.WindowList())
            ),
            [],
        )
    )
    harness = KeyedOperatorHarness(spec, f.key_of)
    harness.process_element(("a", 1), 7)  # windows [0, 10) and [5, 15)
    harness.process_element(("a", 2), 12)  # windows [5, 15) and [10, 20)
    assert harness.num_timers() == 3 + 3  # the trigger's in each window, and each cleanup
    harness.process_watermark(50)
    assert sorted(harness.extract_values()) == [
        ("a", 0, 10, [1]),
        ("a", 5, 15, [1, 2]),
        ("a", 10, 20, [2]),
    ]
    assert harness.num_timers() == 3
    harness.process_watermark(200)
    assert harness.extract_values() == []
    assert harness.num_timers() == 0 and harness.num_keyed_state_entries() == 0


def test_a_process_function_timer_has_no_namespace():
    harness = KeyedOperatorHarness(Ticks(), f.key_of)
    harness.process_element(("a", 1), 1).process_element(("b", 1), 1)
    snapshot = harness.snapshot()
    timers = [KeyGroupTimers(MemoryPageStore(pages)) for pages in snapshot["stores"].values()]
    assert sorted(t.queues[EVENT_TIME].entries()[0][0] for t in timers if t.count()) == [
        (10, "a"),
        (10, "b"),
    ]
    assert harness.process_watermark(10).extract_values() == [("a", 10), ("b", 10)]


class CountPerKey:
    def open(self, runtime_context):
        from weir.datastream.state import ValueStateDescriptor

        self.count = runtime_context.get_state(ValueStateDescriptor("count"))

    def process_element(self, value, ctx):
        self.count.update((self.count.value() or 0) + 1)
        ctx.timer_service().register_event_time_timer(100)

    def on_timer(self, timestamp, ctx):
        yield ctx.get_current_key(), self.count.value()


def test_a_key_group_run_places_its_keys_without_hashing_them_again(monkeypatch):
    """Keys reach a key group's run routed there by their hash: the state backend and the
    timers place them in that key group without hashing them a second time, in the same
    pages the hash places them in."""
    from weir.runtime import key_groups
    from weir.runtime.state import backend as backend_module

    max_parallelism = 8
    keys = [f"key-{i}" for i in range(40)]
    by_group = {}
    for key in keys:
        by_group.setdefault(key_groups.assign_to_key_group(key, max_parallelism), []).append(key)
    stores = {}
    backend = KeyedStateBackend(
        lambda kg: stores.setdefault(kg, MemoryPageStore()), max_parallelism
    )
    operator = create_keyed_operator(KeyedProcess(CountPerKey()), backend, "p")
    operator.open()

    hashed = []
    monkeypatch.setattr(
        backend_module,
        "stable_key_hash",
        lambda key: hashed.append(key) or key_groups.stable_key_hash(key),
    )
    fired = []
    for key_group, group_keys in sorted(by_group.items()):
        records = [
            (make_seq(AFTER_WATERMARK, 0, i), key, 1)
            for i, key in enumerate(group_keys + group_keys[:1])
        ]
        outputs = process_key_group_batch(
            operator,
            key_group,
            RecordColumns.of(records, lambda key: key),
            MIN_WATERMARK,
            0,
            end_of_input=True,
        )
        fired += [value for _, _, value, _ in outputs.records()]
        operator.release()
    assert hashed == []
    first_keys = {group_keys[0] for group_keys in by_group.values()}
    assert sorted(fired) == sorted((key, 2 if key in first_keys else 1) for key in keys)
    # outside a run (queryable state, restored savepoints) a key is placed by its hash, and
    # finds the state its run wrote
    reader = KeyedStateBackend(lambda kg: stores[kg], max_parallelism)
    for key in keys:
        reader.set_current_key(key)
        assert reader.key_group_of(key) == key_groups.assign_to_key_group(key, max_parallelism)
        assert reader.get_entry("count") == (2 if key in first_keys else 1)
    assert len(hashed) == len(keys)


class Failing:
    def process_element(self, value, ctx):
        raise ValueError("no")


def test_a_failing_run_leaves_no_key_group_running():
    backend = KeyedStateBackend(lambda kg: MemoryPageStore(), 8)
    operator = create_keyed_operator(KeyedProcess(Failing()), backend, "p")
    operator.open()
    records = RecordColumns.of([(make_seq(AFTER_WATERMARK, 0, 0), "a", 1)], lambda key: key)
    with pytest.raises(
        UserFunctionError, match="operator 'p' failed in user function Failing.process_element"
    ):
        process_key_group_batch(operator, 3, records, MIN_WATERMARK, 0)
    assert backend.running_key_group is None and operator.active_key_groups == ()


def test_the_protocol_is_abstract_an_operator_without_on_timer_cannot_be_made():
    class Partial(KeyedStreamOperator):
        def process_element(self, key, value, timestamp, emit, input_label=0):
            pass

    backend = KeyedStateBackend(lambda kg: MemoryPageStore(), 4)
    with pytest.raises(TypeError, match="on_timer"):
        Partial(backend, "partial")
