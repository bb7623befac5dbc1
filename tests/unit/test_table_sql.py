"""weir's SQL on the in-process executor (no JVM): scopes, Top-N against a brute force,
window table functions' windows, OVER frames, the csv writer's quoting."""

import datetime
import decimal
import random

import pytest

from weir.datastream import StreamExecutionEnvironment
from weir.table import DataTypes, StreamTableEnvironment
from weir.table.evaluate import Column
from weir.table.formats import CsvFormat, JsonFormat
from weir.table.window_tvf import windows_of


@pytest.fixture
def t_env():
    env = StreamExecutionEnvironment.get_execution_environment().set_executor("local")
    return StreamTableEnvironment.create(env)


def final(result, key=None):
    """The changelog applied, sorted (by `key`: str where rows hold NULLs)."""
    rows = []
    for row in result.collect():
        if str(row.get_row_kind()) in ("+I", "+U"):
            rows.append(tuple(row))
        else:
            rows.remove(tuple(row))
    return sorted(rows, key=key)


def test_top_n_keeps_each_keys_best_rows_like_sorting_them(t_env):
    rng = random.Random(3)
    rows = [(rng.choice("abc"), rng.randrange(20), index) for index in range(200)]
    t_env.create_temporary_view("r", t_env.from_elements(rows, ["k", "v", "i"]))
    for output_rank in (True, False):
        picked = "k, v, i, rn" if output_rank else "k, v, i"
        result = final(
            t_env.execute_sql(
                f"SELECT {picked} FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k "
                "ORDER BY v DESC) AS rn FROM r) WHERE rn <= 3"
            )
        )
        expected = []
        for key in "abc":
            mine = [r for r in rows if r[0] == key]
            best = sorted(mine, key=lambda r: (-r[1], r[2]))[:3]  # ties: arrival order
            expected += [r + ((n + 1,) if output_rank else ()) for n, r in enumerate(best)]
        assert result == sorted(expected)


def test_qualified_names_and_clashing_join_columns(t_env):
    t_env.create_temporary_view("a", t_env.from_elements([(1, "x")], ["id", "v"]))
    t_env.create_temporary_view("b", t_env.from_elements([(1, "y")], ["id", "v"]))
    result = t_env.execute_sql("SELECT a.v, b.v, b.id FROM a JOIN b ON a.id = b.id")
    assert [c.name for c in result.columns] == ["v", "v0", "id"]
    assert final(result) == [("x", "y", 1)]
    with pytest.raises(ValueError, match="Column 'v' is ambiguous"):
        t_env.execute_sql("SELECT v FROM a JOIN b ON a.id = b.id")
    with pytest.raises(ValueError, match="Column 'c.v' not found"):
        t_env.execute_sql("SELECT c.v FROM a")


def test_having_case_count_distinct_and_filter(t_env):
    t_env.create_temporary_view(
        "t",
        t_env.from_elements(
            [("a", 1), ("a", 1), ("a", 2), ("b", 5), ("c", 7), ("c", 8)], ["k", "v"]
        ),
    )
    result = t_env.execute_sql(
        "SELECT k, COUNT(DISTINCT v) AS d, COUNT(*) FILTER (WHERE v > 1) AS big, "
        "CASE WHEN SUM(v) > 10 THEN 'many' ELSE 'few' END AS size "
        "FROM t GROUP BY k HAVING COUNT(*) >= 2"
    )
    assert final(result) == [("a", 2, 1, "few"), ("c", 2, 2, "many")]


def test_window_table_functions_assign_flinks_windows():
    assert windows_of("tumble", 7_500, 5_000, None) == [(5_000, 10_000)]
    assert windows_of("hop", 7_500, 10_000, 5_000) == [(0, 10_000), (5_000, 15_000)]
    assert windows_of("hop", 7_500, 10_000, 3_000) == [
        (0, 10_000),
        (3_000, 13_000),
        (6_000, 16_000),
    ]
    assert windows_of("cumulate", 7_500, 12_000, 4_000) == [(0, 8_000), (0, 12_000)]


