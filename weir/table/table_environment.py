"""TableEnvironment and StreamTableEnvironment (PyFlink's): the catalog of a program's
tables and functions, SQL, and running tables as weir jobs.

Each `execute()`, `execute_insert` or statement set is one weir job in a
StreamExecutionEnvironment of its own (the parallelism from `parallelism.default`), so
a Table program runs as its DataStream jobs do: on the embedded Spark or a cluster.
"""

from typing import Optional

from weir.common.gaps import PyFlinkGaps
from weir.common.row import Row, RowKind
from weir.datastream import StreamExecutionEnvironment
from weir.table import logical
from weir.table.casts import element_type
from weir.table.catalog import CatalogMethods
from weir.table.connectors import connector_of
from weir.table.descriptors import TableDescriptor
from weir.table.evaluate import Column
from weir.table.planner import Planner
from weir.table.result import ResultKind, TableResult
from weir.table.table import Table
from weir.table.table_config import EnvironmentSettings, TableConfig
from weir.table.types import DataType


class TableEnvironment(CatalogMethods, PyFlinkGaps):
    _pyflink_class = "TableEnvironment"
    _pyflink_gaps = frozenset(
        [
            "from_table_source",
            "register_catalog",
            "load_module",
            "create_catalog",
            "get_catalog",
            "compile_plan_sql",
            "load_plan",
            "execute_plan",
        ]
    )

    def __init__(self, settings: Optional[EnvironmentSettings] = None, stream_env=None):
        self._settings = settings or EnvironmentSettings.in_streaming_mode()
        self._stream_env = stream_env
        self._config = TableConfig()
        self._tables = {}  # name -> Table (views) or TableDescriptor-like (DDL)
        self.functions = {}
        self._dependencies = []  # (method, args): add_python_file and the like

    @staticmethod
    def create(environment_settings=None) -> "TableEnvironment":
        if environment_settings is not None and not isinstance(
            environment_settings, EnvironmentSettings
        ):
            environment_settings = EnvironmentSettings.in_streaming_mode()
        return TableEnvironment(environment_settings)

    def get_config(self) -> TableConfig:
        return self._config

    @property
    def streaming(self) -> bool:
        return self._settings.is_streaming_mode()

    # -- tables ---------------------------------------------------------------------
    def from_elements(self, elements, schema=None, verify_schema: bool = True) -> Table:
        rows = [tuple(e) if isinstance(e, (tuple, list)) else (e,) for e in elements]
        columns = _element_columns(rows, schema)
        return Table(logical.Values(columns, rows), self)

    def register_table(self, name: str, table: Table) -> None:
        self._tables[name] = table

    def create_temporary_view(self, view_path: str, table_or_stream, *fields) -> None:
        if view_path in self._tables:
            raise ValueError(f"temporary view '{view_path}' already exists")
        if not isinstance(table_or_stream, Table):
            table_or_stream = self.from_data_stream(table_or_stream, *fields)
        self._tables[view_path] = table_or_stream

    def create_temporary_table(self, path: str, descriptor: TableDescriptor) -> None:
        if path in self._tables:
            raise ValueError(f"temporary table '{path}' already exists")
        self._tables[path] = descriptor

    create_table = create_temporary_table

    def drop_temporary_table(self, path: str) -> bool:
        return self._tables.pop(path, None) is not None

    drop_temporary_view = drop_temporary_table

    def list_tables(self):
        return sorted(self._tables)

    list_temporary_tables = list_tables
    list_views = list_tables

    def from_path(self, path: str) -> Table:
        entry = self._tables.get(path)
        if entry is None:
            raise ValueError(
                f"Object '{path}' not found: create it with "
                "create_temporary_table, create_temporary_view or CREATE TABLE"
            )
        if isinstance(entry, Table):
            return entry
        table = Table(self._scan(path, entry), self)
        table._declared = entry.schema  # (printed with its expressions: print_schema)
        return table

    def _scan(self, path, descriptor):
        from weir.table.descriptors import ComputedColumn
        from weir.table.evaluate import compile_expression
        from weir.table.expressions import col

        schema = descriptor.schema
        rowtime = schema.watermark[0] if schema.watermark else None
        physical = [Column(n, t) for n, t in schema.columns if not isinstance(t, ComputedColumn)]
        projections, columns = None, []
        if len(physical) < len(schema.columns):
            from weir.table.sql import SqlPlanner

            projections = [
                SqlPlanner(self).expression(t.expression)
                if isinstance(t, ComputedColumn)
                else col(n)
                for n, t in schema.columns
            ]
        for index, (name, data_type) in enumerate(schema.columns):
            proctime = False
            if isinstance(data_type, ComputedColumn):
                assert projections is not None  # (set where there are computed columns)
                projection = projections[index]
                proctime = projection.op == "builtin" and projection.args[0] == "PROCTIME"
                data_type = compile_expression(projection, physical).data_type
            columns.append(Column(name, data_type, name == rowtime, proctime))
        delay = 0
        if rowtime is not None:
            if rowtime not in [c.name for c in columns]:
                raise ValueError(
                    f"table '{path}': the watermark's column '{rowtime}' is not a column"
                )
            from weir.table.sql import SqlPlanner

            delay = SqlPlanner(self).watermark_delay(schema.watermark[1], rowtime)
        connector = connector_of(
            descriptor.all_options(),
            getattr(schema, "primary_key", ()),
            getattr(descriptor, "partition_keys", ()),
        )
        return logical.Scan(columns, path, connector, rowtime, delay, physical, projections)

    def _sink_descriptor(self, path: str):
        entry = self._tables.get(path)
        if entry is None or isinstance(entry, Table):
            raise ValueError(
                f"no table '{path}' to insert into: create it with "
                "create_temporary_table or CREATE TABLE"
            )
        return entry

    # -- functions ------------------------------------------------------------------
    def create_temporary_function(self, path: str, function) -> None:
        self.functions[path.lower()] = function

    create_temporary_system_function = create_temporary_function
    create_function = create_temporary_function

    def register_function(self, name: str, function) -> None:
        self.create_temporary_function(name, function)

    # -- SQL ------------------------------------------------------------------------
    def sql_query(self, query: str) -> Table:
        from weir.table.sql import SqlPlanner

        return SqlPlanner(self).query(query)

    def execute_sql(self, stmt: str) -> TableResult:
        from weir.table.sql import SqlPlanner

        return SqlPlanner(self).execute(stmt)

    def explain_sql(self, stmt: str, *extra_details) -> str:
        from weir.table.sql import SqlPlanner

        return self.explain_table(SqlPlanner(self).query(stmt))

    def create_statement_set(self) -> "StatementSet":
        return StatementSet(self)

    # -- running --------------------------------------------------------------------
    def _new_env(self, node=None):
        """The environment of a job: the program's own for a table over its DataStreams,
        else a new one (each Table job is a job of its own)."""
        if node is not None and self._stream_env is not None and _reads_streams(node):
            return self._stream_env
        env = StreamExecutionEnvironment.get_execution_environment(
            self._config.get_configuration() if self._config._settings else None
        )
        if self._stream_env is not None:
            env.set_parallelism(self._stream_env.parallelism)
            env.executor = self._stream_env.executor
            env.executor_clock = getattr(self._stream_env, "executor_clock", None)
        parallelism = self._config.get("parallelism.default")
        if parallelism is not None:
            env.set_parallelism(int(parallelism))
        if not self.streaming:
            from weir.datastream import RuntimeExecutionMode

            env.set_runtime_mode(RuntimeExecutionMode.BATCH)
        return self._with_dependencies(env)

    def execute_table(self, table: Table) -> TableResult:
        env = self._new_env(table._node)
        from weir.table.lowering import native_rows

        records = native_rows(self, env, table)  # as Spark SQL, where it is lowered
        if records is not None:
            return TableResult(table._node.columns, records, self.streaming)
        stream = self._final(self._planner(env).stream(table._node), table)
        records = list(stream.execute_and_collect("collect"))
        return TableResult(table._node.columns, records, self.streaming)

    def _upserts(self, stream, table, connector, columns):
        """The changelog for an upsert sink, through Flink's sink upsert materializer
        where the query's unique keys are not within the sink's primary key
        (weir.table.upsert_materialize)."""
        from weir.table import upsert_materialize as um

        if not (self.streaming and connector.upsert_sink):
            return stream
        names = [c.name for c in columns]
        positions = [names.index(k) for k in connector.primary_key]
        key = [table._node.columns[i].name for i in positions]
        if not um.needs_materializer(table._node, key, self._config.get(um.OPTION, "AUTO")):
            return stream
        from weir.table.planner import KeyOf

        return (
            stream.key_by(KeyOf.at(positions))
            .process(um.SinkUpsertMaterializer())
            .name("SinkMaterializer")
        )

    def _planner(self, env) -> Planner:
        return Planner(env, self._config.mini_batch())

    def _final(self, stream, table):
        """In BATCH mode a changelog's final rows (inserts) only, as Flink's batch."""
        if self.streaming or not table._node.changelog:
            return stream
        from weir.table import changelog

        return stream.key_by(_values_of).process(changelog.Materialize()).name("Materialize")

    def insert_into(self, path, table: Table) -> TableResult:
        statements = StatementSet(self)
        statements.add_insert(path, table)
        return statements.execute()

    def run_inserts(self, inserts) -> TableResult:
        env = self._new_env(inserts[0][1]._node)
        prepared = []  # (path, table, connector, the sink's columns)
        for anonymous, (path, table) in enumerate(inserts, 1):
            if isinstance(path, TableDescriptor):  # (an inline sink: Flink's anonymous)
                descriptor, path = path, f"*anonymous_{path.connector}${anonymous}*"
            else:
                descriptor = self._sink_descriptor(path)
            _check_sink_columns(path, descriptor, table)
            table = _cast_to_sink(table, descriptor)
            connector = connector_of(
                descriptor.all_options(),
                getattr(descriptor.schema, "primary_key", ()),
                getattr(descriptor, "partition_keys", ()),
            )
            if table._node.changelog and self.streaming and not connector.accepts_changelog:
                raise ValueError(
                    f"Table sink '{path}' ({connector.name}) doesn't support consuming "
                    "update and delete changes; the query's result is a changelog (an "
                    "aggregate's or an outer join's updates): it takes inserts only"
                )
            columns = [
                Column(n, t) if isinstance(t, DataType) else c
                for (n, t), c in zip(descriptor.schema.columns, table._node.columns)
            ]
            prepared.append((path, table, connector, columns))
        name = "insert-into_" + ",".join(
            f"default_catalog.default_database.{path}" for path, *_ in prepared
        )
        from weir.table.lowering import native_inserts

        client = native_inserts(
            self,
            env,
            prepared,
            name,  # as Spark SQL, if lowered
            lambda: self._run_on_operators(env, prepared, name),
        )
        if client is None:
            client = self._run_on_operators(env, prepared, name)
        return TableResult(job_client=client, kind=ResultKind.SUCCESS_WITH_CONTENT)

    def _run_on_operators(self, env, prepared, name):
        """The inserts' job on weir's operators (started)."""
        planner = self._planner(env)
        for path, table, connector, columns in prepared:
            stream = self._final(planner.stream(table._node), table)
            connector.sink(self._upserts(stream, table, connector, columns), path, columns)
        return env.execute_async(name)

    def explain_table(self, table: Table) -> str:
        return "== weir plan ==\n" + logical.explain_tree(table._node) + "\n"

    def to_pandas(self, table: Table):
        import pandas

        result = self.execute_table(table)
        rows = [values for kind, values in result.records if kind in (0, 2)]
        return pandas.DataFrame(rows, columns=[c.name for c in table._node.columns])

    def from_pandas(self, pdf, schema=None, splits_num: int = 1) -> Table:
        rows = [tuple(_plain(v) for v in row) for row in pdf.itertuples(index=False)]
        return self.from_elements(rows, schema or list(pdf.columns))

    # -- DataStream and Spark ---------------------------------------------------------
    def _streams_env(self):
        """The environment a table over DataStreams (or Spark) plans in: the program's,
        or one of this TableEnvironment's own."""
        if self._stream_env is None:
            self._stream_env = self._new_env()
        return self._stream_env

    def from_spark(self, dataframe, watermark_strategy=None) -> Table:
        """A table of a Spark DataFrame's rows (weir's addition): its columns and types;
        a streaming DataFrame is an unbounded table, a batch one a bounded table."""
        return self.from_data_stream(self._streams_env().from_spark(dataframe, watermark_strategy))

    def to_spark(self, table: Table):
        """An insert-only table as a Spark DataFrame (weir's addition, DataStream.to_spark's):
        a streaming one over streaming sources, to start with its writeStream; a batch one
        over batch DataFrames."""
        self._streams_env()
        return self.to_data_stream(table).to_spark()

    def from_data_stream(self, data_stream, *fields) -> Table:
        from weir.table.streams import stream_table

        return stream_table(self, data_stream, fields)

    def from_changelog_stream(self, data_stream, schema=None, changelog_mode=None) -> Table:
        from weir.table.streams import changelog_table

        return changelog_table(self, data_stream, schema)

    def to_data_stream(self, table: Table):
        from weir.table.streams import table_stream

        return table_stream(self, table, changelog=False)

    def to_changelog_stream(self, table: Table):
        from weir.table.streams import table_stream

        return table_stream(self, table, changelog=True)

    def to_append_stream(self, table: Table, type_info=None):
        from weir.table.streams import append_stream

        return append_stream(self, table, type_info)

    def to_retract_stream(self, table: Table, type_info=None):
        from weir.table.streams import retract_stream

        return retract_stream(self, table, type_info)


