"""Table jobs lowered to Spark SQL (weir.table.lowering) give what the same jobs give on
weir's operators (which tests/pyflink_table_examples, tests/table_programs and
tests/nexmark hold to PyFlink's output): inserts into json files and blackhole, and
collected SELECTs; a line only Flink's json reading reads sends the job to the
operators."""

import datetime
import glob
import json
import os

import pytest

from weir.common.job import JobExecutionError
from weir.table import StreamTableEnvironment
from weir.table.lowering import lower_query

pytestmark = pytest.mark.spark

ROWS = [
    {"i": 1, "x": 1e7, "f": 0.1, "t": "2026-01-01 08:00:00", "s": 'a"b\\c', "b": True},
    {"i": -2, "x": 0.0001, "f": 1e10, "t": "2026-01-01 08:00:00.120", "s": None, "b": False},
    {
        "i": 3,
        "x": 123456789.125,
        "f": 3.5,
        "t": "2026-01-01T08:00:00.001",
        "s": "x\ty\u0001\u00fc/\u2028",
    },
    {"i": 2147483647, "x": -0.0, "t": None, "s": ""},
]
QUERY = (
    "SELECT i * 2, CAST(i AS BIGINT) * 3, x * 2, f, t, UPPER(s), b, MOD(i, 7) "
    "FROM a WHERE i <> 3 OR s IS NOT NULL"
)


def _write_input(directory, rows, extra=()):
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, "a.json"), "w") as out:
        out.writelines(json.dumps(row) + "\n" for row in rows)
        out.writelines(extra)


def _lines(output):
    """The lines of the files a job wrote under `output`, sorted."""
    return sorted(
        line
        for path in glob.glob(os.path.join(output, "*"))
        if os.path.isfile(path)
        for line in open(path)
    )


def _t_env(spark_env, directory, lower):
    t_env = StreamTableEnvironment.create(spark_env)
    t_env.get_config().set("weir.table.lower-to-spark-sql", lower)
    t_env.execute_sql(
        "CREATE TABLE a (i INT, x DOUBLE, f FLOAT, t TIMESTAMP(3), s STRING, b BOOLEAN) "
        f"WITH ('connector' = 'filesystem', 'path' = '{directory}', 'format' = 'json')"
    )
    return t_env


def _insert(t_env, output):
    t_env.execute_sql(
        "CREATE TABLE o (i INT, j BIGINT, x DOUBLE, f FLOAT, t TIMESTAMP(3), s STRING, "
        f"b BOOLEAN, m INT) WITH ('connector' = 'filesystem', 'path' = '{output}', "
        "'format' = 'json')"
    )
    t_env.execute_sql("CREATE TABLE nothing (i INT) WITH ('connector' = 'blackhole')")
    statements = t_env.create_statement_set()
    statements.add_insert_sql(f"INSERT INTO o {QUERY}")
    statements.add_insert_sql("INSERT INTO nothing SELECT i FROM a")
    result = statements.execute()
    result.wait()
    lines = _lines(output)
    return result.get_job_client(), lines


def test_lowered_inserts_write_what_weirs_operators_write(spark_env, tmp_path):
    _write_input(tmp_path / "in", ROWS)
    lowered, lines = _insert(_t_env(spark_env, tmp_path / "in", "true"), tmp_path / "out1")
    operators, expected = _insert(_t_env(spark_env, tmp_path / "in", "false"), tmp_path / "out2")
    assert type(lowered).__name__ == "NativeJob" and lowered.delegate is None
    assert type(operators).__name__ != "NativeJob"
    assert lines == expected
    assert (
        '{"i":-2,"j":6442450941,"x":-0.0,"f":null,"t":null,"s":"","b":null,"m":1}\n' in lines
    )  # (INT arithmetic wraps as Java's)
    result = lowered.get_job_execution_result()
    assert (result.records_read, result.records_written) == (8, 8)  # (4 rows, 2 inserts)
    assert "one Spark batch job, 8 records read, 8 written" in result.summary()


def _join(t_env, output):
    t_env.execute_sql(
        "CREATE TABLE o (i INT, j INT, s STRING, t TIMESTAMP(3)) WITH ("
        f"'connector' = 'filesystem', 'path' = '{output}', 'format' = 'json')"
    )
    job = t_env.execute_sql(
        "INSERT INTO o SELECT x.i, y.i, y.s, x.t FROM a x JOIN "
        "(SELECT * FROM a WHERE i > 0) y ON x.i = y.i - 2 OR x.s = y.s"
    )
    job.wait()
    return job.get_job_client(), _lines(output)