def test_over_range_counts_the_rows_of_the_last_interval(t_env, tmp_path):
    path = tmp_path / "r.csv"
    path.write_text(
        "a,1,2026-01-01 00:00:01\na,2,2026-01-01 00:00:02\n"
        "a,3,2026-01-01 00:00:04\na,4,2026-01-01 00:00:07\n"
    )
    t_env.execute_sql(
        f"CREATE TABLE r (k STRING, v BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) "
        f"WITH ('connector' = 'filesystem', 'path' = '{path}', 'format' = 'csv')"
    )
    result = t_env.execute_sql(
        "SELECT v, COUNT(*) OVER (PARTITION BY k ORDER BY ts RANGE BETWEEN "
        "INTERVAL '2' SECOND PRECEDING AND CURRENT ROW) AS c FROM r"
    )
    assert final(result) == [(1, 1), (2, 2), (3, 2), (4, 1)]


def test_csv_quotes_as_flinks_writer():
    columns = [
        Column("s", DataTypes.STRING()),
        Column("n", DataTypes.INT()),
        Column("t", DataTypes.TIMESTAMP(3)),
    ]
    fmt = CsvFormat({})
    assert (
        fmt.write(("plain", 1, datetime.datetime(2026, 1, 1, 8, 0, 0, 500000)), columns)
        == 'plain,1,"2026-01-01 08:00:00.5"'
    )
    assert fmt.write(('a "b", c', None, None), columns) == '"a ""b"", c",,'
    assert fmt.parse('"a ""b"", c",7,2026-01-01 08:00:00', columns, "x") == (
        'a "b", c',
        7,
        datetime.datetime(2026, 1, 1, 8),
    )
    with pytest.raises(ValueError, match="csv line x: 2 fields, the table has 3"):
        fmt.parse("a,1", columns, "x")


def test_json_values_the_types_expect_and_others_read_alike():
    columns = [
        Column("s", DataTypes.STRING()),
        Column("n", DataTypes.INT()),
        Column("d", DataTypes.DOUBLE()),
        Column("t", DataTypes.TIMESTAMP(3)),
    ]
    fmt = JsonFormat({})
    stamp = datetime.datetime(2026, 1, 1, 8, 0, 0, 400000)
    assert fmt.parse(
        '{"s": "a", "n": 7, "d": 1.5, "t": "2026-01-01 08:00:00.400"}', columns, "x"
    ) == ("a", 7, 1.5, stamp)
    # other JSON values convert as casts do: a number as text, an INT out of range wraps,
    # an int as a DOUBLE, a timestamp's text with a T, missing fields and nulls are NULL
    assert fmt.parse(
        '{"s": 12, "n": 2147483648, "d": 2, "t": "2026-01-01T08:00:00.4"}', columns, "x"
    ) == ("12", -2147483648, 2.0, stamp)
    assert fmt.parse('{"s": null, "n": "8"}', columns, "x") == (None, 8, None, None)
    with pytest.raises(ValueError, match="json line x: .*'soon'.* to TIMESTAMP"):
        fmt.parse('{"t": "soon"}', columns, "x")


def test_union_all_union_and_order_by_limit(t_env):
    t_env.create_temporary_view(
        "x", t_env.from_elements([(1, "a"), (2, "b"), (5, "e")], ["n", "s"])
    )
    t_env.create_temporary_view("y", t_env.from_elements([(2, "b"), (3, "c")], ["m", "s"]))
    assert final(t_env.execute_sql("SELECT n, s FROM x UNION ALL SELECT m, s FROM y")) == [
        (1, "a"),
        (2, "b"),
        (2, "b"),
        (3, "c"),
        (5, "e"),
    ]
    assert final(t_env.execute_sql("SELECT n, s FROM x UNION SELECT m, s FROM y")) == [
        (1, "a"),
        (2, "b"),
        (3, "c"),
        (5, "e"),
    ]
    assert final(t_env.execute_sql("SELECT n, s FROM x ORDER BY n DESC LIMIT 2")) == [
        (2, "b"),
        (5, "e"),
    ]
    with pytest.raises(ValueError, match="same column types"):
        t_env.execute_sql("SELECT n FROM x UNION ALL SELECT s FROM y")
    with pytest.raises(
        ValueError, match="^Sort on a non-time-attribute field is not supported.$"
    ):  # (Flink's words: a streaming ORDER BY not by time)
        t_env.execute_sql("SELECT n FROM x ORDER BY n")


def _with_bids(t_env, tmp_path):
    (tmp_path / "bids.csv").write_text("2020-04-15 08:05:00,4,alice\n")
    t_env.execute_sql(
        "CREATE TABLE bids (ts TIMESTAMP(3), price INT, bidder STRING, "
        "WATERMARK FOR ts AS ts) WITH ('connector' = 'filesystem', "
        f"'path' = '{tmp_path}/bids.csv', 'format' = 'csv')"
    )


