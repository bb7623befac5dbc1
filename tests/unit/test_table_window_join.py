"""Window joins (weir.table.window_join) through the operator harness: pairs inserted
once at the window's end, outer rows padded in Flink's order, late rows dropped."""

import datetime

from weir.table.changelog import INSERT
from weir.table.window_join import WindowJoin
from weir.testing.harness import KeyedOperatorHarness


def at(ms):
    return datetime.datetime(1970, 1, 1) + datetime.timedelta(milliseconds=ms)


def harness(kind, condition=None):
    end = lambda values: values[0]  # noqa: E731 (a row: window end, key, name)
    key = lambda record: (record[1][0], record[1][1])  # noqa: E731
    return KeyedOperatorHarness(WindowJoin((end, end), condition, (3, 3), kind), (key, key))


def left(h, end, key, name):
    h.process_element1((INSERT, (at(end), key, name)), end - 1)


def right(h, end, key, name):
    h.process_element2((INSERT, (at(end), key, name)), end - 1)


def names(h):
    return [(v[2], v[5]) for _, v in h.extract_values()]


def test_an_inner_join_inserts_each_windows_pairs_once_its_end_passes():
    h = harness("inner")
    left(h, 10, 1, "a"), right(h, 10, 1, "x"), right(h, 10, 1, "y"), left(h, 10, 2, "b")
    left(h, 20, 1, "c"), right(h, 20, 1, "z")
    h.process_watermark(8)
    assert h.extract_values() == []
    h.process_watermark(9)
    assert names(h) == [("a", "x"), ("a", "y")]
    h.process_watermark(19)
    assert names(h) == [("c", "z")]
    assert h.num_keyed_state_entries() == 0


def test_outer_joins_pad_unmatched_rows_in_flinks_order():
    for kind, expected in [
        ("left", [("a", "x"), ("b", None)]),
        ("right", [("a", "x"), (None, "y")]),
        ("full", [("a", "x"), ("b", None), (None, "y")]),
    ]:
        h = harness(kind, condition=lambda row: row[2] == "a" and row[5] == "x")
        left(h, 10, 1, "a"), left(h, 10, 1, "b"), right(h, 10, 1, "x"), right(h, 10, 1, "y")
        h.process_watermark(100)
        assert names(h) == expected, kind


def test_a_row_of_an_ended_window_is_dropped():
    h = harness("full")
    h.process_watermark(50)
    left(h, 10, 1, "late"), right(h, 60, 1, "on time")
    h.process_watermark(100)
    assert names(h) == [(None, "on time")]
