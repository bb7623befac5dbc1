"""Tables and DataStreams (StreamTableEnvironment.from_data_stream, to_data_stream,
to_changelog_stream): a table read from a stream plans in the stream's environment; a
table turned into a stream gives Rows with their field names and RowKind."""

import datetime
import decimal
from typing import Callable, Dict, Optional

from weir.common.row import Row, RowKind
from weir.datastream.functions import ProcessFunction
from weir.table import logical
from weir.table.descriptors import ComputedColumn, Schema
from weir.table.evaluate import Column, compile_expression
from weir.table.expressions import col
from weir.table.types import DataType, DataTypes
from weir.table.windowing import to_datetime

_TYPES = {
    "INSTANT": lambda: DataTypes.TIMESTAMP_LTZ(9),
    "STRING": DataTypes.STRING,
    "BYTE": DataTypes.TINYINT,
    "SHORT": DataTypes.SMALLINT,
    "INT": DataTypes.INT,
    "LONG": DataTypes.BIGINT,
    "FLOAT": DataTypes.FLOAT,
    "DOUBLE": DataTypes.DOUBLE,
    "BOOLEAN": DataTypes.BOOLEAN,
    "BIG_DEC": lambda: DataTypes.DECIMAL(38, 18),
    "SQL_DATE": DataTypes.DATE,
    "SQL_TIMESTAMP": lambda: DataTypes.TIMESTAMP(3),
}


def _data_type(type_info) -> DataType:
    name = getattr(type_info, "name", None)
    name = name() if callable(name) else name
    if name in _TYPES:
        return _TYPES[name]()
    return DataType("RAW", type_info)


class _ToRecord:
    def __init__(self, width):
        self.width = width

    def __call__(self, value):
        if isinstance(value, (tuple, list, Row)):
            kind = value.get_row_kind().value if isinstance(value, Row) else 0
            return kind, tuple(value)
        return 0, (value,)


class RecordTime(ProcessFunction):
    """(kind, values) of a stream's element, its field `index` replaced by the record's
    timestamp."""

    def __init__(self, index):
        self.index = index

    def process_element(self, value, ctx):
        kind, values = _ToRecord(0)(value)
        stamp = to_datetime(ctx.timestamp())
        yield kind, values[: self.index] + (stamp,) + values[self.index + 1 :]


class _ToRow:
    def __init__(self, names, changelog):
        self.names, self.changelog = names, changelog

    def __call__(self, record):
        kind, values = record
        row = Row(**dict(zip(self.names, values)))
        row.set_row_kind(RowKind(kind))
        return row


class StreamScan(logical.Node):
    """A table over a DataStream of the program's environment: the stream's fields
    (`physical`), the declared columns computed from them (`projections`, None: the
    fields as they are) and the event-time column with its watermark delay."""

    def __init__(self, columns, stream, physical=None, projections=None, rowtime=None, delay_ms=0):
        super().__init__(columns)
        self.stream, self.physical, self.projections = stream, physical, projections
        self.rowtime, self.delay_ms = rowtime, delay_ms

    changelog_input = False  # (from_changelog_stream: the Rows' kinds are changes)
    record_time: Optional[int] = None  # (a field replaced by each record's timestamp: `.rowtime`)

    @property
    def changelog(self):
        return self.changelog_input

    def describe(self):
        return f"DataStreamScan(fields=[{', '.join(c.name for c in self.columns)}])"


def changelog_table(t_env, data_stream, schema=None):
    """PyFlink's from_changelog_stream: a stream of Rows whose kinds (+I, -U, +U, -D)
    are the table's changes."""
    table = stream_table(t_env, data_stream, (schema,) if schema is not None else ())
    table._node.changelog_input = True
    return table


