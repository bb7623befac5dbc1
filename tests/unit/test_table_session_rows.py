"""SESSION's window table function on its own (weir.table.session_rows) through the
operator harness: merging, firing at the watermark, late rows, snapshots."""

import datetime

from weir.table.changelog import INSERT
from weir.table.session_rows import SessionRows
from weir.testing.harness import KeyedOperatorHarness

GAP = 10


def at(ms):
    return datetime.datetime(1970, 1, 1) + datetime.timedelta(milliseconds=ms)


def row(key, ms):
    return INSERT, (key, at(ms))


def harness():
    return KeyedOperatorHarness(SessionRows(1, GAP), lambda record: record[1][0])


def emitted(h):
    return [
        (values[0], values[1], values[2], values[3], values[4]) for _, values in h.extract_values()
    ]


def test_rows_that_overlap_or_touch_merge_into_one_session_fired_at_its_end():
    h = harness()
    for key, ms in [("a", 0), ("b", 3), ("a", 20), ("a", 10)]:  # (a@10 joins a@0, a@20)
        h.process_element(row(key, ms), ms)
    h.process_watermark(12)
    assert emitted(h) == [("b", at(3), at(3), at(13), at(12))]
    h.process_watermark(29)
    assert emitted(h) == [
        ("a", at(0), at(0), at(30), at(29)),
        ("a", at(20), at(0), at(30), at(29)),
        ("a", at(10), at(0), at(30), at(29)),
    ]  # (in arrival order)
    assert h.num_keyed_state_entries() == 0


def test_a_row_whose_session_has_ended_is_dropped_and_one_that_extends_an_open_one_is_not():
    h = harness()
    h.process_element(row("a", 50), 50)
    h.process_watermark(55)
    h.process_element(row("a", 30), 30)  # (its own session [30, 40) has ended: late)
    h.process_element(row("a", 45), 45)  # ([45, 55) touches [50, 60), which is open)
    h.process_watermark(100)
    assert [(r[1], r[2], r[3]) for r in emitted(h)] == [
        (at(50), at(45), at(60)),
        (at(45), at(45), at(60)),
    ]


def test_open_sessions_are_restored_from_a_snapshot():
    h = harness()
    h.process_element(row("a", 0), 0).process_element(row("a", 5), 5)
    snapshot = h.snapshot()
    restored = KeyedOperatorHarness.restore(
        SessionRows(1, GAP), lambda record: record[1][0], snapshot
    )
    restored.process_element(row("a", 12), 12)
    restored.process_watermark(100)
    assert [(r[1], r[2], r[3]) for r in emitted(restored)] == [
        (at(0), at(0), at(22)),
        (at(5), at(0), at(22)),
        (at(12), at(0), at(22)),
    ]