def test_a_lowered_join_inserts_what_weirs_operators_insert(spark_env, tmp_path):
    _write_input(tmp_path / "in", ROWS)
    lowered, lines = _join(_t_env(spark_env, tmp_path / "in", "true"), tmp_path / "out1")
    operators, expected = _join(_t_env(spark_env, tmp_path / "in", "false"), tmp_path / "out2")
    assert type(lowered).__name__ == "NativeJob" and lowered.delegate is None
    assert type(operators).__name__ != "NativeJob"
    assert lines == expected and len(lines) == 4  # (1, 3), and three rows equal in s
    assert '{"i":1,"j":3,"s":"x\\ty\\u0001ü/\u2028","t":"2026-01-01 08:00:00"}\n' in lines
    # (Spark reads the table once per side; weir's operators read it once for both)
    assert lowered.get_job_execution_result().records_read == 8


def test_a_line_only_flinks_json_reading_reads_sends_the_job_to_weirs_operators(
    spark_env, tmp_path
):
    _write_input(tmp_path / "in", ROWS, ['{"i": "8", "x": "2.5", "s": "quoted"}\n'])
    lowered, lines = _insert(_t_env(spark_env, tmp_path / "in", "true"), tmp_path / "out1")
    _, expected = _insert(_t_env(spark_env, tmp_path / "in", "false"), tmp_path / "out2")
    assert lowered.delegate is not None  # Spark's reader read "8" as no INT
    assert lines == expected
    assert '{"i":16,"j":24,"x":5.0,"f":null,"t":null,"s":"QUOTED","b":null,"m":1}\n' in lines
    assert os.listdir(tmp_path / "out1") == [
        name for name in os.listdir(tmp_path / "out1") if not name.startswith("_weir")
    ]


@pytest.mark.parametrize(
    "query",
    [
        "SELECT i + 1 AS n, x, t, s, DATE_FORMAT(t, 'yyyy-MM-dd HH:mm') FROM a",
        # a group in every match, NULL where Spark's own function gives ''; IN over NULL
        "SELECT s, REGEXP_EXTRACT(s, '(^|b)([a-z\\\\]*)', 2), REGEXP_EXTRACT(s, 'y(.)', 1), "
        "s IN ('', 'zz'), i IN (3, 4) FROM a",
    ],
)
def test_lowered_selects_collect_what_weirs_operators_collect(spark_env, tmp_path, query):
    _write_input(tmp_path / "in", ROWS)
    t_env = _t_env(spark_env, tmp_path / "in", "true")
    assert lower_query(t_env.sql_query(query)._node) is not None
    lowered = list(t_env.execute_sql(query).collect())
    expected = list(_t_env(spark_env, tmp_path / "in", "false").execute_sql(query).collect())
    assert lowered == expected and len(lowered) == 4


def test_a_lowered_job_that_fails_says_why(spark_env, tmp_path):
    t_env = _t_env(spark_env, tmp_path / "missing", "true")
    with pytest.raises(JobExecutionError, match="failed: .*(PATH_NOT_FOUND|does not exist)"):
        _insert(t_env, tmp_path / "out")


@pytest.mark.parametrize("name", ["q3", "q5", "q7", "q8", "q20", "q23"])
def test_nexmarks_joins_and_windows_lowered_insert_what_operators_insert(spark_env, tmp_path, name):
    """Nexmark's inner joins and windows (tests/nexmark) into json files, as Spark SQL
    and on weir's operators; as many rows as PyFlink's (nexmark.flink.out)."""
    from tests.e2e.test_nexmark import EVENTS, _expected
    from tests.nexmark.generator import write_events
    from tests.nexmark.queries import QUERIES, TABLES, ddl

    write_events(str(tmp_path / "events"), EVENTS)
    outputs = []
    for lower in ("true", "false"):
        t_env = StreamTableEnvironment.create(spark_env)
        t_env.get_config().set("weir.table.lower-to-spark-sql", lower)
        for table in TABLES:
            t_env.execute_sql(ddl(table, str(tmp_path / "events")))
        query = t_env.sql_query(QUERIES[name])
        columns = ", ".join(f"`c{i}` {c.data_type}" for i, c in enumerate(query._node.columns))
        output = tmp_path / f"out-{lower}"
        t_env.execute_sql(
            f"CREATE TABLE o ({columns}) WITH ('connector' = 'filesystem', "
            f"'path' = '{output}', 'format' = 'json')"
        )
        job = query.execute_insert("o")
        job.wait()
        assert (type(job.get_job_client()).__name__ == "NativeJob") == (lower == "true")
        outputs.append(_lines(output))
    assert outputs[0] == outputs[1]
    assert len(outputs[0]) == len(_expected()[name])


