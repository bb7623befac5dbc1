"""weir's Table API and SQL on the in-process executor (no JVM): Flink's results and
changelogs, SQL's NULL rules, the tableau's formatting, and clear errors."""

import pytest

from weir.common import RowKind
from weir.datastream import StreamExecutionEnvironment
from weir.table import DataTypes, StreamTableEnvironment
from weir.table.expressions import col, concat, if_then_else, lit
from weir.table.result import tableau
from weir.table.evaluate import Column
from weir.table.udf import AggregateFunction, udaf, udf


@pytest.fixture
def t_env():
    env = StreamExecutionEnvironment.get_execution_environment().set_executor("local")
    return StreamTableEnvironment.create(env)


def changelog(table):
    return [(str(r.get_row_kind()),) + tuple(r) for r in table.execute().collect()]


def by_key(rows):
    groups = {}
    for row in rows:
        groups.setdefault(row[1], []).append(row)
    return groups


def test_group_aggregation_emits_flinks_changelog_per_key(t_env):
    table = t_env.from_elements([("a", 1), ("b", 5), ("a", 2), ("a", 2)], ["k", "v"])
    result = changelog(
        table.group_by(col("k")).select(col("k"), col("v").sum.alias("s"), col("v").count)
    )
    assert by_key(result) == {
        "a": [
            ("+I", "a", 1, 1),
            ("-U", "a", 1, 1),
            ("+U", "a", 3, 2),
            ("-U", "a", 3, 2),
            ("+U", "a", 5, 3),
        ],
        "b": [("+I", "b", 5, 1)],
    }


def test_an_aggregate_over_a_changelog_retracts_and_deletes_emptied_groups(t_env):
    """Counting the counts: a key moving from count 1 to 2 retracts it from group 1."""
    table = t_env.from_elements([("a",), ("b",), ("a",)], ["k"])
    counts = table.group_by(col("k")).select(col("k"), col("k").count.alias("n"))
    result = changelog(
        counts.group_by(col("n")).select(
            col("n"), col("k").count.alias("c"), col("k").max.alias("m")
        )
    )
    groups = by_key(result)
    assert groups[2] == [("+I", 2, 1, "a")]
    final = {}
    for kind, n, c, m in result:
        if kind in ("+I", "+U"):
            final[n] = (c, m)
        elif kind == "-D":
            del final[n]
    assert final == {1: (1, "b"), 2: (1, "a")}


def test_sql_nulls_in_arithmetic_comparison_and_filters(t_env):
    table = t_env.from_elements([(1, None), (2, 3)], ["a", "b"])
    result = changelog(table.where(col("b") > 0).select(col("a"), col("a") + col("b")))
    assert result == [("+I", 2, 5)]
    rows = changelog(
        table.select(
            (col("a") + col("b")).alias("s"),
            if_then_else(col("b").is_null, "none", "some").alias("t"),
        )
    )
    assert rows == [("+I", None, "none"), ("+I", 5, "some")]


def test_casts_concat_and_integer_division(t_env):
    table = t_env.from_elements([(7, "12", True)], ["a", "b", "c"])
    rows = changelog(
        table.select(
            concat(col("a").cast(DataTypes.STRING()), "_", col("b")),
            col("b").cast(DataTypes.BIGINT()) + 1,
            col("a") / 2,
            col("c").cast(DataTypes.STRING()),
        )
    )
    assert rows == [("+I", "7_12", 13, 3, "TRUE")]
    with pytest.raises(Exception, match="cannot cast 'x'"):
        changelog(t_env.from_elements([("x",)], ["s"]).select(col("s").cast(DataTypes.INT())))


def test_outer_join_pads_then_retracts_the_padded_row(t_env):
    left = t_env.from_elements([(1, "l1"), (2, "l2")], ["id", "l"])
    right = t_env.from_elements([(1, "r1")], ["rid", "r"])
    rows = changelog(left.left_outer_join(right, col("id") == col("rid")))
    final = set()
    for kind, *values in rows:
        (final.add if kind in ("+I", "+U") else final.discard)(tuple(values))
    assert final == {(1, "l1", 1, "r1"), (2, "l2", None, None)}


