"""connect(): operators of two inputs, keyed and not, on both engines."""

import pytest

from weir.common import Types
from weir.datastream import CoMapFunction, KeyedCoProcessFunction
from weir.datastream.state import ValueStateDescriptor
from weir.runtime.wire import MAX_WATERMARK
from tests.streams import collect


class Totals(KeyedCoProcessFunction):
    """Both inputs add to the key's total; the end of input emits it."""

    def open(self, runtime_context):
        self.total = runtime_context.get_state(ValueStateDescriptor("total", Types.LONG()))

    def _add(self, amount, ctx):
        if self.total.value() is None:
            ctx.timer_service().register_event_time_timer(MAX_WATERMARK)
        self.total.update((self.total.value() or 0) + amount)

    def process_element1(self, value, ctx):
        self._add(value, ctx)

    def process_element2(self, value, ctx):
        self._add(100 * value[1], ctx)

    def on_timer(self, timestamp, ctx):
        yield ctx.get_current_key(), self.total.value()


def test_keyed_inputs_share_each_keys_state(any_env):
    env = any_env
    numbers = env.from_collection(list(range(1, 21)))
    pairs = env.from_collection([(k, k) for k in range(5)] + [(9, 1)])
    sink = collect(numbers.connect(pairs).key_by(lambda n: n % 5, lambda p: p[0]).process(Totals()))
    env.execute("totals")
    expected = {k: sum(n for n in range(1, 21) if n % 5 == k) + 100 * k for k in range(5)}
    assert sorted(sink.results) == sorted([*expected.items(), (9, 100)])


def test_two_keyed_streams_connect_as_keyed(any_env):
    env = any_env
    left = env.from_collection([1, 2, 3]).key_by(lambda n: n)
    right = env.from_collection([("3", 30)]).key_by(lambda p: int(p[0]))
    sink = collect(left.connect(right).process(Totals()))
    env.execute("keyed streams")
    assert sorted(sink.results) == [(1, 1), (2, 2), (3, 3003)]


class Label(CoMapFunction):
    def map1(self, value):
        return "left", value

    def map2(self, value):
        if value == "boom":
            raise ValueError("cannot label boom")
        return "right", value


def test_a_stream_connected_to_itself_is_read_once_per_input(any_env):
    env = any_env
    numbers = env.from_collection([1, 2])
    sink = collect(numbers.connect(numbers).map(Label()))
    env.execute("self")
    assert sorted(sink.results) == [("left", 1), ("left", 2), ("right", 1), ("right", 2)]


def test_an_error_names_the_operator_the_input_and_the_line(any_env):
    env = any_env
    left = env.from_collection([1])
    right = env.from_collection(["x", "boom"])
    left.connect(right).map(Label()).uid("labels").add_sink(lambda v, c: None)
    with pytest.raises(Exception) as info:
        env.execute("failing")
    message = str(info.value)
    assert "operator 'labels' failed in user function Label.map2" in message
    assert f"{__file__}:" in message and "cannot label boom" in message


def test_a_failing_key_selector_names_the_input_side(any_env):
    env = any_env
    left = env.from_collection([1])
    right = env.from_collection([(1, 2), ()])
    left.connect(right).key_by(lambda n: n, lambda p: p[0]).process(Totals()).uid(
        "totals"
    ).add_sink(lambda v, c: None)
    with pytest.raises(Exception) as info:
        env.execute("failing")
    message = str(info.value)
    assert "operator 'totals' (second input) failed in user function" in message
    assert f"{__file__}:" in message and "IndexError" in message


def test_connect_checks_its_functions_early(local_env):
    numbers = local_env.from_collection([1])
    with pytest.raises(TypeError, match="expects a CoMapFunction .* without map2"):
        numbers.connect(numbers).map(type("Half", (), {"map1": lambda s, v: v})())
    with pytest.raises(TypeError, match="KeyedCoProcessFunction needs keyed inputs"):
        numbers.connect(numbers).process(Totals())
    with pytest.raises(TypeError, match="connect\\(\\) expects a DataStream"):
        numbers.connect([1, 2])
