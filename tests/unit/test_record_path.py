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
    assert sorted(second.execute_and_collect()) == sorted(((v + 1) % 3, v + 1)
                                                          for v in range(9))
    assert CountingSelector.calls == 18
