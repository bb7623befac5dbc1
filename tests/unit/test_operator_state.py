"""Operator state (CheckpointedFunction with list and union list state) and broadcast
partitioning, on the in-process executor and on the non-keyed operator directly."""

import pytest

from weir.common import Types
from weir.datastream import (
    CheckpointedFunction,
    FlatMapFunction,
    KeyedProcessFunction,
    MapFunction,
    SinkFunction,
    StreamExecutionEnvironment,
)
from weir.datastream.connectors import DataGeneratorSource
from weir.datastream.state import ListStateDescriptor, ValueStateDescriptor
from weir.runtime.non_keyed import InstanceSpec, NonKeyedOperator
from weir.runtime.sink_writers import CheckpointedSink
from weir.runtime.state.backend import KeyedStateBackend, MemoryPageStore
from weir.runtime.state.operator_state import (
    SPLIT,
    UNION,
    OperatorStateLog,
    OperatorStateStore,
    redistribute,
)

COUNT = ListStateDescriptor("count", Types.LONG())
SEEN = ListStateDescriptor("seen", Types.LONG())


class Numbering(MapFunction, CheckpointedFunction):
    """Numbers each instance's records; the number survives snapshots and restores, and a
    union list state keeps the largest value seen (on a restore: by any instance)."""

    def __init__(self):
        self.count, self.largest = 0, None

    def initialize_state(self, context):
        store = context.get_operator_state_store()
        self.count_state = store.get_list_state(COUNT)
        self.seen_state = store.get_union_list_state(SEEN)
        self.restored = context.is_restored()
        self.count = sum(self.count_state.get())
        self.union = sorted(self.seen_state.get())
        self.largest = max(self.union, default=None)

    def snapshot_state(self, context):
        self.count_state.update([self.count])
        self.seen_state.update([] if self.largest is None else [self.largest])

    def map(self, value):
        self.count += 1
        self.largest = value if self.largest is None else max(self.largest, value)
        return value, self.count


def _env(parallelism=1):
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_executor("local")
    env.set_parallelism(parallelism)
    return env


def test_a_checkpointed_map_numbers_records_across_micro_batches():
    env = _env()
    source = env.from_source(
        DataGeneratorSource(lambda i: i * 10, count=25, max_records_per_batch=4), None, "numbers"
    )
    result = list(source.map(Numbering()).execute_and_collect())
    assert result == [(i * 10, i + 1) for i in range(25)]


def test_each_parallel_instance_keeps_its_own_list_state():
    env = _env(2)
    source = env.from_source(
        DataGeneratorSource(lambda i: i, count=12, num_splits=2, max_records_per_batch=4),
        None,
        "numbers",
    )
    result = list(source.map(Numbering()).execute_and_collect())
    # Each batch of 4 is read as two splits of 2: split 0 by subtask 0, split 1 by 1.
    first = [v for v in range(12) if v % 4 < 2]
    second = [v for v in range(12) if v % 4 >= 2]
    assert sorted(result) == sorted(
        [(v, n + 1) for n, v in enumerate(first)] + [(v, n + 1) for n, v in enumerate(second)]
    )


def test_broadcast_partitioning_gives_every_instance_every_record():
    env = _env(3)

    class Instance(MapFunction):
        def open(self, runtime_context):
            self.index = runtime_context.get_index_of_this_subtask()

        def map(self, value):
            return self.index, value

    result = env.from_collection([1, 2]).broadcast().map(Instance()).execute_and_collect()
    assert sorted(result) == [(i, v) for i in range(3) for v in (1, 2)]


def _operator(store, run_id="run-1", restored=None, parallelism=2, restoring=False):
    backend = KeyedStateBackend(lambda kg: store[kg], 128)
    spec = InstanceSpec("map", Numbering(), run_id, restored, restoring)
    return NonKeyedOperator(spec, backend, "numbering", 0, parallelism)


def _run(operator, key_group, values):
    out = []
    operator.active_key_groups = (key_group,)
    operator.process_batch(
        list(values),
        [None] * len(values),
        [None] * len(values),
        lambda tag, value, ts: out.append(value),
    )
    operator.active_key_groups = ()
    snapshot = operator.snapshot_operator_state(key_group)
    operator.release()
    return out, snapshot


def _report(uid, index, snapshot):
    return {(uid, index): snapshot}


