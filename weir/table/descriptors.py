"""Schema, TableDescriptor and FormatDescriptor: how the Table API declares a table of a
connector (PyFlink's `TableDescriptor.for_connector('print').schema(...).build()`)."""

from weir.table.types import DataType


class Schema:
    """A table's columns: Schema.new_builder().column(name, DataTypes.X()).build(); its
    primary key (column names, a connector's upsert key: Flink's are NOT ENFORCED)."""

    def __init__(self, columns, watermark=None, primary_key=()):
        self.columns = list(columns)
        self.watermark = watermark
        self.primary_key = list(primary_key)

    @staticmethod
    def new_builder() -> "Schema.Builder":
        return Schema.Builder()

    class Builder:
        def __init__(self):
            self._columns = []
            self._watermark = None
            self._primary_key = []

        def column(self, column_name: str, data_type) -> "Schema.Builder":
            if isinstance(data_type, str):
                from weir.table.sql_types import parse_type

                data_type = parse_type(data_type)
            if not isinstance(data_type, DataType):
                raise TypeError(f"column '{column_name}' needs a DataTypes type, got {data_type!r}")
            if column_name in dict(self._columns):
                raise ValueError(f"column '{column_name}' is declared twice")
            self._columns.append((column_name, data_type))
            return self

        def column_by_expression(self, column_name: str, expr: str) -> "Schema.Builder":
            """A computed column: a SQL expression over the other columns."""
            if column_name in dict(self._columns):
                raise ValueError(f"column '{column_name}' is declared twice")
            self._columns.append((column_name, ComputedColumn(expr)))
            return self

        def watermark(self, column_name: str, watermark_expr) -> "Schema.Builder":
            self._watermark = (column_name, watermark_expr)
            return self

        def primary_key(self, *column_names: str) -> "Schema.Builder":
            if self._primary_key:
                raise ValueError("a table has one primary key, declared once")
            if not column_names:
                raise ValueError("a primary key needs at least one column")
            if len(set(column_names)) != len(column_names):
                raise ValueError(
                    f"the primary key ({', '.join(column_names)}) names a column twice"
                )
            self._primary_key = list(column_names)
            return self

        def primary_key_named(self, constraint_name: str, *column_names: str) -> "Schema.Builder":
            return self.primary_key(*column_names)

        def build(self) -> "Schema":
            names = [name for name, _ in self._columns]
            for key in self._primary_key:
                if key not in names:
                    raise ValueError(
                        f"the primary key names no column of the table: "
                        f"'{key}' (columns: {', '.join(names)})"
                    )
                if not isinstance(dict(self._columns)[key], DataType):
                    raise ValueError(
                        f"the primary key's column '{key}' is computed: a "
                        "primary key takes physical columns"
                    )
            columns = [
                (name, data_type.not_null() if name in self._primary_key else data_type)
                for name, data_type in self._columns
            ]  # (Flink's keys are NOT NULL)
            return Schema(columns, self._watermark, self._primary_key)


class ComputedColumn:
    """A column computed by a SQL expression (Schema.column_by_expression)."""

    def __init__(self, expression: str):
        self.expression = expression

    def __repr__(self):
        return f"AS {self.expression}"


class FormatDescriptor:
    def __init__(self, format_name: str, options):
        self.format, self.options = format_name, dict(options)

    @staticmethod
    def for_format(format_name: str) -> "FormatDescriptor.Builder":
        return FormatDescriptor.Builder(format_name)

    class Builder:
        def __init__(self, format_name):
            self._format, self._options = format_name, {}

        def option(self, key: str, value) -> "FormatDescriptor.Builder":
            self._options[key] = str(value)
            return self

        def build(self) -> "FormatDescriptor":
            return FormatDescriptor(self._format, self._options)


class TableDescriptor:
    """A connector, a schema and options: TableDescriptor.for_connector('datagen')..."""

    def __init__(self, connector: str, schema, options, partition_keys=()):
        self.connector, self.schema, self.options = connector, schema, dict(options)
        self.partition_keys = list(partition_keys)

    @staticmethod
    def for_connector(connector: str) -> "TableDescriptor.Builder":
        return TableDescriptor.Builder(connector)

    def all_options(self) -> dict:
        return {"connector": self.connector, **self.options}

    def get_schema(self):
        return self.schema

    def get_options(self) -> dict:
        return self.all_options()

    def get_partition_keys(self) -> list:
        return list(self.partition_keys)

    class Builder:
        def __init__(self, connector):
            self._connector, self._schema, self._options = connector, None, {}
            self._partition_keys: list = []

        def schema(self, schema: Schema) -> "TableDescriptor.Builder":
            self._schema = schema
            return self

        def option(self, key: str, value) -> "TableDescriptor.Builder":
            self._options[key] = str(value)
            return self

        def format(self, format, format_option_key=None) -> "TableDescriptor.Builder":
            if isinstance(format, str):
                self._options["format"] = format
            else:
                self._options["format"] = format.format
                for key, value in format.options.items():
                    self._options[f"{format.format}.{key}"] = value
            return self

        def partitioned_by(self, *partition_keys: str) -> "TableDescriptor.Builder":
            """The table's partition columns (a filesystem table's directories)."""
            self._partition_keys = list(partition_keys)
            return self

        def build(self) -> "TableDescriptor":
            if self._schema is None:
                raise ValueError(f"a '{self._connector}' table needs a schema")
            return TableDescriptor(
                self._connector, self._schema, self._options, self._partition_keys
            )