class StreamTableEnvironment(TableEnvironment):
    _pyflink_class = "StreamTableEnvironment"

    @staticmethod  # (PyFlink's: a StreamExecutionEnvironment first)
    def create(  # type: ignore[override]
        stream_execution_environment=None, environment_settings=None
    ):
        settings = environment_settings or EnvironmentSettings.in_streaming_mode()
        env = stream_execution_environment or StreamExecutionEnvironment.get_execution_environment()
        return StreamTableEnvironment(settings, env)


class StatementSet:
    def __init__(self, t_env: TableEnvironment):
        self._t_env = t_env
        self._inserts: list = []

    def add_insert(self, target_path, table: Table, overwrite: bool = False) -> "StatementSet":
        self._inserts.append((target_path, table))
        return self

    def add_insert_sql(self, stmt: str) -> "StatementSet":
        from weir.table.sql import SqlPlanner

        self._inserts.append(SqlPlanner(self._t_env).insert(stmt))
        return self

    def explain(self, *extra_details) -> str:
        return "\n".join(self._t_env.explain_table(t) for _, t in self._inserts)

    def execute(self) -> TableResult:
        if not self._inserts:
            raise ValueError("the statement set has no INSERT to execute")
        return self._t_env.run_inserts(self._inserts)


def _values_of(record):
    return record[1]


