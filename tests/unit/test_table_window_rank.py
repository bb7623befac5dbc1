"""Window Top-N (weir.table.window_rank) through the operator harness: each window's
best rows inserted once at its end, ties, deduplication keeping the last row, late rows."""

import datetime

from weir.table.changelog import INSERT
from weir.table.window_rank import WindowTopN
from weir.testing.harness import KeyedOperatorHarness


def at(ms):
    return datetime.datetime(1970, 1, 1) + datetime.timedelta(milliseconds=ms)


def harness(rank_end, output_rank=True, ties_last=False, descending=True):
    function = WindowTopN(
        lambda values: values[0],
        [lambda values: values[1]],
        [descending],
        rank_end,
        output_rank,
        ties_last,
    )
    return KeyedOperatorHarness(function, lambda record: record[1][0])


def feed(h, rows):
    for end, score, name in rows:
        h.process_element((INSERT, (at(end), score, name)), end - 5)


def test_each_window_inserts_its_best_rows_ranked_once_its_end_passes():
    h = harness(2)
    feed(h, [(10, 1, "a"), (10, 5, "b"), (20, 7, "x"), (10, 3, "c"), (10, 4, "d")])
    h.process_watermark(8)
    assert h.extract_values() == []
    h.process_watermark(9)
    assert h.extract_values() == [(INSERT, (at(10), 5, "b", 1)), (INSERT, (at(10), 4, "d", 2))]
    h.process_watermark(19)
    assert h.extract_values() == [(INSERT, (at(20), 7, "x", 1))]
    assert h.num_keyed_state_entries() == 0


def test_ties_rank_in_arrival_order_and_a_last_row_deduplication_keeps_the_latest():
    h = harness(2, output_rank=False)
    feed(h, [(10, 5, "first"), (10, 5, "second"), (10, 5, "third")])
    h.process_watermark(100)
    assert [v[1][2] for v in h.extract_values()] == ["first", "second"]
    h = harness(1, output_rank=False, ties_last=True)
    feed(h, [(10, 5, "first"), (10, 5, "second"), (10, 2, "older")])
    h.process_watermark(100)
    assert [v[1][2] for v in h.extract_values()] == ["second"]


def test_rows_beyond_twice_n_are_trimmed_without_changing_the_result():
    h = harness(1, descending=False)
    feed(h, [(10, s, str(s)) for s in (9, 8, 7, 3, 6, 5, 4, 3)])
    h.process_watermark(9)
    assert h.extract_values() == [(INSERT, (at(10), 3, "3", 1))]


def test_a_row_of_a_window_that_has_ended_is_dropped():
    h = harness(3)
    h.process_watermark(50)
    feed(h, [(10, 1, "late"), (60, 2, "on time")])
    h.process_watermark(100)
    assert h.extract_values() == [(INSERT, (at(60), 2, "on time", 1))]