def _window_rows(count=300):
    import random

    chooser = random.Random(7)
    for n in range(count):
        millis = 1_767_225_600_000 + chooser.randrange(-40_000, 90_000)  # (out of order)
        yield {
            "k": chooser.choice(["a", "b", "c"]),
            "i": None if n % 17 == 0 else chooser.randrange(-(2**31), 2**31),
            "s": chooser.choice(["x", "y", "zz", None]),
            "d": f"{chooser.randrange(-(10**6), 10**6) / 100:.2f}",
            "t": f"{millis // 1000}.{millis % 1000:03d}",
        }


WINDOWS = {
    "tumble": "TUMBLE(TABLE w, DESCRIPTOR(t), INTERVAL '10' SECOND)",
    "hop": "HOP(TABLE w, DESCRIPTOR(t), INTERVAL '3' SECOND, INTERVAL '9' SECOND)",
    "cumulate": "CUMULATE(TABLE w, DESCRIPTOR(t), INTERVAL '2' SECOND, INTERVAL '8' SECOND)",
}


def _windowed(t_env, directory, output, window):
    t_env.execute_sql(
        "CREATE TABLE w (k STRING, i INT, s STRING, d DECIMAL(10, 2), t TIMESTAMP(3), "
        "WATERMARK FOR t AS t - INTERVAL '1' SECOND) "
        f"WITH ('connector' = 'filesystem', 'path' = '{directory}', 'format' = 'json')"
    )
    t_env.execute_sql(
        "CREATE TABLE o (k STRING, ws TIMESTAMP(3), we TIMESTAMP(3), n BIGINT, total INT, "
        "most STRING, first_t TIMESTAMP(3), kinds BIGINT, mean INT, small BIGINT, "
        "some INT, some_mean INT) WITH ("
        f"'connector' = 'filesystem', 'path' = '{output}', 'format' = 'json')"
    )
    job = t_env.execute_sql(
        "INSERT INTO o SELECT k, window_start, window_end, COUNT(*), SUM(i), MAX(s), "
        "MIN(t), COUNT(DISTINCT s), AVG(i), COUNT(*) FILTER (WHERE i < 0), "
        "SUM(i) FILTER (WHERE s = 'x'), AVG(i) FILTER (WHERE i > 0) "
        f"FROM TABLE({WINDOWS[window]}) WHERE s IS NULL OR s <> 'zz' "
        "GROUP BY k, window_start, window_end"
    )
    job.wait()
    return job.get_job_client(), _lines(output)


def _write_spread_rows(path, count=300):
    """_window_rows over 130 s of event time, out of order."""
    os.makedirs(path)
    with open(path / "w.json", "w") as out:
        for row in _window_rows(count):
            seconds, millis = row.pop("t").split(".")
            stamp = datetime.datetime.fromtimestamp(int(seconds), datetime.timezone.utc)
            row["t"] = f"{stamp:%Y-%m-%d %H:%M:%S}.{millis}"
            out.write(json.dumps(row) + "\n")


@pytest.mark.parametrize("window", sorted(WINDOWS))
def test_lowered_window_aggregations_insert_what_weirs_operators_insert(
    spark_env, tmp_path, window
):
    _write_spread_rows(tmp_path / "in")
    lowered, lines = _windowed(
        _t_env(spark_env, tmp_path / "x", "true"), tmp_path / "in", tmp_path / "out1", window
    )
    operators, expected = _windowed(
        _t_env(spark_env, tmp_path / "x", "false"), tmp_path / "in", tmp_path / "out2", window
    )
    assert type(lowered).__name__ == "NativeJob" and lowered.delegate is None
    assert type(operators).__name__ != "NativeJob"
    assert lines == expected and len(lines) >= 39  # (13 windows of 10 s, 3 keys)


