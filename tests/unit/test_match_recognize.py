"""MATCH_RECOGNIZE's PATTERN text and what it refuses, with the errors PyFlink 2.3 raises
for the same queries (its wording, checked there); its results are pinned against PyFlink
by tests/table_programs/sql_match_recognize*.py."""

import pytest

from weir.datastream import StreamExecutionEnvironment
from weir.table import StreamTableEnvironment
from weir.table.match_recognize import parse_pattern


@pytest.fixture
def t_env(tmp_path):
    env = StreamExecutionEnvironment.get_execution_environment().set_executor("local")
    t_env = StreamTableEnvironment.create(env)
    (tmp_path / "ticker.csv").write_text(
        "ACME,12,2011-04-01 10:00:00\nACME,17,2011-04-01 10:00:01\n"
        "ACME,13,2011-04-01 10:00:02\nACME,20,2011-04-01 10:00:03\n"
    )
    t_env.execute_sql(
        "CREATE TABLE Ticker (symbol STRING, price BIGINT, rowtime TIMESTAMP(3), "
        "WATERMARK FOR rowtime AS rowtime) WITH ('connector' = 'filesystem', "
        f"'path' = '{tmp_path}/ticker.csv', 'format' = 'csv')"
    )
    return t_env


def test_a_pattern_is_its_variables_with_bounds_and_greediness():
    assert parse_pattern("A B+ C*? D{2} E{1,} F{2,3}? G? `h`") == [
        ("A", "", 1, 1, True),
        ("B", "+", 1, -1, True),
        ("C", "*?", 0, -1, False),
        ("D", "{2}", 2, 2, True),
        ("E", "{1,}", 1, -1, True),
        ("F", "{2,3}?", 2, 3, False),
        ("G", "?", 0, 1, True),
        ("h", "", 1, 1, True),
    ]


def _query(
    pattern="A B",
    define="B AS B.price > A.price",
    measures="A.price AS a",
    order="rowtime",
    rest="",
    rows="",
):
    return (
        f"SELECT * FROM Ticker MATCH_RECOGNIZE (PARTITION BY symbol ORDER BY {order} "
        f"MEASURES {measures} {rows} {rest} PATTERN ({pattern}) DEFINE {define})"
    )


@pytest.mark.parametrize(
    "query, error, message",
    [
        (
            _query(pattern="A*"),
            NotImplementedError,
            "Patterns that can produce empty matches are not supported",
        ),
        (
            _query(pattern="A B*"),
            NotImplementedError,
            "Greedy quantifiers are not allowed as the last element of a Pattern yet",
        ),
        (
            _query(pattern="A B?? C"),
            NotImplementedError,
            "Reluctant optional variables are not supported yet",
        ),
        (_query(pattern="A (B C)+ D"), NotImplementedError, "Group patterns are not supported yet"),
        (_query(pattern="A | B"), NotImplementedError, "CEP doesn't support branching patterns"),
        (
            _query(pattern="A {- B*? -} C"),
            NotImplementedError,
            "CEP doesn't support '{-' '-}' patterns",
        ),
        (
            _query(pattern="PERMUTE(A, B)"),
            NotImplementedError,
            "CEP doesn't support PERMUTE patterns",
        ),
        (_query(pattern="A A"), ValueError, "Pattern variables must be unique"),
        (
            _query(rows="ALL ROWS PER MATCH"),
            NotImplementedError,
            "All rows per match mode is not supported yet",
        ),
        (
            _query(order="price"),
            ValueError,
            "You must specify either rowtime or proctime for order by as the first one",
        ),
        (
            _query(order="rowtime DESC"),
            ValueError,
            "Primary sort order of a streaming table must be ascending on time",
        ),
        (
            _query(define="B AS B.price > PREV(B.price)"),
            NotImplementedError,
            "Flink does not support physical offsets within partition",
        ),
        (_query(define="B AS B.price > C.price"), ValueError, "Table 'C' not found"),
        (
            _query(measures="AVG(A.price * B.price) AS x"),
            ValueError,
            "references several pattern variables",
        ),
        (
            _query(measures="COUNT(DISTINCT A.price) AS x"),
            NotImplementedError,
            "DISTINCT aggregations",
        ),
        (_query(rest="AFTER MATCH SKIP TO LAST Z"), ValueError, "Unknown pattern variable"),
    ],
)
def test_what_match_recognize_refuses_as_flink_does(t_env, query, error, message):
    with pytest.raises(error, match=message):
        t_env.execute_sql(query).collect()


def test_skipping_to_a_matchs_first_row_fails_the_job_as_in_flink(t_env):
    """AFTER MATCH SKIP TO FIRST A where A is the match's first row would find the same
    match again: Flink fails the job, and so does weir."""
    query = _query(pattern="A+ C", define="A AS A.price < 15", rest="AFTER MATCH SKIP TO FIRST A")
    with pytest.raises(Exception, match="Could not skip to first element of a match"):
        list(t_env.execute_sql(query).collect())


def test_a_define_of_a_name_outside_the_pattern_is_ignored_as_in_flink(t_env):
    rows = [
        tuple(r)
        for r in t_env.execute_sql(
            _query(
                define="B AS B.price > A.price, X AS X.price > 1000",
                measures="B.price AS b",
                rest="AFTER MATCH SKIP PAST LAST ROW",
            )
        ).collect()
    ]
    assert rows == [("ACME", 17), ("ACME", 20)]


def test_match_proctime_is_the_processing_time_a_match_is_made_at(t_env):
    import datetime

    before = datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(seconds=1)
    table = t_env.sql_query(
        _query(
            measures="B.price AS b, MATCH_PROCTIME() AS made", rest="AFTER MATCH SKIP PAST LAST ROW"
        )
    )
    assert [c.proctime for c in table._node.columns] == [False, False, True]
    rows = [tuple(r) for r in table.execute().collect()]
    after = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(seconds=1)
    assert [r[:2] for r in rows] == [("ACME", 17), ("ACME", 20)]
    assert all(before <= r[2] <= after for r in rows)