@pytest.mark.parametrize(
    "query, error, message",
    [
        (
            "SELECT window_start, window_end, COUNT(*) FROM TABLE(SESSION(TABLE bids, "
            "DESCRIPTOR(ts), INTERVAL '1' MINUTE)) WHERE window_end > ts "
            "GROUP BY window_start, window_end",
            NotImplementedError,
            "a WHERE on a SESSION window's columns before its window aggregation",
        ),
        (
            "SELECT * FROM TABLE(TUMBLE(TABLE bids PARTITION BY bidder, DESCRIPTOR(ts), "
            "INTERVAL '1' MINUTE))",
            ValueError,
            "TUMBLE takes no PARTITION BY",
        ),
        (
            "SELECT * FROM TABLE(SESSION(TABLE bids PARTITION BY nobody, DESCRIPTOR(ts), "
            "INTERVAL '1' MINUTE))",
            ValueError,
            "PARTITION BY names no column .*'nobody'",
        ),
        (
            "WITH RECURSIVE r AS (SELECT 1 AS n) SELECT n FROM r",
            NotImplementedError,
            "WITH RECURSIVE",
        ),
        (
            "SELECT TIMESTAMPDIFF(FORTNIGHT, ts, ts) FROM bids",
            ValueError,
            "unknown time unit 'FORTNIGHT'",
        ),
    ],
)
def test_what_session_windows_with_and_time_units_refuse(t_env, tmp_path, query, error, message):
    _with_bids(t_env, tmp_path)
    with pytest.raises(error, match=message):
        t_env.execute_sql(query).collect()


def test_decimal_arithmetic_has_flinks_types_and_rounding(t_env):
    """Result types and values as PyFlink 2.3 printed them for the same statements
    (a literal's precision counts its leading zero; BIGINT is DECIMAL(19, 0); past 38
    digits the scale gives way, down to 6; a quotient is rounded half up)."""
    t_env.execute_sql(
        "CREATE TABLE b (price BIGINT, n INT, d DECIMAL(10,2), "
        "e DECIMAL(30, 10)) WITH ('connector'='datagen', 'number-of-rows'='1')"
    )
    table = t_env.sql_query(
        "SELECT 0.908 * price, price * 0.908, n * 1.5, d * d, d + 1, "
        "d / 3, price + 0.5, e * e, e / d, d - n FROM b"
    )
    assert [str(c.data_type) for c in table._node.columns] == [
        "DECIMAL(24, 3)",
        "DECIMAL(24, 3)",
        "DECIMAL(13, 1)",
        "DECIMAL(21, 4)",
        "DECIMAL(13, 2)",
        "DECIMAL(21, 13)",
        "DECIMAL(21, 1)",
        "DECIMAL(38, 6)",
        "DECIMAL(38, 16)",
        "DECIMAL(13, 2)",
    ]
    rows = list(
        t_env.execute_sql(
            "SELECT CAST(1.25 AS DECIMAL(10,2)) / 3, CAST(10 AS DECIMAL(10,2)) / "
            "CAST(4 AS DECIMAL(5,1)), CAST(2.5 AS DECIMAL(4,1)) * CAST(2.5 AS DECIMAL(4,1)), "
            "0.908 * 12345, CAST(-1.25 AS DECIMAL(10,2)) / 3, CAST(2.5 AS DECIMAL(3,1)) / "
            "CAST(0.25 AS DECIMAL(3,2))"
        ).collect()
    )
    assert [str(v) for v in rows[0]] == [
        "0.4166666666667",
        "2.50000000",
        "6.25",
        "11209.260",
        "-0.4166666666667",
        "10.000000",
    ]
    big = "CAST('90000000000000000000000000000000000000' AS DECIMAL(38,0))"
    assert tuple(list(t_env.execute_sql(f"SELECT {big} * 10, {big} + 1").collect())[0]) == (
        None,
        decimal.Decimal("90000000000000000000000000000000000001"),
    )  # (overflow)