GROUP_WINDOWS = {
    "tumble": ("TUMBLE", "INTERVAL '10' SECOND"),
    "hop": ("HOP", "INTERVAL '3' SECOND, INTERVAL '9' SECOND"),
    "hop-uneven": ("HOP", "INTERVAL '4' SECOND, INTERVAL '10' SECOND"),
    "session": ("SESSION", "INTERVAL '2' SECOND"),
}


@pytest.mark.parametrize("window", sorted(GROUP_WINDOWS))
def test_lowered_group_windows_insert_what_weirs_operators_insert(spark_env, tmp_path, window):
    """GROUP BY TUMBLE/HOP/SESSION(...) windows (the Table API's group windows) into json
    files, as Spark SQL (a session as Spark's session_window) and on weir's operators."""
    kind, sizes = GROUP_WINDOWS[window]
    _write_spread_rows(tmp_path / "in", 120)
    outputs = []
    for lower in ("true", "false"):
        t_env = StreamTableEnvironment.create(spark_env)
        t_env.get_config().set("weir.table.lower-to-spark-sql", lower)
        t_env.execute_sql(
            "CREATE TABLE w (k STRING, i INT, s STRING, d DECIMAL(10, 2), t TIMESTAMP(3), "
            "WATERMARK FOR t AS t - INTERVAL '1' SECOND) WITH ('connector' = 'filesystem', "
            f"'path' = '{tmp_path / 'in'}', 'format' = 'json')"
        )
        t_env.execute_sql(
            "CREATE TABLE o (k STRING, n BIGINT, total INT, most STRING, kinds BIGINT, "
            "mean INT, ws TIMESTAMP(3), we TIMESTAMP(3), wt TIMESTAMP(3)) WITH ("
            f"'connector' = 'filesystem', 'path' = '{tmp_path / lower}', 'format' = 'json')"
        )
        job = t_env.execute_sql(
            f"INSERT INTO o SELECT k, COUNT(*), SUM(i), MAX(s), COUNT(DISTINCT s), AVG(i), "
            f"{kind}_START(t, {sizes}), {kind}_END(t, {sizes}), {kind}_ROWTIME(t, {sizes}) "
            f"FROM w GROUP BY k, {kind}(t, {sizes})"
        )
        job.wait()
        assert (type(job.get_job_client()).__name__ == "NativeJob") == (lower == "true")
        outputs.append(_lines(tmp_path / lower))
    assert outputs[0] == outputs[1] and len(outputs[0]) >= 3 * 10  # (10+ windows a key)


LOWERED_NEXMARK = [
    "q0",
    "q1",
    "q2",
    "q3",
    "q5",
    "q7",
    "q8",
    "q10",
    "q11",
    "q20",
    "q21",
    "q22",
    "q23",
]
# (lowered where the changelog is final rows)
GROUPS_NEXMARK = ["q4", "q9", "q15", "q16", "q17", "q18", "q19"]


def test_nexmarks_lowered_queries_give_pyflinks_rows(spark_env, tmp_path):
    """Each Nexmark query weir lowers, run as its Spark SQL alone, gives the rows PyFlink
    2.3 gave (tests/nexmark/nexmark.flink.out: final rows, an aggregation's changelog
    applied), shown as tests/nexmark/run_queries.py shows them; group aggregations are
    lowered only where their changelog is their final rows (BATCH mode, mini-batch)."""
    from tests.e2e.test_nexmark import EVENTS, _expected
    from tests.nexmark.generator import write_events
    from tests.nexmark.queries import QUERIES, TABLES, ddl
    from tests.nexmark.run_queries import count_char, show
    from weir.spark.native_job import collect_rows
    from weir.spark.session import get_session

    write_events(str(tmp_path), EVENTS)
    t_env = StreamTableEnvironment.create(spark_env)
    for table in TABLES:
        t_env.execute_sql(ddl(table, str(tmp_path)))
    t_env.create_temporary_function("count_char", count_char)
    spark, expected = get_session(spark_env, sql_job=True), _expected()
    lowered = [
        name
        for name in sorted(QUERIES)
        if lower_query(t_env.sql_query(QUERIES[name])._node) is not None
    ]
    assert lowered == sorted(LOWERED_NEXMARK)
    lowered = [
        name
        for name in sorted(QUERIES)
        if lower_query(t_env.sql_query(QUERIES[name])._node, True) is not None
    ]
    assert lowered == sorted(LOWERED_NEXMARK + GROUPS_NEXMARK)
    for name in lowered:
        query = lower_query(t_env.sql_query(QUERIES[name])._node, True)
        rows = collect_rows(spark, query.sources, query.sql)
        assert sorted(", ".join(show(v) for v in row) for row in rows) == expected[name], name


