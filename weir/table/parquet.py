"""The `parquet` format of the filesystem connector: a table's columns read by name from
Parquet files (weir's FileSource.for_parquet, which reads only the row groups a split
holds), and written as Parquet part files (weir's FileSink.for_parquet, exactly once).

A column the file lacks reads as NULL. Values are taken as Parquet holds them where the
column's type is the file's (integers in range, floating point, text, booleans,
timestamps, dates, decimals); a timestamp with a time zone is read as its UTC wall clock
(TIMESTAMP has none). Anything else, a text in an INT column for one, is an error naming
the file, the column and the value: Flink's parquet format converts no types either."""

import datetime
import decimal

from weir.common.typeinfo import BasicTypeInfo

from weir.table.casts import INT_RANGES, float32
from weir.table.changelog import INSERT

_TEXT = ("STRING", "VARCHAR", "CHAR")


class ParquetRecord:
    """A Parquet row (a weir Row) as the table's (kind, values) record."""

    def __init__(self, columns, path):
        self.names = [c.name for c in columns]
        self.readers = [_reader(c.data_type) for c in columns]
        self.path = path

    def __call__(self, row):
        fields = row.as_dict()
        try:
            return INSERT, tuple(
                [
                    None if (value := fields.get(name)) is None else read(value)
                    for name, read in zip(self.names, self.readers)
                ]
            )
        except (TypeError, ValueError) as error:
            raise ValueError(f"parquet file(s) at {self.path}: {error}") from None


def _reader(data_type):
    name = data_type.name

    def checked(kinds, convert=None):
        def read(value):
            if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
                raise TypeError(
                    f"a {type(value).__name__} value ({value!r}) in a {data_type} column"
                )
            return value if convert is None else convert(value)

        return read

    if name in _TEXT:
        return checked((str,))
    if name in INT_RANGES:
        low, high = -(2 ** (INT_RANGES[name] - 1)), 2 ** (INT_RANGES[name] - 1)
        return checked((int,), lambda v: _in_range(v, low, high, data_type))
    if name in ("DOUBLE", "FLOAT"):
        return checked((float, int), float32 if name == "FLOAT" else float)
    if name == "BOOLEAN":
        return checked((bool,))
    if name == "TIMESTAMP":
        return checked((datetime.datetime,), _wall_clock)
    if name == "DATE":
        return checked(
            (datetime.date,), lambda v: v.date() if isinstance(v, datetime.datetime) else v
        )
    if name == "DECIMAL":
        return checked((decimal.Decimal, int), lambda v: _decimal(v, data_type))
    return lambda value: value  # (ROW, ARRAY, MAP, BYTES: as Parquet holds them)


def _in_range(value, low, high, data_type):
    if not low <= value < high:
        raise ValueError(f"{value} is out of the range of {data_type}")
    return value


def _wall_clock(value):
    if value.tzinfo is not None:
        value = value.astimezone(datetime.timezone.utc).replace(tzinfo=None)
    return value


def _decimal(value, data_type):
    from weir.table.casts import WIDE_DECIMALS

    quantum = decimal.Decimal(1).scaleb(-data_type.scale)
    rounded = decimal.Decimal(value).quantize(quantum, decimal.ROUND_HALF_UP, WIDE_DECIMALS)
    if rounded.adjusted() >= data_type.precision - data_type.scale:
        raise ValueError(f"{value} does not fit {data_type}")
    return rounded


class _AsRow:
    """A table's insert as the Row the Parquet sink writes (inserts only, as Flink's
    filesystem sink)."""

    def __init__(self, names):
        self.names = names

    def __call__(self, record):
        from weir.common.row import Row

        kind, values = record
        if kind != INSERT:
            raise ValueError(
                "the filesystem sink takes inserts only; this table is a "
                "changelog (an aggregate's updates)"
            )
        return Row(**dict(zip(self.names, values)))


class _DecimalTypeInfo(BasicTypeInfo):
    """BIG_DEC written as Parquet's DECIMAL of the column's precision and scale."""

    def __init__(self, precision: int, scale: int):
        super().__init__("BIG_DEC")
        self.precision, self.scale = precision, scale

    def to_arrow_type(self):
        import pyarrow as pa

        return pa.decimal128(self.precision, self.scale)


def _written_type(data_type):
    if data_type.name == "DECIMAL" and data_type.precision is not None:
        return _DecimalTypeInfo(data_type.precision, data_type.scale or 0)
    return data_type.type_info


def parquet_sink(stream, target, columns):
    """Writes the table's rows under `target` as Parquet part files (a DECIMAL column
    as a Parquet DECIMAL of its precision and scale)."""
    from weir.common.typeinfo import Types
    from weir.datastream.connectors.file_system import FileSink

    names = [c.name for c in columns]
    row_type = Types.ROW_NAMED(names, [_written_type(c.data_type) for c in columns])
    return (
        stream.map(_AsRow(names), output_type=row_type)
        .name("Format")
        .sink_to(FileSink.for_parquet(target, row_type).build())
    )