def test_integer_sums_wrap_and_averages_truncate_as_flinks(t_env):
    """Final rows as PyFlink 2.3 printed them: SUM in the argument's type, wrapping; AVG
    the quotient, truncated toward zero, of a BIGINT sum."""
    result = t_env.execute_sql(
        "SELECT SUM(i), AVG(i), SUM(b), AVG(b), SUM(CAST(i AS TINYINT)), "
        "AVG(CAST(i AS SMALLINT)) FROM (VALUES (2147483647, CAST(9223372036854775807 AS "
        "BIGINT)), (1, CAST(1 AS BIGINT)), (2147483647, CAST(9223372036854775807 AS "
        "BIGINT))) AS T(i, b)"
    )
    assert final(result) == [(-1, 1431655765, -1, 0, -1, 0)]
    assert final(
        t_env.execute_sql("SELECT SUM(i), AVG(i) FROM (VALUES (-7), (2), (-2)) AS T(i)")
    ) == [(-7, -2)]


@pytest.mark.parametrize(
    "query, rows",
    [
        ("SELECT x FROM a INTERSECT SELECT x FROM b", [(2,), (3,), (None,)]),
        ("SELECT x FROM a EXCEPT SELECT x FROM b", [(1,), (4,)]),
        ("SELECT x FROM a INTERSECT ALL SELECT x FROM b", [(2,), (3,), (None,)]),
        ("SELECT x FROM a EXCEPT ALL SELECT x FROM b", [(1,), (2,), (4,)]),
    ],
)
def test_intersect_and_except_keep_the_rows_of_sets_and_multisets(t_env, query, rows):
    """The final rows PyFlink 2.3 printed for these four (its changelogs applied; weir's
    changelogs have other intermediate updates), and NULL equal to NULL."""
    t_env.create_temporary_view(
        "a", t_env.from_elements([(1,), (2,), (2,), (3,), (4,), (None,)], ["x"])
    )
    t_env.create_temporary_view(
        "b", t_env.from_elements([(2,), (3,), (3,), (5,), (None,), (None,)], ["x"])
    )
    assert final(t_env.execute_sql(query), key=str) == sorted(rows, key=str)


def test_the_table_apis_set_operations_in_batch_mode(t_env):
    from weir.table import EnvironmentSettings

    env = StreamExecutionEnvironment.get_execution_environment().set_executor("local")
    batch = StreamTableEnvironment.create(env, EnvironmentSettings.in_batch_mode())
    left = batch.from_elements([(1, "a"), (1, "a"), (2, "b")], ["n", "s"])
    right = batch.from_elements([(1, "a"), (3, "c")], ["m", "t"])
    assert final(left.intersect(right).execute()) == [(1, "a")]
    assert final(left.minus_all(right).execute()) == [(1, "a"), (2, "b")]
    assert final(left.intersect_all(right).execute()) == [(1, "a")]
    assert final(left.minus(right).execute()) == [(2, "b")]
    with pytest.raises(ValueError, match="same column types"):
        left.intersect(batch.from_elements([(1,)], ["n"]))
    streaming = t_env.from_elements([(1,)], ["n"])  # (Flink: batch mode only)
    with pytest.raises(ValueError, match="INTERSECT operation on two unbounded tables"):
        streaming.intersect(streaming)


def _mini_batch(t_env, latency="2 s", size="100"):
    config = t_env.get_config().set("table.exec.mini-batch.enabled", "true")
    if latency is not None:
        config.set("table.exec.mini-batch.allow-latency", latency)
    if size is not None:
        config.set("table.exec.mini-batch.size", size)


def test_under_mini_batch_a_group_changes_once_per_bundle_with_its_final_row(t_env):
    rng = random.Random(5)
    rows = [(rng.choice("abcd"), rng.randrange(-50, 50)) for _ in range(300)]
    t_env.create_temporary_view("r", t_env.from_elements(rows, ["k", "v"]))
    query = (
        "SELECT k, COUNT(*), SUM(v), MIN(v), COUNT(DISTINCT v) FILTER (WHERE v > 0) "
        "FROM r GROUP BY k"
    )
    row_by_row = [str(r.get_row_kind()) for r in t_env.execute_sql(query).collect()]
    _mini_batch(t_env)
    with t_env.execute_sql(query).collect() as result:
        bundled = [(str(r.get_row_kind()), tuple(r)) for r in result]
    expected = sorted(
        (k, len(vs), sum(vs), min(vs), len({v for v in vs if v > 0}))
        for k in "abcd"
        for vs in [[v for key, v in rows if key == k]]
    )
    assert row_by_row.count("+I") == 4 and row_by_row.count("+U") == 296
    assert sorted(bundled) == [("+I", row) for row in expected]