def test_python_aggregate_function_and_distinct_and_limit(t_env):
    class Total(AggregateFunction):
        def create_accumulator(self):
            return [0]

        def accumulate(self, acc, value):
            acc[0] += value

        def get_value(self, acc):
            return acc[0]

    total = udaf(Total(), result_type=DataTypes.BIGINT())
    table = t_env.from_elements([("a", 1), ("a", 2), ("b", 3), ("a", 2)], ["k", "v"])
    assert [r[1:] for r in changelog(table.group_by(col("k")).select(col("k"), total(col("v"))))][
        -1
    ] in (("a", 5), ("b", 3))
    assert sorted(changelog(table.select(col("k")).distinct())) == [("+I", "a"), ("+I", "b")]
    assert changelog(table.limit(2)) == [("+I", "a", 1), ("+I", "a", 2)]


def test_sql_over_registered_tables_and_functions(t_env):
    table = t_env.from_elements([(1, "x"), (2, "yy"), (3, "zzz")], ["id", "s"])
    t_env.create_temporary_view("t", table)
    t_env.create_temporary_function("twice", udf(lambda v: v * 2, result_type=DataTypes.BIGINT()))
    result = t_env.execute_sql(
        "SELECT id, twice(id) AS d, CHAR_LENGTH(s) FROM t WHERE id >= 2 AND s <> 'q'"
    )
    assert [tuple(r) for r in result.collect()] == [(2, 4, 2), (3, 6, 3)]
    assert [c.name for c in result.columns] == ["id", "d", "EXPR$2"]


def test_malformed_sql_gets_one_error_with_line_and_column(t_env):
    with pytest.raises(ValueError, match="line 2, column 12"):
        t_env.execute_sql("SELECT id\nFROM t WHERE")
    t_env.create_temporary_view("o", t_env.from_elements([(1,)], ["a"]))
    with pytest.raises(NotImplementedError, match="WITH RECURSIVE is not supported"):
        t_env.sql_query("WITH RECURSIVE r AS (SELECT a FROM o) SELECT a FROM r")


def test_unknown_names_are_refused_before_running(t_env):
    table = t_env.from_elements([(1, 2)], ["a", "b"])
    with pytest.raises(ValueError, match="no column 'c'"):
        table.select(col("c"))
    with pytest.raises(ValueError, match="Object 'nope' not found"):
        t_env.from_path("nope")
    with pytest.raises(ValueError, match="ambiguous column name 'a'"):
        table.join(table)


def test_tableau_widths_nulls_truncation_and_counts():
    columns = [
        Column("id", DataTypes.BIGINT()),
        Column("flag", DataTypes.BOOLEAN()),
        Column("text", DataTypes.STRING()),
    ]
    text = tableau(columns, [(0, (1, None, "x" * 31)), (3, (None, True, "b"))], True)
    assert text.splitlines() == [
        "+----+----------------------+--------+--------------------------------+",
        "| op |                   id |   flag |                           text |",
        "+----+----------------------+--------+--------------------------------+",
        "| +I |                    1 | <NULL> | " + "x" * 27 + "... |",
        "| -D |               <NULL> |   TRUE |                              b |",
        "+----+----------------------+--------+--------------------------------+",
        "2 rows in set",
    ]
    assert tableau(columns, [], True) == "Empty set"


def test_collect_gives_rows_with_their_kind(t_env):
    table = t_env.from_elements([("a",), ("a",)], ["k"])
    rows = list(
        table.group_by(col("k")).select(col("k"), lit(1).count.alias("n")).execute().collect()
    )
    assert list(rows[-1]) == ["a", 2] and str(rows[-1]) == "<Row('a', 2)>"  # (PyFlink's)
    with pytest.raises(TypeError):
        rows[-1].as_dict()  # (PyFlink's collected rows have no field names)
    assert [r.get_row_kind() for r in rows] == [
        RowKind.INSERT,
        RowKind.UPDATE_BEFORE,
        RowKind.UPDATE_AFTER,
    ]
