"""Flink's temporal sort (weir.table.temporal_sort) through the harness: a time's rows come
out when the watermark passes it, ordered by the other keys; a row whose time has come
out is late and dropped; state is empty once every time is out. The SQL and Table API
forms against PyFlink: tests/table_programs/sql_temporal_sort.py."""

import datetime
import operator

from weir.table.changelog import INSERT
from weir.table.temporal_sort import RowTimeSort
from weir.testing.harness import KeyedOperatorHarness

EPOCH = datetime.datetime(1970, 1, 1)


def row(millis, name, score):
    return INSERT, (EPOCH + datetime.timedelta(milliseconds=millis), name, score)


def names(outputs):
    return [values[1] for (_, values), _ in outputs]


def test_rows_come_out_by_time_then_by_the_other_keys_and_late_rows_are_dropped():
    sort = RowTimeSort(0, [operator.itemgetter(2)], [True], False)
    h = KeyedOperatorHarness(sort, lambda record: ())
    for millis, name, score in [
        (5, "e1", 3),
        (1, "e2", 7),
        (3, "e3", 1),
        (3, "e4", 9),
        (9, "e5", 2),
    ]:
        h.process_element(row(millis, name, score), millis)
    h.process_watermark(3)
    assert names(h.extract_outputs()) == ["e2", "e4", "e3"]  # (time 3: score descending)
    for millis, name, score in [(3, "late", 0), (2, "later", 0), (4, "e6", 1)]:
        h.process_element(row(millis, name, score), millis)
    h.process_watermark(100)
    assert names(h.extract_outputs()) == ["e6", "e1", "e5"]
    assert h.num_keyed_state_entries() == 1  # (the last time out, to tell late rows)
    assert h.num_timers() == 0


def test_ties_keep_their_arrival_order_and_nulls_sort_as_asked():
    rows = [(7, "a", None), (7, "b", 2), (7, "c", None), (7, "d", 1)]
    for nulls_high, expected in ((False, ["a", "c", "d", "b"]), (True, ["d", "b", "a", "c"])):
        h = KeyedOperatorHarness(
            RowTimeSort(0, [operator.itemgetter(2)], [False], nulls_high), lambda record: ()
        )
        for millis, name, score in rows:
            h.process_element(row(millis, name, score), millis)
        h.process_watermark(7)
        assert names(h.extract_outputs()) == expected