def test_a_restore_from_another_run_gives_each_instance_its_lists_and_the_unions():
    store = {kg: MemoryPageStore() for kg in range(128)}
    log = OperatorStateLog(parallelism=2)
    first = _operator(store)
    out, snapshot = _run(first, 0, [5, 7])
    assert out == [(5, 1), (7, 2)]
    assert snapshot == (1, {"count": ("split", [2]), "seen": ("union", [7])})
    log.record(_report("numbering", 0, snapshot))
    out, snapshot = _run(first, 64, [3])
    assert out == [(3, 1)]
    log.record(_report("numbering", 1, snapshot))

    same_run = _operator(store)  # a later micro-batch of the same run reads its page
    assert _run(same_run, 0, [1])[0] == [(1, 3)]
    instance = same_run._instances[0].function
    assert instance.restored and instance.union == [7]

    restarted_log = OperatorStateLog(log.take_changed(), parallelism=2)
    restarted = _operator(store, "run-2", restarted_log.restored["numbering"])
    out, snapshot = _run(restarted, 64, [2])
    assert out == [(2, 2)] and snapshot[0] == 2  # checkpoint ids go on from the restore
    instance = restarted._instances[64].function
    assert instance.restored and instance.union == [3, 7]


def test_a_new_parallelism_deals_list_states_out_evenly_and_unions_to_all():
    store = {kg: MemoryPageStore() for kg in range(128)}
    log = OperatorStateLog(parallelism=2)
    first = _operator(store)
    for index, (key_group, values) in enumerate([(0, [1, 2, 3]), (64, [9])]):
        log.record(_report("numbering", index, _run(first, key_group, values)[1]))
    saved = log.take_changed()

    scaled_in = OperatorStateLog(saved, parallelism=1)
    one = _operator(store, "run-2", scaled_in.restored["numbering"], parallelism=1)
    assert _run(one, 0, [4])[0] == [(4, 3 + 1 + 1)]  # both counts: 3 + 1
    assert one._instances[0].function.union == [3, 9]

    scaled_out = OperatorStateLog(saved, parallelism=3)
    three = _operator(store, "run-3", scaled_out.restored["numbering"], parallelism=3)
    numbers = [_run(three, kg, [0])[0] for kg in (0, 43, 86)]
    assert numbers == [[(0, 4)], [(0, 2)], [(0, 1)]]  # counts [3], [1], [] dealt out
    assert [three._instances[kg].function.restored for kg in (0, 43, 86)] == [True] * 3
    assert scaled_out.latest[("numbering", 2)] == (
        1,
        {"count": ("split", []), "seen": ("union", [3, 9])},
    )


def test_redistribute_follows_flinks_round_robin_repartitioner():
    old = [
        {"s": (SPLIT, [1, 2, 3]), "u": (UNION, ["a"])},
        {"s": (SPLIT, [4, 5]), "u": (UNION, ["b"])},
    ]
    assert redistribute(old, 2) == [
        {"s": (SPLIT, [1, 2, 3]), "u": (UNION, ["a", "b"])},
        {"s": (SPLIT, [4, 5]), "u": (UNION, ["a", "b"])},
    ]
    assert [d["s"][1] for d in redistribute(old, 3)] == [[1, 2], [3, 4], [5]]
    assert [d["s"][1] for d in redistribute(old, 4)] == [[1, 2], [3], [4], [5]]
    assert redistribute(old, 1) == [{"s": (SPLIT, [1, 2, 3, 4, 5]), "u": (UNION, ["a", "b"])}]
    assert redistribute([{}, {"s": (SPLIT, [7])}], 3) == [
        {"s": (SPLIT, [7])},
        {"s": (SPLIT, [])},
        {"s": (SPLIT, [])},
    ]


def test_a_kept_instance_that_missed_a_batch_reopens_from_the_page():
    """Two worker processes keep an instance each for key group 0 (one run): the one that
    missed a batch must neither snapshot its old state over the page nor number on."""
    store = {kg: MemoryPageStore() for kg in range(128)}
    first, second = _operator(store), _operator(store)
    assert _run(first, 0, [1])[0] == [(1, 1)]
    assert _run(second, 0, [2])[0] == [(2, 2)]
    assert _run(first, 0, []) == ([], None)  # no records: the stale instance is dropped
    assert _run(first, 0, [3])[0] == [(3, 3)]
    assert _run(second, 0, [4])[0] == [(4, 4)]


def test_a_new_instance_is_not_restored():
    store = {kg: MemoryPageStore() for kg in range(128)}
    operator = _operator(store)
    _run(operator, 0, [1])
    function = operator._instances[0].function
    assert function.restored is False and function.union == []


