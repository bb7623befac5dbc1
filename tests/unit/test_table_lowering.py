"""Which Table queries weir lowers to Spark SQL, and the Spark SQL (no JVM: the text
only; tests/e2e/test_lowered_table_jobs.py runs it)."""

import pytest

from weir.datastream import StreamExecutionEnvironment
from weir.table import DataTypes, StreamTableEnvironment
from weir.table.evaluate import Column
from weir.table.expressions import col
from weir.table.lowering import json_line, lower_query, lowered_sink
from weir.table.connectors import connector_of
from weir.table.spark_sql import to_spark_sql

COLUMNS = [
    Column("n", DataTypes.INT()),
    Column("b", DataTypes.BIGINT()),
    Column("s", DataTypes.STRING()),
    Column("t", DataTypes.TIMESTAMP(3)),
    Column("d", DataTypes.DECIMAL(10, 2)),
    Column("x", DataTypes.DOUBLE()),
    Column("y", DataTypes.TINYINT()),
]


@pytest.mark.parametrize(
    "expr, sql",
    [
        (col("n") + col("b") * 2, "(_c0 + (_c1 * CAST(2 AS INT)))"),
        ((col("s") == "it's") & col("x").is_not_null, "((_c2 = 'it\\'s') AND (_c5 IS NOT NULL))"),
        (col("n") % 7, "(_c0 % CAST(7 AS INT))"),
        (col("s").upper_case, "upper(_c2)"),
        (col("n").cast(DataTypes.BIGINT()), "CAST(_c0 AS BIGINT)"),
        (col("d") * col("b"), "(_c4 * _c1)"),
    ],
)
def test_what_spark_computes_as_flink_is_lowered(expr, sql):
    assert to_spark_sql(expr, COLUMNS) == sql


@pytest.mark.parametrize(
    "expr",
    [
        col("n") / 2,  # integer division: Flink's, not Spark's
        col("n") % col("b"),  # a remainder by 0 fails on Flink, NULL on Spark
        col("n") % 0,
        col("y") + col("y"),  # TINYINT arithmetic widens apart
        col("s").like("a%"),
        col("n").cast(DataTypes.STRING()),  # casts to text print apart
        col("b").cast(DataTypes.INT()),  # narrowing
        col("s") == col("n"),  # a comparison across type families
        col("d") * col("d") * col("d") * col("d") * col("d"),  # past 38 digits
    ],
)
def test_what_spark_does_not_compute_as_flink_stays_on_weir(expr):
    assert to_spark_sql(expr, COLUMNS) is None


@pytest.fixture
def t_env(tmp_path):
    env = StreamExecutionEnvironment.get_execution_environment().set_executor("local")
    t_env = StreamTableEnvironment.create(env)
    for name, fmt in (("j", "json"), ("c", "csv")):
        t_env.execute_sql(
            f"CREATE TABLE {name} (`Id` BIGINT, price INT, note STRING, ts TIMESTAMP(3)) "
            f"WITH ('connector' = 'filesystem', 'path' = '{tmp_path}', 'format' = '{fmt}')"
        )
    return t_env


def test_a_json_tables_projections_and_filters_lower_to_spark_sql(t_env, tmp_path):
    query = lower_query(
        t_env.sql_query(
            "SELECT `Id`, price * 2 AS twice FROM j WHERE note <> 'x' AND MOD(price, 3) = 1"
        )._node
    )
    assert query.sources == [
        (str(tmp_path), "`Id` BIGINT, `price` INT, `note` STRING, `ts` TIMESTAMP_NTZ")
    ]
    assert query.ordered
    assert [sql for _, sql in query.root.steps] == [
        ["`Id` AS _c0", "`price` AS _c1", "`note` AS _c2", "`ts` AS _c3"],
        "((_c2 <> 'x') AND ((_c1 % CAST(3 AS INT)) = CAST(1 AS INT)))",
        ["_c0 AS _c0", "_c1 AS _c1", "_c2 AS _c2", "_c3 AS _c3"],
        ["_c0 AS _c0", "(_c1 * CAST(2 AS INT)) AS _c1"],
    ]


