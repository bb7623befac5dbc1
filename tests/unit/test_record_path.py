"""The record path: the key travels with its record, so the key selector runs once per
record and keyed input (as Flink's KeyGroupStreamPartitioner hands the key on)."""

from weir.datastream import KeyedProcessFunction, StreamExecutionEnvironment


class CountingSelector:
    calls = 0

    def __call__(self, value):
        CountingSelector.calls += 1
        return value % 3


class CurrentKey(KeyedProcessFunction):
    def process_element(self, value, ctx):
        yield (ctx.get_current_key(), value)


def test_the_key_selector_runs_once_per_record_and_the_function_sees_its_key():
    CountingSelector.calls = 0
    env = StreamExecutionEnvironment.get_execution_environment().set_executor("local")
    env.set_parallelism(2)
    values = list(range(20))
    keyed = env.from_collection(values).key_by(CountingSelector()).process(CurrentKey())
    out = sorted(keyed.execute_and_collect())
    assert out == sorted((v % 3, v) for v in values)
    assert CountingSelector.calls == len(values)


def test_two_keyed_operators_in_a_row_each_select_once():
    CountingSelector.calls = 0
    env = StreamExecutionEnvironment.get_execution_environment().set_executor("local")
    first = env.from_collection(list(range(9))).key_by(CountingSelector()).process(CurrentKey())
    second = first.map(lambda pair: pair[1] + 1).key_by(CountingSelector()).process(CurrentKey())
    assert sorted(second.execute_and_collect()) == sorted(((v + 1) % 3, v + 1) for v in range(9))
    assert CountingSelector.calls == 18


def test_named_rows_travel_as_columns_and_arrive_as_equal_rows():
    import collections
    import pickle

    import pyarrow as pa

    from weir.common.row import (
        PackedRows,
        Row,
        RowKind,
        pack_rows,
        rows_of_columns,
        shared_field_names,
    )

    fields = shared_field_names(["sensor", "temperature"])
    table = pa.table({"sensor": ["a", "b", "c"], "temperature": [1.5, 2.0, -3.25]})
    from_source = rows_of_columns(fields, table.columns, 3)
    expected = [
        Row(sensor="a", temperature=1.5),
        Row(sensor="b", temperature=2.0),
        Row(sensor="c", temperature=-3.25),
    ]
    some = [from_source[2], from_source[0]]  # a key group's share of a source batch
    packed = pack_rows(some)
    assert isinstance(packed, PackedRows) and packed.columns == [["c", "a"], [-3.25, 1.5]]
    back = pickle.loads(pickle.dumps(packed))
    assert back == [expected[2], expected[0]] and back[1].sensor == "a"
    assert [r.get_row_kind() for r in back] == [RowKind.INSERT] * 2
    again = pickle.loads(pickle.dumps(pack_rows(back)))  # rows that arrived packed go on
    assert again == [expected[2], expected[0]]
    plain = pack_rows(expected)
    assert plain.columns == [["a", "b", "c"], [1.5, 2.0, -3.25]]
    assert pickle.loads(pickle.dumps(plain)) == expected
    changed = Row(sensor="d", temperature=0.0)
    changed.set_row_kind(RowKind.DELETE)
    deleted = pickle.loads(pickle.dumps(pack_rows([changed])))
    assert deleted == [changed] and deleted[0].get_row_kind() == RowKind.DELETE
    Pair = collections.namedtuple("Pair", "a b")
    for unpackable in (
        [expected[0], changed],  # two kinds
        [expected[0], Row(other="x", temperature=1.0)],  # two field lists
        [Row(1, 2)],
        [(1, 2)],
        [Pair(1, 2)],
        [expected[0], (1, 2)],
        [],
    ):
        assert pack_rows(unpackable) is None
