"""StreamTableEnvironment, Schema, TableDescriptor and Table: only what turns a `datagen`
table into a DataStream (`to_data_stream`). weir runs PyFlink's DataStream API; its
Table API and SQL are not there."""

from weir.common.gaps import PyFlinkGaps, not_there_yet
from weir.table.datagen import datagen_source
from weir.table.types import DataType


class Schema:
    """A table's columns: Schema.new_builder().column(name, DataTypes.X()).build()."""

    def __init__(self, columns):
        self.columns = list(columns)

    @staticmethod
    def new_builder() -> "Schema.Builder":
        return Schema.Builder()

    class Builder:
        def __init__(self):
            self._columns = []

        def column(self, column_name: str, data_type) -> "Schema.Builder":
            if not isinstance(data_type, DataType):
                raise TypeError(f"column '{column_name}' needs a DataTypes type, "
                                f"got {data_type!r}")
            if column_name in dict(self._columns):
                raise ValueError(f"column '{column_name}' is declared twice")
            self._columns.append((column_name, data_type))
            return self

        def build(self) -> "Schema":
            return Schema(self._columns)


class TableDescriptor:
    """A connector, a schema and options: TableDescriptor.for_connector('datagen')..."""

    def __init__(self, connector: str, schema, options):
        self.connector, self.schema, self.options = connector, schema, dict(options)

    @staticmethod
    def for_connector(connector: str) -> "TableDescriptor.Builder":
        if connector != "datagen":
            not_there_yet(f"Table API connector '{connector}' (weir has only 'datagen', "
                          "as a DataStream through to_data_stream)")
        return TableDescriptor.Builder(connector)

    class Builder:
        def __init__(self, connector):
            self._connector, self._schema, self._options = connector, None, {}

        def schema(self, schema: Schema) -> "TableDescriptor.Builder":
            self._schema = schema
            return self

        def option(self, key: str, value) -> "TableDescriptor.Builder":
            self._options[key] = str(value)
            return self

        def build(self) -> "TableDescriptor":
            if self._schema is None:
                raise ValueError("a datagen table needs a schema")
            return TableDescriptor(self._connector, self._schema, self._options)


class Table(PyFlinkGaps):
    """A table registered from a descriptor: only to_data_stream turns it into records."""

    _pyflink_class = "Table"
    _pyflink_gaps = frozenset(["select", "where", "filter", "group_by", "join", "execute",
                               "execute_insert", "to_pandas", "window", "add_columns"])

    def __init__(self, path: str, descriptor: TableDescriptor):
        self.path = path
        self.descriptor = descriptor


class StreamTableEnvironment(PyFlinkGaps):
    _pyflink_class = "StreamTableEnvironment"
    _pyflink_gaps = frozenset(["execute_sql", "sql_query", "from_elements", "from_data_stream",
                               "create_statement_set", "to_changelog_stream"])

    def __init__(self, stream_execution_environment):
        self._env = stream_execution_environment
        self._tables = {}

    @staticmethod
    def create(stream_execution_environment=None, environment_settings=None):
        if stream_execution_environment is None:
            not_there_yet("StreamTableEnvironment without a StreamExecutionEnvironment")
        return StreamTableEnvironment(stream_execution_environment)

    def create_temporary_table(self, path: str, descriptor: TableDescriptor) -> None:
        if path in self._tables:
            raise ValueError(f"temporary table '{path}' already exists")
        self._tables[path] = descriptor

    def from_path(self, path: str) -> Table:
        if path not in self._tables:
            raise ValueError(f"no table '{path}': create it with create_temporary_table")
        return Table(path, self._tables[path])

    def to_data_stream(self, table: Table):
        """The table's rows as a DataStream of Rows (field names of its schema)."""
        descriptor = table.descriptor
        source = datagen_source(table.path, descriptor.schema.columns, descriptor.options)
        return self._env.from_source(source, None, "datagen")