def test_regular_expressions_and_in_lists_lower_where_spark_agrees(t_env):
    query = lower_query(
        t_env.sql_query(
            "SELECT REGEXP_EXTRACT(note, '(&|^)id=([^&]*)', 2) AS x FROM j "
            "WHERE price IN (1, 2) OR LOWER(note) IN ('a', 'b')"
        )._node
    )
    assert [sql for _, sql in query.root.steps][1:] == [
        "((_c1 IN (CAST(1 AS INT), CAST(2 AS INT))) OR (lower(_c2) IN ('a', 'b')))",
        ["_c0 AS _c0", "_c1 AS _c1", "_c2 AS _c2", "_c3 AS _c3"],
        ["try_element_at(regexp_extract_all(_c2, '(&|^)id=([^&]*)', 2), 1) AS _c0"],
    ]


def test_a_regular_expressions_null_test_is_a_match_test(t_env):
    query = lower_query(
        t_env.sql_query(
            "SELECT `Id` FROM j WHERE REGEXP_EXTRACT(note, 'id=([^&]*)', 1) IS NOT NULL "
            "OR REGEXP_EXTRACT(UPPER(note), 'x', 0) IS NULL"
        )._node
    )
    assert [sql for _, sql in query.root.steps][1] == (
        "((_c2 IS NOT NULL AND _c2 RLIKE 'id=([^&]*)') OR "
        "(upper(_c2) IS NULL OR NOT (upper(_c2) RLIKE 'x')))"
    )


def test_inner_joins_lower_where_their_rows_are_not_collected_in_order(t_env, tmp_path):
    query = lower_query(
        t_env.sql_query(
            "SELECT a.`Id`, b.note FROM j a JOIN (SELECT * FROM j WHERE price > 1) b "
            "ON a.`Id` = b.`Id` AND a.price < b.price"
        )._node
    )
    assert len(query.sources) == 2 and not query.ordered
    join = query.root.input
    assert (join.left_width, join.right_width) == (4, 4)
    assert join.condition == "((_c0 = _c4) AND (_c1 < _c5))"
    assert [sql for _, sql in join.right.steps][1] == "(_c1 > CAST(1 AS INT))"
    assert query.root.steps == [("select", ["_c0 AS _c0", "_c6 AS _c1"])]


@pytest.mark.parametrize(
    "query",
    [
        "SELECT `Id` FROM c",  # csv: Spark's reader differs
        "SELECT `Id`, COUNT(*) FROM j GROUP BY `Id`",  # state
        "SELECT `Id` / 2 FROM j",  # an expression Spark differs on
        "SELECT a.`Id` FROM j a LEFT JOIN j b ON a.`Id` = b.`Id`",  # a changelog
        "SELECT a.`Id` FROM j a JOIN c b ON a.`Id` = b.`Id`",  # one side csv
        "SELECT a.`Id` FROM j a JOIN j b ON a.`Id` / 2 = b.`Id`",  # a condition Spark differs on
        "SELECT REGEXP_EXTRACT(note, '(a)|(b)', 2) FROM j",  # a group not in every match
        "SELECT REGEXP_EXTRACT(note, 'x(a)?', 1) FROM j",
        "SELECT REGEXP_EXTRACT(note, '(a)', 2) FROM j",  # no group 2: Flink's NULL
        "SELECT REGEXP_EXTRACT(note, note, 1) FROM j",  # a pattern not a literal
        "SELECT note IN ('a', NULL) FROM j",  # NULL in the list
        "SELECT price IN ('a') FROM j",  # across type families
    ],
)
def test_what_else_stays_on_weirs_operators(t_env, query):
    assert lower_query(t_env.sql_query(query)._node) is None


def test_sinks_spark_writes_as_flink():
    timestamp = [Column("t", DataTypes.TIMESTAMP(3)), Column("n", DataTypes.BIGINT())]
    line, sink = lowered_sink(
        connector_of({"connector": "filesystem", "path": "/out", "format": "json"}), timestamp
    )
    assert sink.format == "text" and sink.options == {"path": "/out"}
    assert (
        line
        == json_line(timestamp)
        == (
            "to_json(named_struct('t', regexp_replace(date_format(_c0, 'yyyy-MM-dd "
            "HH:mm:ss.SSSSSS'), '\\\\.?0+$', ''), 'n', _c1), map('ignoreNullFields', "
            "'false')) AS value"
        )
    )
    assert lowered_sink(connector_of({"connector": "blackhole"}), timestamp)[1].format == "noop"
    decimal = [Column("d", DataTypes.DECIMAL(10, 2))]  # Spark writes its trailing zeros
    assert (
        lowered_sink(
            connector_of({"connector": "filesystem", "path": "/out", "format": "json"}), decimal
        )
        is None
    )
    assert (
        lowered_sink(
            connector_of({"connector": "filesystem", "path": "/out", "format": "csv"}), timestamp
        )
        is None
    )


