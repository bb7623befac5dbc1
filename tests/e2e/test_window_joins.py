"""Window joins and co-groups (Flink's Java API in snake_case), on both engines."""

import pytest

from weir.common.time import Time
from weir.datastream import CoGroupFunction, FlatJoinFunction, JoinFunction
from weir.datastream.window import (
    EventTimeSessionWindows,
    SlidingEventTimeWindows,
    TumblingEventTimeWindows,
)
from tests.streams import collect, stamped

# (user, timestamp ms, what)
ORDERS = [
    ("ann", 1000, "book"),
    ("bob", 2000, "pen"),
    ("ann", 4000, "lamp"),
    ("ann", 12000, "desk"),
    ("cid", 15000, "mug"),
    ("bob", 21000, "ink"),
]
PAYMENTS = [
    ("ann", 3000, 10),
    ("ann", 9000, 25),
    ("bob", 11000, 3),
    ("cid", 16000, 7),
    ("bob", 22000, 4),
    ("bob", 29000, 5),
    ("dan", 5000, 1),
]


class Paid(JoinFunction):
    def join(self, order, payment):
        return order[0], order[2], payment[2]


def _reference_join(size, slide=None):
    """Every (order, payment) pair of a user sharing a window, once per shared window."""
    slide = slide or size
    out = []
    for order in ORDERS:
        for payment in PAYMENTS:
            if order[0] != payment[0]:
                continue
            starts = {t - t % slide - k * slide for t in (order[1],) for k in range(size // slide)}
            shared = [s for s in starts if s <= payment[1] < s + size]
            out += [(order[0], order[2], payment[2])] * len(shared)
    return sorted(out)


def test_tumbling_window_join_pairs_each_window(any_env):
    env = any_env
    joined = (
        stamped(env, ORDERS)
        .join(stamped(env, PAYMENTS))
        .where(lambda o: o[0])
        .equal_to(lambda p: p[0])
        .window(TumblingEventTimeWindows.of(Time.seconds(10)))
        .apply(Paid())
    )
    sink = collect(joined)
    env.execute("tumbling join")
    assert sorted(sink.results) == [
        ("ann", "book", 10),
        ("ann", "book", 25),
        ("ann", "lamp", 10),
        ("ann", "lamp", 25),
        ("bob", "ink", 4),
        ("bob", "ink", 5),
        ("cid", "mug", 7),
    ]
    assert sorted(sink.results) == _reference_join(10000)


def test_sliding_window_join_emits_a_pair_once_per_shared_window(any_env):
    env = any_env
    joined = (
        stamped(env, ORDERS)
        .join(stamped(env, PAYMENTS))
        .where(lambda o: o[0])
        .equal_to(lambda p: p[0])
        .window(SlidingEventTimeWindows.of(Time.seconds(10), Time.seconds(5)))
        .apply(lambda o, p: (o[0], o[2], p[2]))
    )
    sink = collect(joined)
    env.execute("sliding join")
    assert sorted(sink.results) == _reference_join(10000, 5000)
    # book (1 s) and the 10 (3 s) share [-5 s, 5 s) and [0 s, 10 s)
    assert sorted(sink.results).count(("ann", "book", 10)) == 2


class Summary(CoGroupFunction):
    def co_group(self, orders, payments):
        yield (sorted(o[2] for o in orders), sum(p[2] for p in payments))


def test_co_group_sees_windows_with_one_input_only(any_env):
    env = any_env
    grouped = (
        stamped(env, ORDERS)
        .co_group(stamped(env, PAYMENTS))
        .where(lambda o: o[0])
        .equal_to(lambda p: p[0])
        .window(TumblingEventTimeWindows.of(Time.seconds(10)))
        .apply(Summary())
    )
    sink = collect(grouped)
    env.execute("co-group")
    assert sorted(sink.results) == sorted(
        [
            (["book", "lamp"], 35),
            (["desk"], 0),
            (["pen"], 0),
            ([], 3),
            (["ink"], 9),
            (["mug"], 7),
            ([], 1),
        ]
    )


class Pairs(FlatJoinFunction):
    def join(self, order, payment):
        if payment[2] > 3:
            yield order[2], payment[2]
            yield order[2], -payment[2]


def test_session_window_flat_join(any_env):
    env = any_env
    joined = (
        stamped(env, ORDERS)
        .join(stamped(env, PAYMENTS))
        .where(lambda o: o[0])
        .equal_to(lambda p: p[0])
        .window(EventTimeSessionWindows.with_gap(Time.seconds(3)))
        .apply(Pairs())
    )
    sink = collect(joined)
    env.execute("session join")
    # ann's session [1 s, 7 s) holds book, lamp and the 10; [9 s, 12 s) and [12 s, 15 s)
    # touch, so they merge (as Flink's) and desk meets the 25; bob's [21 s, 25 s) holds ink
    # and the 4; cid's [15 s, 19 s) mug and the 7.
    assert sorted(sink.results) == sorted(
        [
            ("book", 10),
            ("book", -10),
            ("lamp", 10),
            ("lamp", -10),
            ("desk", 25),
            ("desk", -25),
            ("ink", 4),
            ("ink", -4),
            ("mug", 7),
            ("mug", -7),
        ]
    )


def test_allowed_lateness_fires_the_window_again_with_the_late_pair(any_env):
    env = any_env
    # Batches of two: the watermark passes 10 s before the late order (ann, 5 s) arrives.
    orders = [("ann", 1000, "book"), ("ann", 12000, "desk"), ("ann", 5000, "late")]
    payments = [("ann", 2000, 10), ("ann", 13000, 20)]
    joined = (
        stamped(env, orders, per_batch=2)
        .join(stamped(env, payments, per_batch=2))
        .where(lambda o: o[0])
        .equal_to(lambda p: p[0])
        .window(TumblingEventTimeWindows.of(Time.seconds(10)))
        .allowed_lateness(Time.seconds(30))
        .apply(Paid())
    )
    sink = collect(joined)
    env.execute("late join")
    assert sorted(sink.results) == sorted(
        [("ann", "book", 10), ("ann", "desk", 20), ("ann", "book", 10), ("ann", "late", 10)]
    )  # the late order fires [0, 10 s) again


def test_window_joins_check_their_functions(local_env):
    a, b = local_env.from_collection([1]), local_env.from_collection([2])
    window = (
        a.join(b)
        .where(lambda v: v)
        .equal_to(lambda v: v)
        .window(TumblingEventTimeWindows.of(Time.seconds(1)))
    )
    with pytest.raises(TypeError, match="'join' method"):
        window.apply(object())
    with pytest.raises(TypeError, match="ends with apply"):
        window.reduce(lambda x, y: x)
    with pytest.raises(TypeError, match="expects a DataStream"):
        a.co_group([1])