def test_a_lowered_join_with_an_empty_side_writes_nothing_and_ends(spark_env, tmp_path):
    """(Spark drops a join with an empty side from its plan, and the side's count with
    it: the job still ends, having read what it read.)"""
    _write_input(tmp_path / "in", ROWS)
    t_env = _t_env(spark_env, tmp_path / "in", "true")
    t_env.execute_sql(
        "CREATE TABLE o (i INT, j INT) WITH ('connector' = 'filesystem', "
        f"'path' = '{tmp_path / 'out'}', 'format' = 'json')"
    )
    job = t_env.execute_sql(
        "INSERT INTO o SELECT x.i, y.i FROM a x JOIN (SELECT * FROM a "
        "WHERE i > 2147483646 AND i < 0) y ON x.i = y.i"
    )
    assert job.get_job_client().wait(120).name == "FINISHED"
    assert type(job.get_job_client()).__name__ == "NativeJob"
    assert job.get_job_client().get_job_execution_result().records_written == 0


GROUPED = (
    "INSERT INTO o SELECT k, s, COUNT(*), SUM(i), MIN(t), MAX(s), "
    "COUNT(DISTINCT i), AVG(i), COUNT(*) FILTER (WHERE i < 0) "
    "FROM w GROUP BY k, s HAVING COUNT(*) > 1"
)
NESTED = (
    "INSERT INTO o SELECT g.k, g.s, COUNT(*), SUM(g.m), MIN(g.t), MAX(w.s), "
    "COUNT(DISTINCT w.i), AVG(g.m), MAX(g.n) FROM (SELECT k, s, COUNT(*) AS n, "
    "MAX(i) AS m, MIN(t) AS t FROM w GROUP BY k, s) g "
    "JOIN w ON g.k = w.k AND g.m > w.i GROUP BY g.k, g.s"
)


def _grouped(spark_env, directory, output, lower, settings=None, mini_batch=False, query=GROUPED):
    """(job client, lines written) of `query` over `directory` into json files at
    `output`, or into blackhole (`output` None)."""
    t_env = StreamTableEnvironment.create(spark_env, settings)
    _grouped_config(t_env, lower, mini_batch, directory)
    sink = (
        "'connector' = 'blackhole'"
        if output is None
        else f"'connector' = 'filesystem', 'path' = '{output}', 'format' = 'json'"
    )
    t_env.execute_sql(
        "CREATE TABLE o (k STRING, s STRING, n BIGINT, total INT, first_t TIMESTAMP(3), "
        f"most STRING, kinds BIGINT, mean INT, small BIGINT) WITH ({sink})"
    )
    job = t_env.execute_sql(query)
    job.wait()
    return job.get_job_client(), None if output is None else _lines(output)


def _grouped_config(t_env, lower, mini_batch, directory):
    config = t_env.get_config().set("weir.table.lower-to-spark-sql", lower)
    if mini_batch:
        config.set("table.exec.mini-batch.enabled", "true")
        config.set("table.exec.mini-batch.allow-latency", "2 s")
        config.set("table.exec.mini-batch.size", "1000")
    t_env.execute_sql(
        "CREATE TABLE w (k STRING, i INT, s STRING, d DECIMAL(10, 2), t TIMESTAMP(3)) "
        f"WITH ('connector' = 'filesystem', 'path' = '{directory}', 'format' = 'json')"
    )


def _write_window_rows(path):
    os.makedirs(path)
    with open(path / "w.json", "w") as out:
        for row in _window_rows(600):
            row["t"] = "2026-01-01 08:00:00." + row["t"].split(".")[1]
            out.write(json.dumps(row) + "\n")