def _windowed(t_env, tmp_path):
    t_env.execute_sql(
        "CREATE TABLE w (k STRING, price INT, x DOUBLE, ts TIMESTAMP(3), WATERMARK FOR ts "
        f"AS ts - INTERVAL '1' SECOND) WITH ('connector' = 'filesystem', 'path' = "
        f"'{tmp_path}', 'format' = 'json')"
    )


@pytest.mark.parametrize(
    "window",
    [
        "TUMBLE(TABLE w, DESCRIPTOR(ts), INTERVAL '10' SECOND)",
        "HOP(TABLE w, DESCRIPTOR(ts), INTERVAL '2' SECOND, INTERVAL '10' SECOND)",
        "CUMULATE(TABLE w, DESCRIPTOR(ts), INTERVAL '2' SECOND, INTERVAL '10' SECOND)",
    ],
)
def test_window_aggregations_lower_to_a_grouping_of_each_rows_windows(t_env, tmp_path, window):
    _windowed(t_env, tmp_path)
    query = lower_query(
        t_env.sql_query(
            "SELECT k, window_start, COUNT(*), SUM(price), AVG(price), MAX(k), "
            "COUNT(DISTINCT price) FILTER (WHERE price > 0), "
            f"AVG(price) FILTER (WHERE price < 9) FROM TABLE({window}) "
            "GROUP BY k, window_start, window_end"
        )._node
    )
    assert not query.ordered  # (collected rows stay on weir's operators)
    aggregate = query.root.input
    assert aggregate.keys == ["_c0", "_c4", "_c5"]
    assert aggregate.aggregates == [
        "count(1)",
        "CAST(sum(_c1) AS INT)",
        "CAST(sum(CAST(_c1 AS BIGINT)) div count(_c1) AS INT)",
        "max(_c0)",
        "count(DISTINCT _c1) FILTER (WHERE (_c1 > CAST(0 AS INT)))",
        "CAST(sum(CAST(_c1 AS BIGINT)) FILTER (WHERE (_c1 < CAST(9 AS INT))) div "
        "count(_c1) FILTER (WHERE (_c1 < CAST(9 AS INT))) AS INT)",
    ]
    assert aggregate.sql(["v"]).startswith(
        "SELECT _c0 AS _c0, _c4 AS _c1, _c5 AS _c2, count(1) AS _c3, "
    )
    assert aggregate.sql(["v"]).endswith(" AS _q GROUP BY _c0, _c4, _c5")
    assert aggregate.input.input.kind == window.split("(")[0].lower()


@pytest.mark.parametrize(
    "query",
    [
        "SELECT SUM(x) FROM TABLE(TUMBLE(TABLE w, DESCRIPTOR(ts), INTERVAL '10' SECOND)) "
        "GROUP BY window_start, window_end",  # a DOUBLE sum depends on the rows' order
        "SELECT COUNT(*) FROM TABLE(TUMBLE(TABLE w, DESCRIPTOR(ts), INTERVAL '10' SECOND)) "
        "GROUP BY window_start, window_end, price / 2",  # a key Spark computes apart
        "SELECT SUM(x) FROM w GROUP BY k, SESSION(ts, INTERVAL '10' SECOND)",
    ],
)
def test_what_windows_keep_on_weirs_operators(t_env, tmp_path, query):
    _windowed(t_env, tmp_path)
    assert lower_query(t_env.sql_query(query)._node) is None


@pytest.mark.parametrize(
    "query",
    [
        "SELECT k, COUNT(*) FROM TABLE(SESSION(TABLE w PARTITION BY k, DESCRIPTOR(ts), "
        "INTERVAL '10' SECOND)) GROUP BY k, window_start, window_end",
        "SELECT k, COUNT(*) FROM w GROUP BY k, SESSION(ts, INTERVAL '10' SECOND)",
    ],
)
def test_sessions_lower_to_sparks_session_window(t_env, tmp_path, query):
    _windowed(t_env, tmp_path)
    aggregate = lower_query(t_env.sql_query(query)._node).root.input
    assert aggregate.keys == [
        "_c0",
        "session_window(coalesce(_c3, raise_error('a row has a NULL time "
        "attribute')), '10000 milliseconds')",
    ]
    assert aggregate.aggregates == ["count(1)"]