def _reads_streams(node) -> bool:
    return type(node).__name__ == "StreamScan" or any(_reads_streams(n) for n in node.inputs)


def _check_sink_columns(path, descriptor, table):
    want = len(descriptor.schema.columns)
    have = len(table._node.columns)
    if want != have:
        raise ValueError(
            f"Column types of query result and sink for '{path}' do not match: the query "
            f"has {have} columns [{', '.join(c.name for c in table._node.columns)}], the "
            f"sink {want} [{', '.join(n for n, _ in descriptor.schema.columns)}]"
        )


def _cast_to_sink(table, descriptor):
    """The query's rows in the sink's column types (Flink casts them implicitly: a FLOAT
    column rounds, a TIMESTAMP becomes a TIMESTAMP_LTZ in the local time zone)."""
    from weir.table.expressions import col

    columns = table._node.columns
    declared = [t for _, t in descriptor.schema.columns]
    if all(
        str(c.data_type).replace(" NOT NULL", "") == str(t).replace(" NOT NULL", "")
        or not isinstance(t, DataType)
        for c, t in zip(columns, declared)
    ):
        return table
    return table.select(
        *(
            col(c.name).cast(t).alias(c.name)
            if isinstance(t, DataType) and c.data_type.name != t.name
            else col(c.name)
            for c, t in zip(columns, declared)
        )
    )


def _element_columns(rows, schema):
    """The columns of from_elements: names from a list, types from a ROW DataType, else
    inferred from the first row (`_1`, `_2`... without names, as PyFlink's)."""
    if isinstance(schema, DataType):
        if schema.name != "ROW":
            raise ValueError("from_elements takes a ROW type or a list of names as schema")
        return [Column(f.name, f.data_type) for f in schema.fields]
    width = len(rows[0]) if rows else len(schema or [])
    names = list(schema) if schema else [f"_{i + 1}" for i in range(width)]
    if len(names) != width:
        raise ValueError(f"from_elements: {len(names)} names for rows of {width} fields")
    types = []
    for index in range(width):
        sample = next((r[index] for r in rows if r[index] is not None), None)
        types.append(element_type(sample) if sample is not None else None)
    return [Column(n, t or DataType("NULL", None)) for n, t in zip(names, types)]


def _plain(value):
    item = getattr(value, "item", None)
    return item() if callable(item) else value


__all__ = [
    "EnvironmentSettings",
    "TableConfig",
    "TableEnvironment",
    "StreamTableEnvironment",
    "StatementSet",
    "Row",
    "RowKind",
]