def stream_table(t_env, data_stream, fields):
    from weir.table.table import Table

    type_info = data_stream.get_type()
    if hasattr(type_info, "get_field_names"):
        names = type_info.get_field_names()
        types = [_data_type(t) for t in type_info.get_field_types()]
    else:
        names = ["f0"]
        types = [_data_type(type_info) if type_info is not None else DataType("RAW", None)]
    physical = [Column(n, t) for n, t in zip(names, types)]
    if fields and isinstance(fields[0], Schema):
        return Table(_declared_scan(t_env, data_stream, physical, fields[0]), t_env)
    by_name = _by_name(fields, names)
    if by_name is not None:
        return Table(_selected_scan(data_stream, physical, by_name), t_env)
    if fields:
        names = [f if isinstance(f, str) else f.args[0] for f in fields]
    if len(names) != len(types):
        raise ValueError(f"from_data_stream names {len(names)} fields of a stream of {len(types)}")
    columns = [Column(n, t) for n, t in zip(names, types)]
    return Table(StreamScan(columns, data_stream), t_env)


def _by_name(fields, names):
    """[(field name, column name, rowtime)] where `fields` are expressions naming fields
    of the stream (Flink's name-based mapping: `col('a')`, `col('b').alias('x')`,
    `col('ts').rowtime`), some of them not plain names; else None."""
    parsed = []
    for field in fields:
        expr = field if not isinstance(field, str) else None
        alias = None
        if expr is not None and expr.op == "alias":
            expr, alias = expr.args[0], expr.args[1][0]
        rowtime = expr is not None and expr.op == "window_rowtime"
        if rowtime:
            assert expr is not None  # (rowtime)
            expr = expr.args[0]
        name = field if expr is None else (expr.args[0] if expr.op == "col" else None)
        parsed.append((name, alias or name, rowtime))
    if (
        not parsed
        or all(isinstance(f, str) or f.op == "col" for f in fields)
        or any(name not in names for name, _, _ in parsed)
    ):
        return None
    return parsed


def _selected_scan(data_stream, physical, selected):
    """The stream's fields picked by name (renamed where aliased); a `.rowtime` field
    holds each record's timestamp (TIMESTAMP(3)), the stream's own watermarks its time
    attribute's, as Flink's fromDataStream with field expressions."""
    names = [c.name for c in physical]
    times = [names.index(name) for name, _, rowtime in selected if rowtime]
    if len(times) > 1:
        raise ValueError("from_data_stream takes one .rowtime field")
    columns, projections = [], []
    for name, alias, rowtime in selected:
        data_type = DataTypes.TIMESTAMP(3) if rowtime else physical[names.index(name)].data_type
        columns.append(Column(alias, data_type, rowtime))
        projections.append(col(name).alias(alias) if alias != name else col(name))
    if times:
        physical = list(physical)
        physical[times[0]] = Column(names[times[0]], DataTypes.TIMESTAMP(3))
    scan = StreamScan(columns, data_stream, physical, projections)
    scan.record_time = times[0] if times else None
    return scan


def _declared_scan(t_env, data_stream, physical, schema):
    """The columns a Schema declares over a stream: its fields by name, computed columns
    by their SQL expressions, and the watermark's column as the time attribute."""
    from weir.table.sql import SqlPlanner

    expressions, columns = [], []
    known = {c.name for c in physical}
    rowtime = schema.watermark[0] if schema.watermark else None
    for name, declared in schema.columns:
        if isinstance(declared, ComputedColumn):
            expr = SqlPlanner(t_env).expression(declared.expression)
        elif name in known:
            expr = col(name).cast(declared) if isinstance(declared, DataType) else col(name)
        else:
            raise ValueError(
                f"from_data_stream: the schema's column '{name}' is not a "
                f"field of the stream ({', '.join(sorted(known))})"
            )
        compiled = compile_expression(expr, physical)
        expressions.append(expr)
        columns.append(Column(name, compiled.data_type, name == rowtime))
    delay = 0
    if rowtime is not None:
        if rowtime not in [c.name for c in columns]:
            raise ValueError(f"the watermark's column '{rowtime}' is not a column")
        delay = SqlPlanner(t_env).watermark_delay(schema.watermark[1], rowtime)
    return StreamScan(columns, data_stream, physical, expressions, rowtime, delay)


