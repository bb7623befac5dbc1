"""BATCH mode's sort (weir.table.sort.FinalRows) through the harness: a changelog's
final rows, sorted at the end of the input, NULLs by SQL's or the Table API's rule."""

import pytest

from weir.table.changelog import DELETE, INSERT, UPDATE_AFTER, UPDATE_BEFORE
from weir.table.sort import FinalRows, compare
from weir.testing.harness import KeyedOperatorHarness

ROWS = [("b", 2), (None, 9), ("a", 5), ("c", None), ("a", 1)]


def _sorted(
    rows, directions, offset=0, fetch=None, output_rank=False, nulls_high=False, retract=()
):
    function = FinalRows(
        [lambda v: v[0], lambda v: v[1]], directions, offset, fetch, output_rank, nulls_high
    )
    harness = KeyedOperatorHarness(function, lambda record: 0, batch_execution=True)
    for values in rows:
        harness.process_element((INSERT, values), 0)
    for kind, values in retract:
        harness.process_element((kind, values), 0)
    assert harness.extract_values() == []  # (nothing before the end of the input)
    harness.end_input()
    return harness.extract_values()


def test_sql_order_puts_nulls_first_ascending_and_last_descending():
    assert _sorted(ROWS, [False, False]) == [
        (INSERT, r) for r in [(None, 9), ("a", 1), ("a", 5), ("b", 2), ("c", None)]
    ]
    assert _sorted(ROWS, [True, True]) == [
        (INSERT, r) for r in [("c", None), ("b", 2), ("a", 5), ("a", 1), (None, 9)]
    ]


def test_the_table_apis_order_takes_null_as_the_largest_value():
    assert _sorted(ROWS, [False, False], nulls_high=True) == [
        (INSERT, r) for r in [("a", 1), ("a", 5), ("b", 2), ("c", None), (None, 9)]
    ]
    assert _sorted(ROWS, [True, False], nulls_high=True) == [
        (INSERT, r) for r in [(None, 9), ("c", None), ("b", 2), ("a", 1), ("a", 5)]
    ]


def test_offset_fetch_and_row_numbers():
    assert _sorted(ROWS, [False, False], offset=1, fetch=2) == [
        (INSERT, ("a", 1)),
        (INSERT, ("a", 5)),
    ]
    assert _sorted(ROWS, [False, False], fetch=2, output_rank=True) == [
        (INSERT, (None, 9, 1)),
        (INSERT, ("a", 1, 2)),
    ]


def test_a_changelogs_retractions_are_applied_before_sorting():
    retract = [
        (UPDATE_BEFORE, ("a", 5)),
        (UPDATE_AFTER, ("a", 7)),
        (DELETE, ("b", 2)),
        (DELETE, ("z", 0)),
    ]  # (a retraction of a row never seen: nothing)
    assert _sorted(ROWS, [False, False], retract=retract) == [
        (INSERT, r) for r in [(None, 9), ("a", 1), ("a", 7), ("c", None)]
    ]


@pytest.mark.parametrize(
    "a, b, expected",
    [
        ((1,), (2,), -1),
        ((2,), (1,), 1),
        ((1,), (1,), 0),
        ((None,), (1,), -1),
        ((1,), (None,), 1),
        ((None,), (None,), 0),
    ],
)
def test_compare_ascending_with_nulls_low(a, b, expected):
    assert compare(a, b, [False]) == expected
    assert compare(a, b, [False], nulls_high=True) == (-expected if None in a + b else expected)
