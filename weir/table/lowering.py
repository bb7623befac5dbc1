"""Which Table jobs run as Spark SQL, and their Spark SQL (docs/table.md: "What runs
where").

A query is lowered when it is projections, filters (Calc nodes), inner joins, window
aggregations and group windows over tables of the filesystem connector in the json
format, with every expression one Spark computes as Flink does (weir.table.spark_sql),
and it runs on the Spark executor (a query with a join only where its rows are inserted,
not collected: Flink's order of a join's rows is its inputs' timing's). Group
aggregations, and Top-N and deduplication over a table of one file
(weir.table.lowering_ranks), are lowered where the query's changelog is its final rows:
in BATCH mode, and under mini-batch (`table.exec.mini-batch.enabled`). Its INSERTs into
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
from weir.table.lowering_windows import (
    group_aggregate,
    group_window_aggregate,
    window_aggregate,
    windows_of,
)
from weir.table.spark_sql import column_name, select, spark_type, to_spark_sql
from weir.table.lowering_ranks import position, rank_of
from weir.table.rank import Rank
from weir.table.window_tvf import WindowAggregate, WindowTvf
from weir.table.windowing import WindowAggregate as GroupWindowAggregate

OPTION = "weir.table.lower-to-spark-sql"


class Lowered:
    """A query as Spark SQL: the JSON files it reads with their schemas (Spark DDL),
    `sources` [(path, schema)], and `sql(views)`: one query text (so Spark analyses it
    once) of its rows in columns `_c0`, `_c1`, ..., over one view per source (their
    names); `ordered`: whether its rows come in the order Flink gives them (a join's
    depend on which input's rows come first)."""

    def __init__(self, sources, root):
        self.sources, self.root = sources, root

    @property
    def ordered(self) -> bool:
        return isinstance(self.root.input, int)

    def sql(self, views) -> str:
        return self.root.sql(views)


class _Steps:
    """Projections and filters over a source (its index) or a join (a _JoinOf)."""

    def __init__(self, input, steps):
        self.input, self.steps = input, steps

    def reads(self):
        """The sources (indexes) it reads, left to right, where it is scans and joins
        only, or None."""
        if isinstance(self.input, int):
            return [self.input]
        return self.input.reads() if isinstance(self.input, _JoinOf) else None

    def sql(self, views, carry=False) -> str:
        """Its query text; `carry`: with each source's position column (`position(i)`,
        numbered in `views`) kept through (where `reads()` is not None)."""
        text = (
            f"SELECT * FROM {views[self.input]}"
            if isinstance(self.input, int)
            else self.input.sql(views, carry)
            if carry
            else self.input.sql(views)
        )
        kept = [position(i) for i in self.reads()] if carry else []
        for kind, sql in self.steps:
            text = select(["*"], text, sql) if kind == "where" else select([*sql, *kept], text)
        return text


class _JoinOf:
    """An inner join: the left's columns, then the right's, and the rows where the
    condition holds (Spark's optimizer makes its equalities the join's keys)."""

    def __init__(self, left, right, left_width, right_width, condition):
        self.left, self.right, self.condition = left, right, condition
        self.left_width, self.right_width = left_width, right_width

    def reads(self):
        left, right = self.left.reads(), self.right.reads()
        return None if left is None or right is None else left + right

    def sql(self, views, carry=False) -> str:
        kept = [position(i) for i in self.right.reads()] if carry else []
        right = select(
            [
                *(
                    f"{column_name(i)} AS {column_name(self.left_width + i)}"
                    for i in range(self.right_width)
                ),
                *kept,
            ],
            self.right.sql(views, carry),
        )
        text = f"SELECT * FROM ({self.left.sql(views, carry)}) AS _l, ({right}) AS _r"
        return text if self.condition is None else f"{text} WHERE {self.condition}"


def enabled(t_env, env) -> bool:
    """On the Spark executor, unless turned off, or restoring a savepoint (whose sources'
    positions weir's operators take up)."""
    config = t_env.get_config()
    return (
        env.executor == "spark"
        and str(config.get(OPTION, "true")).lower() != "false"
        and not config.get("execution.savepoint.path", None)
    )


def lower_query(node, final_rows=False):
    """The query of `node` as Spark SQL (a Lowered), or None; `final_rows`: group
    aggregations may be lowered, the query's changelog being its final rows (BATCH mode,
    or mini-batch: TableConfig.mini_batch)."""
    sources: list = []
    root = _lowered(node, sources, groups=final_rows)
    return None if root is None else Lowered(sources, root)


def _lowered(node, sources, windows=False, groups=False):
    """`node` as a _Steps reading `sources` (to which it adds its own), or None;
    `windows`: a window table function's rows are lowered (under a window aggregation);
    `groups`: group aggregations are (the query's changelog is its final rows)."""
    calcs = []
    while type(node) is logical.Calc:
        calcs.append(node)
        node = node.input
    if type(node) is logical.Join:
        root = _join(node, sources, groups)
    elif type(node) is WindowAggregate:
        root = window_aggregate(node, sources, _lowered, _Steps)
    elif type(node) is GroupWindowAggregate:
        root = group_window_aggregate(node, sources, _lowered, _Steps)
    elif groups and type(node) is logical.Aggregate:
        root = group_aggregate(node, sources, _lowered, _Steps)
    elif groups and type(node) is Rank:
        root = rank_of(node, sources, _lowered, _Steps)
    elif windows and type(node) is WindowTvf:
        root = windows_of(node, sources, _lowered, _Steps)
    elif type(node) is logical.Scan:
        root = _scan(node, sources)
    else:
        return None
    if root is None:
        return None
    for calc in reversed(calcs):
        if calc.condition is not None:
            root.steps.append(("where", to_spark_sql(calc.condition, calc.input.columns)))
        root.steps.append(_projection(calc.projections, calc.input.columns))
    if any(sql is None or (kind == "select" and None in sql) for kind, sql in root.steps):
        return None
    return root


def _scan(node, sources):
    if not _json_files(node.connector):
        return None
    physical = node.physical if node.physical is not None else node.columns
    names = [c.name for c in physical]
    if len({n.lower() for n in names}) != len(names) or any(
        spark_type(c.data_type) is None for c in physical
    ):
        return None
    sources.append(
        (
            node.connector.options["path"],
            ", ".join(f"{_quoted(c.name)} {spark_type(c.data_type)}" for c in physical),
        )
    )
    steps = [("select", [f"{_quoted(n)} AS {column_name(i)}" for i, n in enumerate(names)])]
    if node.projections is not None:
        steps.append(_projection(node.projections, physical))
    return _Steps(len(sources) - 1, steps)


def _join(node, sources, groups=False):
    """An inner join of insert-only inputs (what Flink's gives is insert-only too; its
    rows' order is the inputs' timing's, so a join is not lowered where rows are
    collected in order), or of aggregations' final rows (`groups`)."""
    if node.kind != "inner":
        return None
    left = _lowered(node.left, sources, groups=groups)
    right = _lowered(node.right, sources, groups=groups)
    condition = None if node.condition is None else to_spark_sql(node.condition, node.columns)
    if left is None or right is None or (node.condition is not None and condition is None):
        return None
    return _Steps(
        _JoinOf(left, right, len(node.left.columns), len(node.right.columns), condition), []
    )


def _projection(expressions, columns):
    parts = [to_spark_sql(e, columns) for e in expressions]
    return "select", [
        None if p is None else f"{p} AS {column_name(i)}" for i, p in enumerate(parts)
    ]


def _json_files(connector) -> bool:
    options = getattr(connector, "options", {})
    return (
        isinstance(connector, FilesystemConnector)
        and options.get("format") == "json"
        and "path" in options
        and not connector.partition_keys
        and "source.monitor-interval" not in options
        and "source.max-files-per-batch" not in options
    )  # (read in one micro-batch)


def _quoted(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


# -- sinks ----------------------------------------------------------------------------
def lowered_sink(connector, columns):
    """(the line or None, the SparkSink) of an insert into `connector`, or None."""
    from weir.runtime.connectors.spark_interop import SparkSink

    if isinstance(connector, BlackholeConnector):
        return None, SparkSink("noop")
    if not _json_files(connector) or any(
        spark_type(c.data_type) is None or c.data_type.name == "DECIMAL" for c in columns
    ):  # (Spark writes a DECIMAL's trailing zeros, Flink does not)
        return None
    return json_line(columns), SparkSink("text", {"path": connector.options["path"]})


def json_line(columns) -> str:
    """A row of `_c<i>` as Flink's json format writes it: every column (null too), a
    timestamp's fraction of a second only as far as it is not zero."""
    fields = []
    for index, column in enumerate(columns):
        value = column_name(index)
        if column.data_type.name == "TIMESTAMP":
            value = (
                f"regexp_replace(date_format({value}, 'yyyy-MM-dd HH:mm:ss.SSSSSS'), "
                f"'\\\\.?0+$', '')"
            )
        name = column.name.replace("\\", "\\\\").replace("'", "\\'")
        fields.append(f"'{name}', {value}")
    return f"to_json(named_struct({', '.join(fields)}), map('ignoreNullFields', 'false')) AS value"


def native_inserts(t_env, env, inserts, job_name, fallback):
    """The job of `inserts` ([(path, table, connector, sink columns)]) as Spark SQL
    (started), or None where one of them is not lowered."""
    if not enabled(t_env, env):
        return None
    native = _spark("native_job")
    writes = []
    final_rows = not t_env.streaming or t_env.get_config().mini_batch()
    for path, table, connector, columns in inserts:
        query = lower_query(table._node, final_rows)
        sink = lowered_sink(connector, columns)
        if query is None or sink is None:
            return None
        line, spark_sink = sink
        sql = query.sql if line is None else _with_line(query.sql, line)
        writes.append(native.NativeWrite(path, query.sources, sql, spark_sink))
    spark, identity = _session_and_identity(env)
    return native.NativeJob(spark, writes, job_name, identity, fallback).start()


def native_rows(t_env, env, table):
    """The (kind, values) rows of `table`'s query computed by Spark, or None (not
    lowered, or an input line that needs Flink's json reading)."""
    query = lower_query(table._node) if enabled(t_env, env) else None
    if query is None or not query.ordered:
        return None
    spark = _spark("session").get_session(env, sql_job=True)
    rows = _spark("native_job").collect_rows(spark, query.sources, query.sql)
    return None if rows is None else [(0, values) for values in rows]


def _with_line(sql, line):
    return lambda views: select([line], sql(views))


def _spark(module: str):
    """A module of the Spark executor (imported when a job runs on Spark: like the
    DataStream API, the Table API itself needs no pyspark)."""
    return importlib.import_module(f"weir.spark.{module}")


def _session_and_identity(env):
    storage = env.checkpoint_config.get_checkpoint_storage()
    return _spark("session").get_session(env, sql_job=True), (
        _spark("restore").checkpoint_identity(storage) if storage else uuid.uuid4().hex[:16]
    )
