"""Interval joins (weir.table.interval_join): the bounds read from a join condition, and
the operator through the harness (pairs at once, rows expired by the watermark, outer
rows padded once at expiry, rows that arrive expired)."""

import datetime

from weir.table import EnvironmentSettings, TableEnvironment
from weir.table.changelog import INSERT
from weir.table.interval_join import IntervalJoin, interval_bounds
from weir.testing.harness import KeyedOperatorHarness


def at(ms):
    return datetime.datetime(1970, 1, 1) + datetime.timedelta(milliseconds=ms)


def _join_of(tmp_path, condition, kind="JOIN"):
    t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    (tmp_path / "x.csv").write_text("")
    for name in ("l", "r"):
        t_env.execute_sql(
            f"CREATE TABLE {name} (t TIMESTAMP(3), k INT, x TIMESTAMP(3), WATERMARK FOR t "
            f"AS t) WITH ('connector' = 'filesystem', 'path' = '{tmp_path}/x.csv', "
            "'format' = 'csv')"
        )
    node = t_env.sql_query(f"SELECT * FROM l {kind} r ON l.k = r.k AND {condition}")._node
    while type(node).__name__ != "Join":
        node = node.input
    return node


def test_bounds_are_read_from_between_and_from_comparisons_on_either_side(tmp_path):
    cases = {
        "r.t BETWEEN l.t - INTERVAL '1' MINUTE AND l.t + INTERVAL '5' SECOND": (
            0,
            0,
            -60_000,
            5_000,
        ),
        "l.t < r.t + INTERVAL '2' SECOND AND r.t < l.t + INTERVAL '3' SECOND": (
            0,
            0,
            -1_999,
            2_999,
        ),
        "l.t <= r.t AND l.t >= r.t": (0, 0, 0, 0),
    }
    for condition, expected in cases.items():
        join = _join_of(tmp_path, condition)
        assert interval_bounds(join) == expected, condition
        assert join.flavour == "IntervalJoin" and not join.changelog
    for regular in ("r.t >= l.t", "r.x BETWEEN l.t AND l.t + INTERVAL '1' SECOND"):
        join = _join_of(tmp_path, regular, "LEFT JOIN")
        assert interval_bounds(join) is None and join.flavour == "Join" and join.changelog


def harness(kind, lower=0, upper=10):
    key = lambda record: record[1][1]  # noqa: E731 (rows: time, key, name)
    condition = lambda row: lower <= (row[3] - row[0]).total_seconds() * 1000 <= upper  # noqa
    function = IntervalJoin((0, 0), (lower, upper), condition, (3, 3), kind)
    return KeyedOperatorHarness(function, (key, key))


def left(h, ms, name):
    h.process_element1((INSERT, (at(ms), "k", name)), ms)


def right(h, ms, name):
    h.process_element2((INSERT, (at(ms), "k", name)), ms)


def names(h):
    return [(v[2], v[5]) for _, v in h.extract_values()]


def test_pairs_come_at_once_and_rows_leave_state_when_the_watermark_passes_them():
    h = harness("inner")
    left(h, 0, "a"), right(h, 5, "x")
    assert names(h) == [("a", "x")]
    right(h, 20, "y")
    h.process_watermark(10)  # (a expires at 0 + 10; x at 5 - 0)
    assert h.num_keyed_state_entries() == 1
    left(h, 12, "b")
    assert names(h) == [("b", "y")]
    h.process_watermark(30)
    assert h.num_keyed_state_entries() == 0


def test_an_outer_rows_padding_comes_once_when_it_expires_unpaired():
    h = harness("full")
    left(h, 0, "a"), left(h, 50, "b"), right(h, 55, "x"), right(h, 100, "z")
    assert names(h) == [("b", "x")]
    h.process_watermark(60)
    assert names(h) == [("a", None)]
    h.process_watermark(200)
    assert names(h) == [(None, "z")]


def test_a_row_that_arrives_expired_pairs_with_kept_rows_and_is_not_kept():
    h = harness("left")
    right(h, 30, "x")
    h.process_watermark(25)
    left(h, 5, "late")  # (expires at 15 <= 25: padded at once)
    left(h, 22, "pairs")  # (expires at 32: kept, pairs with x)
    assert names(h) == [("late", None), ("pairs", "x")]