@pytest.mark.parametrize(
    "latency, size, message",
    [
        (None, "100", r"MiniBatch Latency must be greater than 0 ms. \[null\]"),
        ("0 ms", "100", r"MiniBatch Latency must be greater than 0 ms. \[0 ms\]"),
        ("2 s", None, r"'table.exec.mini-batch.size' , default: -1 .* must be > 0"),
        ("2 s", "0", r"'table.exec.mini-batch.size' , default: -1 .* must be > 0 \(it is 0\)"),
    ],
)
def test_mini_batch_without_a_positive_latency_and_size_is_refused_as_flink_does(
    t_env, latency, size, message
):
    t_env.create_temporary_view("r", t_env.from_elements([("a", 1)], ["k", "v"]))
    _mini_batch(t_env, latency, size)
    with pytest.raises(ValueError, match=message):
        t_env.execute_sql("SELECT k, COUNT(*) FROM r GROUP BY k")


def test_collected_rows_close_as_pyflinks_closeable_iterator(t_env):
    with t_env.execute_sql("SELECT * FROM (VALUES (1), (2), (3)) AS t(x)").collect() as rows:
        assert next(rows)[0] == 1 and rows.next()[0] == 2
    assert list(rows) == []
    stream = t_env.to_data_stream(t_env.from_elements([(1,), (2,)], ["x"]))
    with stream.execute_and_collect() as results:
        assert [tuple(r) for r in results] == [(1,), (2,)]


def test_round_and_uuid_as_flinks(t_env):
    """ROUND half away from zero on the double's decimal text (PyFlink 2.3 printed these
    for the same query); UUID() a new random UUID per call."""
    row = list(
        t_env.execute_sql(
            "SELECT ROUND(2.45e0, 1), ROUND(-2.45e0, 1), ROUND(CAST(125 AS INT), -1), "
            "ROUND(3.14159e0, 3), ROUND(2.5e0), ROUND(CAST(1.005 AS DOUBLE), 2), UUID(), "
            "UUID()"
        ).collect()
    )[0]
    assert tuple(row)[:6] == (2.5, -2.5, 130, 3.142, 3.0, 1.01)
    first, second = row[6], row[7]
    assert len(first) == 36 and first.count("-") == 4 and first != second


def test_json_ignore_parse_errors_nulls_a_field_and_skips_a_broken_line(t_env, tmp_path):
    """As Flink's json format: a value its column cannot take is NULL, a line that is
    not an object is skipped."""
    (tmp_path / "in.json").write_text(
        '{"a": 1, "b": "x"}\n{"a": "n/a", "b": "y"}\nnot json\n{"a": 3}\n'
    )
    t_env.execute_sql(
        "CREATE TABLE j (a INT, b STRING) WITH ('connector' = 'filesystem', "
        f"'path' = '{tmp_path}/in.json', 'format' = 'json', "
        "'json.ignore-parse-errors' = 'true')"
    )
    rows = [tuple(r) for r in t_env.execute_sql("SELECT * FROM j").collect()]
    assert rows == [(1, "x"), (None, "y"), (3, None)]


def test_a_processing_time_range_over_window_takes_the_rows_of_its_interval():
    """RANGE BETWEEN INTERVAL '10' SECOND PRECEDING over a PROCTIME() attribute: a row
    comes out at once with the rows of the last 10 s of processing time and itself."""
    from weir.table.aggregates import Count, Sum
    from weir.table.windowing import ProcTimeOverFunction
    from weir.testing.harness import KeyedOperatorHarness

    price = lambda values: values[1]  # noqa: E731
    harness = KeyedOperatorHarness(
        ProcTimeOverFunction([Sum([price]), Count([price])], ("range", 10_000)),
        lambda record: record[1][0],
    )
    for now, price_ in ((1_000, 5), (4_000, 7), (11_000, 1), (14_001, 2), (14_001, 3)):
        harness.set_processing_time(now)
        harness.process_element((0, ("k", price_)))
    assert [v[1] for v in harness.extract_values()] == [
        ("k", 5, 5, 1),
        ("k", 7, 12, 2),
        ("k", 1, 13, 3),
        ("k", 2, 3, 2),
        ("k", 3, 6, 3),
    ]