def table_stream(t_env, table, changelog: bool):
    if t_env._stream_env is None:
        raise ValueError("to_data_stream needs a StreamTableEnvironment")
    if not changelog and table._node.changelog:
        raise ValueError(
            "Table sink doesn't support consuming update changes: this table "
            "is a changelog (an aggregate's updates); use to_changelog_stream"
        )
    names = [c.name for c in table._node.columns]
    stream = t_env._planner(t_env._stream_env).stream(table._node)
    from weir.common.typeinfo import Types

    row_type = Types.ROW_NAMED(
        names, [c.data_type.type_info or Types.PICKLED_BYTE_ARRAY() for c in table._node.columns]
    )
    return stream.map(_ToRow(names, changelog), output_type=row_type)


def _field_converters(type_info):
    """Per field of a TUPLE type, the conversion of a table's value to the Java class
    the field's type names, as Flink's legacy conversions make it (an INSTANT from a
    TIMESTAMP read as UTC; a BIG_DEC from an integer, at DECIMAL(38, 18)'s scale), or
    None where the value passes as it is."""
    fields: list = getattr(type_info, "get_field_types", lambda: [])()
    return [_CONVERSIONS.get(getattr(t, "name", None)) for t in fields]


def _to_instant(value):
    from weir.common.time import Instant

    if not isinstance(value, datetime.datetime):
        return value
    if value.tzinfo is None:
        value = value.replace(tzinfo=datetime.timezone.utc)
    return Instant.of_epoch_milli(round(value.timestamp() * 1000))


def _to_big_decimal(value):
    if isinstance(value, int) and not isinstance(value, bool):
        return decimal.Decimal(value).quantize(decimal.Decimal(1).scaleb(-18))
    return value


_CONVERSIONS: Dict[Optional[str], Callable] = {"INSTANT": _to_instant, "BIG_DEC": _to_big_decimal}


def _converted(values, converters):
    """`values` with each field's conversion (none: as they are)."""
    if not converters:
        return values
    return tuple(v if c is None or v is None else c(v) for v, c in zip(values, converters))


class _AsType:
    """A Row as a stream of `type_info` gets it: a tuple for a TUPLE type, else the Row
    (its kind reset: an append stream's rows are inserts)."""

    def __init__(self, as_tuple, converters=()):
        self.as_tuple, self.converters = as_tuple, list(converters)

    def __call__(self, row):
        if self.as_tuple:
            return _converted(tuple(row), self.converters)
        plain = Row(**row.as_dict()) if hasattr(row, "as_dict") else row
        plain.set_row_kind(RowKind.INSERT)
        return plain


class _Retraction:
    """A changelog Row as the legacy retract stream's (flag, row): True adds the row
    (+I, +U), False retracts it (-U, -D); the row keeps its kind."""

    def __init__(self, as_tuple, converters=()):
        self.as_tuple, self.converters = as_tuple, list(converters)

    def __call__(self, row):
        kind = row.get_row_kind()
        return kind in (RowKind.INSERT, RowKind.UPDATE_AFTER), _converted(
            tuple(row), self.converters
        ) if self.as_tuple else row


def _is_tuple_type(type_info) -> bool:
    return type(type_info).__name__ == "TupleTypeInfo"


def append_stream(t_env, table, type_info=None):
    """PyFlink's to_append_stream(table, type_info): an insert-only table's rows as
    `type_info` (a ROW: Rows; a TUPLE: tuples)."""
    stream = table_stream(t_env, table, changelog=False)
    if type_info is None:
        return stream
    as_tuple = _is_tuple_type(type_info)
    converters = _field_converters(type_info) if as_tuple else ()
    return stream.map(_AsType(as_tuple, converters), output_type=type_info)


def retract_stream(t_env, table, type_info=None):
    """PyFlink's to_retract_stream(table, type_info): (True, row) for an added row,
    (False, row) for a retracted one."""
    from weir.common.typeinfo import Types

    stream = table_stream(t_env, table, changelog=True)
    as_tuple = type_info is not None and _is_tuple_type(type_info)
    output = None if type_info is None else Types.TUPLE([Types.BOOLEAN(), type_info])
    converters = _field_converters(type_info) if as_tuple else ()
    return stream.map(_Retraction(as_tuple, converters), output_type=output)
