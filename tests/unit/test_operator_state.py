"""Operator state (CheckpointedFunction with list and union list state) and broadcast
partitioning, on the in-process executor and on the non-keyed operator directly."""

import pytest

from weir.common import Types
from weir.datastream import (CheckpointedFunction, FlatMapFunction, KeyedProcessFunction,
                             MapFunction, SinkFunction, StreamExecutionEnvironment)
from weir.datastream.connectors import DataGeneratorSource
from weir.datastream.state import ListStateDescriptor, ValueStateDescriptor
from weir.runtime.non_keyed import InstanceSpec, NonKeyedOperator
from weir.runtime.state.backend import KeyedStateBackend, MemoryPageStore
from weir.runtime.state.operator_state import OperatorStateStore, UnionStateLog

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
    source = env.from_source(DataGeneratorSource(lambda i: i * 10, count=25,
                                                 max_records_per_batch=4), None, "numbers")
    result = list(source.map(Numbering()).execute_and_collect())
    assert result == [(i * 10, i + 1) for i in range(25)]


def test_each_parallel_instance_keeps_its_own_list_state():
    env = _env(2)
    source = env.from_source(DataGeneratorSource(lambda i: i, count=12, num_splits=2,
                                                 max_records_per_batch=4), None, "numbers")
    result = list(source.map(Numbering()).execute_and_collect())
    # Each batch of 4 is read as two splits of 2: split 0 by subtask 0, split 1 by 1.
    first = [v for v in range(12) if v % 4 < 2]
    second = [v for v in range(12) if v % 4 >= 2]
    assert sorted(result) == sorted([(v, n + 1) for n, v in enumerate(first)]
                                    + [(v, n + 1) for n, v in enumerate(second)])


def test_broadcast_partitioning_gives_every_instance_every_record():
    env = _env(3)

    class Instance(MapFunction):
        def open(self, runtime_context):
            self.index = runtime_context.get_index_of_this_subtask()

        def map(self, value):
            return self.index, value

    result = env.from_collection([1, 2]).broadcast().map(Instance()).execute_and_collect()
    assert sorted(result) == [(i, v) for i in range(3) for v in (1, 2)]


def _operator(store, run_id="run-1", unions=None, parallelism=2):
    backend = KeyedStateBackend(lambda kg: store[kg], 128)
    spec = InstanceSpec("map", Numbering(), run_id, unions)
    return NonKeyedOperator(spec, backend, "numbering", 0, parallelism)


def _run(operator, key_group, values):
    out = []
    operator.active_key_groups = (key_group,)
    operator.process_batch([(None, v, None) for v in values], None,
                           lambda tag, value, ts: out.append(value))
    operator.active_key_groups = ()
    unions = operator.snapshot_operator_state(key_group)
    operator.release()
    return out, unions


def test_a_restore_from_another_run_gives_every_instance_the_union_lists():
    store = {kg: MemoryPageStore() for kg in range(128)}
    first = _operator(store)
    assert _run(first, 0, [5, 7]) == ([(5, 1), (7, 2)], {"seen": [7]})
    assert _run(first, 64, [3]) == ([(3, 1)], {"seen": [3]})
    log = UnionStateLog()
    log.record({("numbering", 0): {"seen": [7]}, ("numbering", 64): {"seen": [3]}})
    assert log.unions() == {"numbering": {"seen": [7, 3]}}

    same_run = _operator(store)  # a later micro-batch of the same run
    assert _run(same_run, 0, [1]) == ([(1, 3)], {"seen": [7]})
    instance = same_run._instances[0].function
    assert instance.restored and instance.union == [7]

    restarted = _operator(store, "run-2", log.unions()["numbering"])
    assert _run(restarted, 64, [2]) == ([(2, 2)], {"seen": [7]})
    instance = restarted._instances[64].function
    assert instance.restored and instance.union == [3, 7]


def test_a_new_instance_is_not_restored():
    store = {kg: MemoryPageStore() for kg in range(128)}
    operator = _operator(store)
    _run(operator, 0, [1])
    function = operator._instances[0].function
    assert function.restored is False and function.union == []


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
    with pytest.raises(Exception, match=r"operator 'non_keyed-0' failed in user function "
                                        r".*Broken.snapshot_state.*disk full"):
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


def test_operator_state_in_a_sink_function_is_refused_clearly():
    class BufferingSink(SinkFunction, CheckpointedFunction):
        def initialize_state(self, context):
            pass

        def snapshot_state(self, context):
            pass

        def invoke(self, value, context):
            pass

    with pytest.raises(NotImplementedError, match="operator state in a sink function"):
        _env().from_collection([1]).add_sink(BufferingSink())