@pytest.mark.parametrize("query, rows", [(GROUPED, 12), (NESTED, 12)])
def test_group_aggregations_in_batch_mode_lowered_insert_what_operators_insert(
    spark_env, tmp_path, query, rows
):
    """In BATCH mode a group aggregation's rows are its final rows, which Spark's
    aggregation computes (over a join of another aggregation's final rows too): lowered,
    they are the lines weir's operators write."""
    from weir.table import EnvironmentSettings

    _write_window_rows(tmp_path / "in")
    batch = EnvironmentSettings.in_batch_mode()
    lowered, lines = _grouped(
        spark_env, tmp_path / "in", tmp_path / "o1", "true", batch, query=query
    )
    operators, expected = _grouped(
        spark_env, tmp_path / "in", tmp_path / "o2", "false", batch, query=query
    )
    assert type(lowered).__name__ == "NativeJob" and lowered.delegate is None
    assert type(operators).__name__ != "NativeJob"
    assert lines == expected and len(lines) == rows  # (3 keys k, 4 of s)


RANKED = {  # (ties everywhere: which rows are kept is decided by arrival order)
    "top-3": "SELECT k, s, i, t, rn FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k "
    "ORDER BY s DESC, MOD(i, 3)) AS rn FROM w) WHERE rn <= 3",
    "last": "SELECT k, s, i, t, rn FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k, s "
    "ORDER BY t DESC) AS rn FROM w) WHERE rn = 1",
    "first": "SELECT k, s, i, t, rn FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k, s "
    "ORDER BY t) AS rn FROM w) WHERE rn = 1",
}


@pytest.mark.parametrize("name", sorted(RANKED))
def test_top_n_and_deduplication_lowered_keep_the_rows_operators_keep(spark_env, tmp_path, name):
    """In BATCH mode a Top-N's and a deduplication's rows are their final rows: lowered
    (ties broken by the position in the file) they are the rows weir's operators keep
    (ties broken by arrival), here with many ties of each."""
    from weir.table import EnvironmentSettings

    os.makedirs(tmp_path / "in")
    with open(tmp_path / "in" / "w.json", "w") as out:
        for n, row in enumerate(_window_rows(400)):
            row["t"] = f"2026-01-01 08:00:0{n % 3}.{n % 2}"  # (6 times only)
            out.write(json.dumps(row) + "\n")
    outputs = []
    for lower in ("true", "false"):
        t_env = StreamTableEnvironment.create(spark_env, EnvironmentSettings.in_batch_mode())
        t_env.get_config().set("weir.table.lower-to-spark-sql", lower)
        t_env.execute_sql(
            "CREATE TABLE w (k STRING, i INT, s STRING, d DECIMAL(10, 2), t TIMESTAMP(3), "
            "WATERMARK FOR t AS t - INTERVAL '1' SECOND) WITH ('connector' = 'filesystem', "
            f"'path' = '{tmp_path / 'in' / 'w.json'}', 'format' = 'json')"
        )
        t_env.execute_sql(
            "CREATE TABLE o (k STRING, s STRING, i INT, t TIMESTAMP(3), rn BIGINT) WITH ("
            f"'connector' = 'filesystem', 'path' = '{tmp_path / lower}', 'format' = 'json')"
        )
        job = t_env.execute_sql(f"INSERT INTO o {RANKED[name]}")
        job.wait()
        assert (type(job.get_job_client()).__name__ == "NativeJob") == (lower == "true")
        outputs.append(_lines(tmp_path / lower))
    assert outputs[0] == outputs[1] and len(outputs[0]) >= 9


OVER_JOIN = (
    "SELECT k, s, i, t, rn FROM (SELECT x.k, y.s, y.i, x.t, ROW_NUMBER() OVER "
    "(PARTITION BY x.k, x.s ORDER BY y.s DESC) AS rn FROM (SELECT * FROM w WHERE "
    "MOD(i, 7) = 0) x JOIN v y ON x.k = y.k AND x.t <= y.t) WHERE rn <= 2"
)


def _over_join_model(rows):
    """OVER_JOIN's rows (k, s, i, t, rn) with ties broken as docs/table.md says: by the
    right row's position in its file, then the left row's."""
    left = [(p, x) for p, x in enumerate(rows) if x["i"] is not None and x["i"] % 7 == 0]
    pairs = [(x, y) for y in rows for _, x in left if x["k"] == y["k"] and x["t"] <= y["t"]]
    pairs.sort(
        key=lambda pair: (pair[1]["s"] is not None, pair[1]["s"] or ""), reverse=True
    )  # (stable: ties stay in arrival order; NULLs last)
    kept, ranks = [], {}
    for x, y in pairs:
        rank = ranks[x["k"], x["s"]] = ranks.get((x["k"], x["s"]), 0) + 1
        if rank <= 2:
            kept.append((x["k"], y["s"], y["i"], datetime.datetime.fromisoformat(x["t"]), rank))
    return sorted(kept, key=repr)