def test_every_instance_of_a_run_restored_from_a_checkpoint_is_restored():
    """As Flink's is_restored(): true for every function of a job restored from a
    checkpoint, also one that had nothing in it (it kept no state, or is new)."""
    store = {kg: MemoryPageStore() for kg in range(128)}
    operator = _operator(store, "run-2", restoring=True)
    assert _run(operator, 0, [1])[0] == [(1, 1)]
    function = operator._instances[0].function
    assert function.restored is True and function.union == []
    sink = CheckpointedSink(BufferingSink(10), "sink", 2, None, restoring=True)
    assert [(i.function.restored, i.function.buffered) for i in sink.instances] == [
        (True, []),
        (True, []),
    ]


def test_operator_state_refuses_what_flink_refuses():
    store = OperatorStateStore()
    store.get_list_state(COUNT)
    with pytest.raises(ValueError, match="registered as list state"):
        store.get_union_list_state(COUNT)
    with pytest.raises(TypeError, match="takes a ListStateDescriptor"):
        store.get_list_state(ValueStateDescriptor("v", Types.LONG()))
    with pytest.raises(ValueError, match="cannot add None"):
        store.get_list_state(SEEN).add(None)
    restored = OperatorStateStore({"count": ("union", [1])})
    with pytest.raises(ValueError, match="checkpointed as union list state"):
        restored.get_list_state(COUNT)


def test_a_failing_snapshot_names_the_operator():
    class Broken(FlatMapFunction, CheckpointedFunction):
        def initialize_state(self, context):
            pass

        def snapshot_state(self, context):
            raise RuntimeError("disk full")

        def flat_map(self, value):
            yield value

    env = _env()
    with pytest.raises(
        Exception,
        match=r"operator 'non_keyed-0' failed in user function "
        r".*Broken.snapshot_state.*disk full",
    ):
        list(env.from_collection([1]).flat_map(Broken()).execute_and_collect())


def test_operator_state_on_a_keyed_stream_is_refused_clearly():
    class KeyedNumbering(KeyedProcessFunction, CheckpointedFunction):
        def initialize_state(self, context):
            pass

        def snapshot_state(self, context):
            pass

        def process_element(self, value, ctx):
            yield value

    env = _env()
    with pytest.raises(NotImplementedError, match="operator state .* keyed"):
        env.from_collection([1]).key_by(lambda v: v).process(KeyedNumbering())


FLUSHED, SNAPSHOTS = [], []


class BufferingSink(SinkFunction, CheckpointedFunction):
    """Flink's documented example of operator state: buffers records and sends them on in
    groups of `threshold`; the buffer is checkpointed."""

    def __init__(self, threshold):
        self.threshold = threshold
        self.buffered = []

    def initialize_state(self, context):
        self.state = context.get_operator_state_store().get_list_state(
            ListStateDescriptor("buffered", Types.LONG())
        )
        self.restored = context.is_restored()
        self.buffered = self.state.get()

    def snapshot_state(self, context):
        self.state.update(self.buffered)
        SNAPSHOTS.append((context.get_checkpoint_id(), list(self.buffered)))

    def invoke(self, value, context):
        self.buffered.append(value)
        if len(self.buffered) >= self.threshold:
            FLUSHED.append(self.buffered)
            self.buffered = []


def test_a_sink_function_keeps_operator_state_across_micro_batches():
    FLUSHED.clear(), SNAPSHOTS.clear()
    env = _env()
    source = env.from_source(
        DataGeneratorSource(lambda i: i, count=10, max_records_per_batch=4), None, "numbers"
    )
    source.add_sink(BufferingSink(3))
    env.execute("buffering")
    assert FLUSHED == [[0, 1, 2], [3, 4, 5], [6, 7, 8]]
    assert SNAPSHOTS == [(1, [3]), (2, [6, 7]), (3, [9])]


def test_a_sink_function_restores_its_instances_lists_at_a_new_parallelism():
    log = OperatorStateLog(parallelism=2)
    first = CheckpointedSink(BufferingSink(10), "sink", 2)
    first.write([1, 2, 3, 4], 0, [0, 1, 0, 0])
    log.record(first.snapshot())
    restored = OperatorStateLog(log.take_changed(), parallelism=3).restored["sink"]
    again = CheckpointedSink(BufferingSink(10), "sink", 3, restored)
    assert [i.function.buffered for i in again.instances] == [[1, 3], [4], [2]]
    assert all(i.function.restored for i in again.instances)


def test_a_failing_sink_function_names_the_sink():
    class Failing(BufferingSink):
        def invoke(self, value, context):
            raise LookupError("no route")

    env = _env()
    env.from_collection([1]).add_sink(Failing(3)).uid("failing-sink")
    with pytest.raises(
        Exception,
        match=r"operator 'failing-sink' failed in user function "
        r".*Failing.invoke.*no route",
    ):
        env.execute("failing")
