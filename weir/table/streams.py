"""Tables and DataStreams (StreamTableEnvironment.from_data_stream, to_data_stream,
to_changelog_stream): a table read from a stream plans in the stream's environment; a
table turned into a stream gives Rows with their field names and RowKind."""

from weir.common.row import Row, RowKind
from weir.table import logical
from weir.table.evaluate import Column
from weir.table.types import DataType, DataTypes

_TYPES = {"STRING": DataTypes.STRING, "BYTE": DataTypes.TINYINT, "SHORT": DataTypes.SMALLINT,
          "INT": DataTypes.INT, "LONG": DataTypes.BIGINT, "FLOAT": DataTypes.FLOAT,
          "DOUBLE": DataTypes.DOUBLE, "BOOLEAN": DataTypes.BOOLEAN,
          "BIG_DEC": lambda: DataTypes.DECIMAL(38, 18), "SQL_DATE": DataTypes.DATE,
          "SQL_TIMESTAMP": lambda: DataTypes.TIMESTAMP(3)}


def _data_type(type_info) -> DataType:
    name = type_info.name() if callable(getattr(type_info, "name", None)) else None
    if name in _TYPES:
        return _TYPES[name]()
    return DataType("RAW", type_info)


class _ToRecord:
    def __init__(self, width):
        self.width = width

    def __call__(self, value):
        if isinstance(value, (tuple, list)):
            kind = value.get_row_kind().value if isinstance(value, Row) else 0
            return kind, tuple(value)
        return 0, (value,)


class _ToRow:
    def __init__(self, names, changelog):
        self.names, self.changelog = names, changelog

    def __call__(self, record):
        kind, values = record
        row = Row(**dict(zip(self.names, values)))
        row.set_row_kind(RowKind(kind))
        return row


class StreamScan(logical.Node):
    """A table over a DataStream of the program's environment."""

    def __init__(self, columns, stream):
        super().__init__(columns)
        self.stream = stream

    def describe(self):
        return f"DataStreamScan(fields=[{', '.join(c.name for c in self.columns)}])"


def stream_table(t_env, data_stream, fields):
    from weir.table.table import Table
    type_info = data_stream.get_type()
    if hasattr(type_info, "get_field_names"):
        names = type_info.get_field_names()
        types = [_data_type(t) for t in type_info.get_field_types()]
    else:
        names = ["f0"]
        types = [_data_type(type_info) if type_info is not None else DataType("RAW", None)]
    if fields:
        names = [f if isinstance(f, str) else f.args[0] for f in fields]
    if len(names) != len(types):
        raise ValueError(f"from_data_stream names {len(names)} fields of a stream of "
                         f"{len(types)}")
    columns = [Column(n, t) for n, t in zip(names, types)]
    return Table(StreamScan(columns, data_stream), t_env)


def table_stream(t_env, table, changelog: bool):
    from weir.table.planner import Planner
    if t_env._stream_env is None:
        raise ValueError("to_data_stream needs a StreamTableEnvironment")
    if not changelog and table._node.changelog:
        raise ValueError("Table sink doesn't support consuming update changes: this table "
                         "is a changelog (an aggregate's updates); use to_changelog_stream")
    names = [c.name for c in table._node.columns]
    stream = Planner(t_env._stream_env).stream(table._node)
    from weir.common.typeinfo import Types
    row_type = Types.ROW_NAMED(names, [c.data_type.type_info or Types.PICKLED_BYTE_ARRAY()
                                       for c in table._node.columns])
    return stream.map(_ToRow(names, changelog), output_type=row_type)