def test_a_top_n_over_a_join_lowered_breaks_ties_by_the_inputs_positions(spark_env, tmp_path):
    """Over a join, which of the tied rows a Top-N keeps depends on the order the join's
    inputs arrive in, on Flink as on weir's operators. Lowered, ties are broken as when
    the right input arrives after the left: by the right row's position in its file, then
    the left row's (checked against a model of that rule); on weir's operators the rows
    kept have the same ranks and sort keys."""
    from weir.table import EnvironmentSettings

    os.makedirs(tmp_path / "in")
    rows = []
    for n, row in enumerate(_window_rows(400)):
        row["t"] = f"2026-01-01 08:00:0{n % 3}.{n % 2}"  # (6 times only)
        rows.append(row)
    for name in ("w", "v"):
        with open(tmp_path / "in" / f"{name}.json", "w") as out:
            out.writelines(json.dumps(row) + "\n" for row in rows)
    kept = {}
    for lower in ("true", "false"):
        t_env = StreamTableEnvironment.create(spark_env, EnvironmentSettings.in_batch_mode())
        t_env.get_config().set("weir.table.lower-to-spark-sql", lower)
        for name in ("w", "v"):
            t_env.execute_sql(
                f"CREATE TABLE {name} (k STRING, i INT, s STRING, d DECIMAL(10, 2), "
                f"t TIMESTAMP(3)) WITH ('connector' = 'filesystem', "
                f"'path' = '{tmp_path / 'in' / name}.json', 'format' = 'json')"
            )
        t_env.execute_sql(
            "CREATE TABLE o (k STRING, s STRING, i INT, t TIMESTAMP(3), rn BIGINT) WITH ("
            f"'connector' = 'filesystem', 'path' = '{tmp_path / lower}', 'format' = 'json')"
        )
        job = t_env.execute_sql(f"INSERT INTO o {OVER_JOIN}")
        job.wait()
        assert (type(job.get_job_client()).__name__ == "NativeJob") == (lower == "true")
        kept[lower] = sorted(
            (
                (r["k"], r["s"], r["i"], datetime.datetime.fromisoformat(r["t"]), r["rn"])
                for r in map(json.loads, _lines(tmp_path / lower))
            ),
            key=repr,
        )
    assert kept["true"] == _over_join_model(rows) and len(kept["true"]) >= 9
    assert sorted((k, s, rn) for k, s, _, _, rn in kept["false"]) == sorted(
        (k, s, rn) for k, s, _, _, rn in kept["true"]
    )


def test_group_aggregations_are_lowered_under_mini_batch_only(spark_env, tmp_path):
    """In streaming mode a group aggregation emits a changelog row by row, Spark's
    aggregation its final rows: it is lowered only under mini-batch, where a bounded
    table read in one micro-batch changes each group once: its final row, +I, as weir's
    operators give it (tests/table_programs/sql_mini_batch) and BATCH mode collects."""
    from weir.table import EnvironmentSettings

    _write_window_rows(tmp_path / "in")
    streaming = _grouped(spark_env, tmp_path / "in", None, "true")[0]
    mini_batch = _grouped(spark_env, tmp_path / "in", None, "true", mini_batch=True)[0]
    result = mini_batch.get_job_execution_result()
    assert type(streaming).__name__ != "NativeJob"
    assert type(mini_batch).__name__ == "NativeJob" and mini_batch.delegate is None
    assert (result.records_read, result.records_written) == (600, 12)
    collected = []
    for settings, on in ((None, True), (EnvironmentSettings.in_batch_mode(), False)):
        t_env = StreamTableEnvironment.create(spark_env, settings)
        _grouped_config(t_env, "false", on, tmp_path / "in")
        query = GROUPED.split(" ", 3)[3]
        with t_env.sql_query(query).execute().collect() as rows:
            collected.append(sorted((str(r.get_row_kind()), repr(r)) for r in rows))
    assert collected[0] == collected[1] and len(collected[0]) == 12
