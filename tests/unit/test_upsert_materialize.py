"""Flink's sink upsert materializer (weir.table.upsert_materialize): when it is needed
(the query's unique keys against the sink's primary key) and what it writes, through
the operator harness."""

import pytest

from weir.table import EnvironmentSettings, TableEnvironment
from weir.table.changelog import DELETE, INSERT, UPDATE_AFTER, UPDATE_BEFORE
from weir.table.upsert_materialize import SinkUpsertMaterializer, needs_materializer
from weir.testing.harness import KeyedOperatorHarness

I, UB, UA, D = INSERT, UPDATE_BEFORE, UPDATE_AFTER, DELETE  # noqa: E741


@pytest.fixture
def counts():
    t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    t_env.create_temporary_view("words", t_env.from_elements([("a", 1), ("b", 2)], ["word", "len"]))
    return t_env


@pytest.mark.parametrize(
    "query, key, mode, needed",
    [
        ("SELECT word, COUNT(*) AS n FROM words GROUP BY word", ["word"], "AUTO", False),
        ("SELECT word AS w, COUNT(*) AS n FROM words GROUP BY word", ["w", "n"], "AUTO", False),
        ("SELECT word, COUNT(*) AS n FROM words GROUP BY word", ["n"], "AUTO", True),
        ("SELECT len, word, COUNT(*) AS n FROM words GROUP BY len, word", ["len"], "AUTO", True),
        ("SELECT word, COUNT(*) AS n FROM words GROUP BY word", ["word"], "FORCE", True),
        ("SELECT word, COUNT(*) AS n FROM words GROUP BY word", ["n"], "NONE", False),
        ("SELECT word, len FROM words", ["len"], "FORCE", False),  # (inserts only)
    ],
)
def test_it_is_added_where_no_unique_key_of_the_query_is_within_the_sinks(
    counts, query, key, mode, needed
):
    assert needs_materializer(counts.sql_query(query)._node, key, mode) is needed


def test_a_mode_it_does_not_know_is_refused(counts):
    node = counts.sql_query("SELECT word, COUNT(*) FROM words GROUP BY word")._node
    with pytest.raises(ValueError, match="AUTO, FORCE, NONE"):
        needs_materializer(node, ["word"], "SOMETIMES")


def run(changes):
    harness = KeyedOperatorHarness(SinkUpsertMaterializer(), lambda record: record[1][0])
    for change in changes:
        harness.process_element(change)
    return harness.extract_values(), harness.num_keyed_state_entries()


def test_rows_of_one_key_are_kept_and_the_last_one_left_is_the_keys():
    out, kept = run(
        [
            (I, (5, "flink", 1)),
            (I, (5, "spark", 1)),
            (UB, (5, "spark", 1)),
            (UA, (5, "spark", 2)),  # (spark: last again)
            (D, (5, "flink", 1)),  # (not the last row: nothing changes)
            (D, (5, "spark", 2)),
        ]
    )  # (the key's last row: its delete)
    assert out == [
        (I, (5, "flink", 1)),
        (UA, (5, "spark", 1)),
        (UA, (5, "flink", 1)),
        (UA, (5, "spark", 2)),
        (D, (5, "spark", 2)),
    ]
    assert kept == 0


def test_removing_the_last_row_writes_the_one_before_it():
    out, kept = run(
        [(I, (4, "weir", 1)), (I, (4, "java", 1)), (UB, (4, "java", 1)), (D, (4, "gone", 9))]
    )  # (a retraction of no row kept: nothing)
    assert out == [(I, (4, "weir", 1)), (UA, (4, "java", 1)), (UA, (4, "weir", 1))]
    assert kept == 1
