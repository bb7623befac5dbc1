"""Which Table jobs run as Spark SQL, and their Spark SQL (docs/table.md: "What runs
where").

A query is lowered when it is projections and filters (Calc nodes) over one table of the
filesystem connector in the json format, with every expression one Spark computes as
Flink does (weir.table.spark_sql), and it runs on the Spark executor. Its INSERTs into
blackhole or json filesystem tables run as one Spark batch job (weir.spark.native_job);
its `execute()` collects Spark's rows. A job of several INSERTs is lowered when all are.
Everything else runs on weir's operators, as does a lowered job whose input has a line
Spark's JSON reader does not read as Flink's json format does. The table configuration's
`weir.table.lower-to-spark-sql` = `false` turns lowering off.
"""

import importlib
import uuid

from weir.table import logical
from weir.table.connectors import BlackholeConnector, FilesystemConnector
from weir.table.spark_sql import column_name, spark_type, to_spark_sql

OPTION = "weir.table.lower-to-spark-sql"


class Lowered:
    """A query as Spark SQL: the JSON files it reads, their schema (Spark DDL), and
    `build(source frame)`: its rows as a frame of columns `_c0`, `_c1`, ..."""

    def __init__(self, path, schema, steps):
        self.path, self.schema, self.steps = path, schema, steps

    def build(self, source):
        frame = source
        for kind, sql in self.steps:
            frame = frame.where(sql) if kind == "where" else frame.selectExpr(*sql)
        return frame


def enabled(t_env, env) -> bool:
    """On the Spark executor, unless turned off, or restoring a savepoint (whose sources'
    positions weir's operators take up)."""
    config = t_env.get_config()
    return env.executor == "spark" and str(config.get(OPTION, "true")).lower() != "false" \
        and not config.get("execution.savepoint.path", None)


def lower_query(node):
    """The query of `node` as Spark SQL (a Lowered), or None."""
    calcs = []
    while type(node) is logical.Calc:
        calcs.append(node)
        node = node.input
    if type(node) is not logical.Scan or not _json_files(node.connector):
        return None
    physical = node.physical if node.physical is not None else node.columns
    names = [c.name for c in physical]
    if len({n.lower() for n in names}) != len(names) or \
            any(spark_type(c.data_type) is None for c in physical):
        return None
    schema = ", ".join(f"{_quoted(c.name)} {spark_type(c.data_type)}" for c in physical)
    steps = [("select", [f"{_quoted(n)} AS {column_name(i)}" for i, n in enumerate(names)])]
    if node.projections is not None:
        steps.append(_projection(node.projections, physical))
    for calc in reversed(calcs):
        if calc.condition is not None:
            steps.append(("where", to_spark_sql(calc.condition, calc.input.columns)))
        steps.append(_projection(calc.projections, calc.input.columns))
    if any(sql is None or (kind == "select" and None in sql) for kind, sql in steps):
        return None
    return Lowered(node.connector.options["path"], schema, steps)


def _projection(expressions, columns):
    parts = [to_spark_sql(e, columns) for e in expressions]
    return "select", [None if p is None else f"{p} AS {column_name(i)}"
                      for i, p in enumerate(parts)]


def _json_files(connector) -> bool:
    options = getattr(connector, "options", {})
    return isinstance(connector, FilesystemConnector) and options.get("format") == "json" \
        and "path" in options and "source.monitor-interval" not in options


def _quoted(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


# -- sinks ----------------------------------------------------------------------------
def lowered_sink(connector, columns):
    """(the line or None, the SparkSink) of an insert into `connector`, or None."""
    from weir.runtime.connectors.spark_interop import SparkSink
    if isinstance(connector, BlackholeConnector):
        return None, SparkSink("noop")
    if not _json_files(connector) or any(
            spark_type(c.data_type) is None or c.data_type.name == "DECIMAL"
            for c in columns):  # (Spark writes a DECIMAL's trailing zeros, Flink does not)
        return None
    return json_line(columns), SparkSink("text", {"path": connector.options["path"]})


def json_line(columns) -> str:
    """A row of `_c<i>` as Flink's json format writes it: every column (null too), a
    timestamp's fraction of a second only as far as it is not zero."""
    fields = []
    for index, column in enumerate(columns):
        value = column_name(index)
        if column.data_type.name == "TIMESTAMP":
            value = (f"regexp_replace(date_format({value}, 'yyyy-MM-dd HH:mm:ss.SSSSSS'), "
                     f"'\\\\.?0+$', '')")
        name = column.name.replace("\\", "\\\\").replace("'", "\\'")
        fields.append(f"'{name}', {value}")
    return (f"to_json(named_struct({', '.join(fields)}), map('ignoreNullFields', 'false')) "
            "AS value")


def native_inserts(t_env, env, inserts, job_name, fallback):
    """The job of `inserts` ([(path, table, connector, sink columns)]) as Spark SQL
    (started), or None where one of them is not lowered."""
    if not enabled(t_env, env):
        return None
    native = _spark("native_job")
    writes = []
    for path, table, connector, columns in inserts:
        query, sink = lower_query(table._node), lowered_sink(connector, columns)
        if query is None or sink is None:
            return None
        line, spark_sink = sink
        build = query.build if line is None else _with_line(query.build, line)
        writes.append(native.NativeWrite(path, query.path, query.schema, build, spark_sink))
    spark, identity = _session_and_identity(env)
    return native.NativeJob(spark, writes, job_name, identity, fallback).start()


def native_rows(t_env, env, table):
    """The (kind, values) rows of `table`'s query computed by Spark, or None (not
    lowered, or an input line that needs Flink's json reading)."""
    query = lower_query(table._node) if enabled(t_env, env) else None
    if query is None:
        return None
    spark = _spark("session").get_session(env, sql_job=True)
    rows = _spark("native_job").collect_rows(spark, query.path, query.schema, query.build)
    return None if rows is None else [(0, values) for values in rows]


def _with_line(build, line):
    return lambda source: build(source).selectExpr(line)


def _spark(module: str):
    """A module of the Spark executor (imported when a job runs on Spark: like the
    DataStream API, the Table API itself needs no pyspark)."""
    return importlib.import_module(f"weir.spark.{module}")


def _session_and_identity(env):
    storage = env.checkpoint_config.get_checkpoint_storage()
    return _spark("session").get_session(env, sql_job=True), (
        _spark("restore").checkpoint_identity(storage) if storage else uuid.uuid4().hex[:16])
