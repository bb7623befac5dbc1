"""The Table API's row formats for the filesystem connector: `csv` and `json` (one JSON
object per line), read by the table's schema and written as Flink writes them."""

import csv
import datetime
import decimal
import functools
import json
import math

from weir.table.casts import (
    INT_RANGES,
    cast_value,
    java_big_decimal,
    java_double,
    java_float,
    to_sql_string,
)
from weir.table.types import DataTypes

BOM = "\ufeff"  # (a byte-order mark, which Flink's csv and json formats skip)
_TEXT = DataTypes.STRING()


def _from_text(text, data_type, what):
    if data_type.name in ("STRING", "VARCHAR", "CHAR"):
        return text
    if text == "":
        return None
    try:
        return cast_value(text, _TEXT, data_type)
    except ValueError as error:
        raise ValueError(f"{what}: {error}") from None


def _timestamp(value) -> str:
    """A timestamp as Flink's csv and json formats write it: the fraction of a second
    only as far as it is not zero."""
    text = value.strftime("%Y-%m-%d %H:%M:%S")
    fraction = f"{value.microsecond:06d}".rstrip("0")
    return text + ("." + fraction if fraction else "")


def _to_text(value, data_type) -> str:
    if value is None:
        return ""
    if isinstance(value, datetime.datetime):
        return _timestamp(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return java_float(value) if data_type.name == "FLOAT" else java_double(value)
    if isinstance(value, decimal.Decimal):
        return java_big_decimal(value)
    return to_sql_string(value, data_type)


class CsvFormat:
    """Flink's csv format: comma-separated fields in the schema's order, quoted where
    needed; an empty field is NULL (except for text columns)."""

    def __init__(self, options):
        self.delimiter = options.get("csv.field-delimiter", ",")
        self.ignore_errors = options.get("csv.ignore-parse-errors", "false") == "true"

    def parse(self, line, columns, where):
        if not line.strip():
            return None
        if line[:1] == BOM:
            line = line[1:]
        try:
            fields = next(csv.reader([line], delimiter=self.delimiter))
            if len(fields) != len(columns):
                raise ValueError(f"{len(fields)} fields, the table has {len(columns)} columns")
            return tuple(_from_text(f, c.data_type, c.name) for f, c in zip(fields, columns))
        except ValueError as error:
            if self.ignore_errors:
                return None
            raise ValueError(f"csv line {where}: {error} (line: {line!r})") from None

    def write(self, values, columns) -> str:
        return self.delimiter.join(self._field(v, c.data_type) for v, c in zip(values, columns))

    def _field(self, value, data_type) -> str:
        """Quoted as Flink's (Jackson's) csv writer quotes: text holding the delimiter,
        a quote, or any character below the quote (a space, a line break)."""
        text = _to_text(value, data_type)
        if value is None or isinstance(value, (bool, int, float, decimal.Decimal)):
            return text
        if any(ord(c) < 34 for c in text) or '"' in text or self.delimiter in text:
            return '"' + text.replace('"', '""') + '"'
        return text


def _loads(line):
    """A JSON document: orjson's (4x faster) where it reads the line, else Python's, whose
    reading (integers past 64 bits, NaN) and errors the format's are."""
    try:
        return _orjson_loads(line)
    except ValueError:
        return json.loads(line)


try:
    from orjson import loads as _orjson_loads
except ImportError:  # (a dependency; without it, Python's reader alone)
    _orjson_loads = json.loads  # type: ignore[assignment]  # (takes the same text)


def _or_null(read, value):
    try:
        return read(value)
    except ValueError:
        return None


class JsonFormat:
    """Flink's json format: one object per line, fields by column name (a missing field
    is NULL); timestamps as SQL writes them."""

    def __init__(self, options):
        self.ignore_errors = options.get("json.ignore-parse-errors", "false") == "true"
        self._columns = self._fields = None

    def parse(self, line, columns, where):
        if not line.strip():
            return None
        if columns is not self._columns:
            self._columns, self._fields = columns, [(c.name, self._reader(c)) for c in columns]
        if line[:1] == BOM:
            line = line[1:]
        try:
            document = _loads(line)
            if not isinstance(document, dict):
                raise ValueError("not a JSON object")
        except ValueError as error:
            if self.ignore_errors:
                return None
            raise ValueError(f"json line {where}: {error} (line: {line!r})") from None
        try:
            return tuple(
                [
                    read(document.get(name))  # (_fields: set with _columns)
                    for name, read in self._fields  # type: ignore[union-attr]
                ]
            )
        except ValueError as error:
            if self.ignore_errors:  # (as Flink's: a field it cannot read is NULL)
                return tuple([_or_null(read, document.get(name)) for name, read in self._fields])  # type: ignore[union-attr]
            if self.ignore_errors:
                return None
            raise ValueError(f"json line {where}: {error} (line: {line!r})") from None

    def _reader(self, column):
        """The column's value of a JSON value: a shortcut for the value the column's type
        expects as it is (a str for text, an int in range, a float, a timestamp's
        text), `_value` for anything else."""
        name = column.data_type.name
        slow = functools.partial(self._value, column=column)
        if name in ("STRING", "VARCHAR", "CHAR"):
            return lambda value: value if type(value) is str else slow(value)
        if name in INT_RANGES:
            low, high = -(2 ** (INT_RANGES[name] - 1)), 2 ** (INT_RANGES[name] - 1)
            return lambda value: (
                value if type(value) is int and low <= value < high else slow(value)
            )
        if name == "DOUBLE":
            return lambda value: value if type(value) is float else slow(value)
        if name == "TIMESTAMP":
            return functools.partial(_json_timestamp, slow=slow)
        return slow

    def _value(self, value, column):
        if value is None or column.data_type.name in ("ROW", "ARRAY"):
            return value
        if isinstance(value, str) or column.data_type.name in ("STRING", "VARCHAR", "CHAR"):
            text = value if isinstance(value, str) else json.dumps(value)
            return _from_text(text, column.data_type, column.name)
        return cast_value(
            value, _TEXT if isinstance(value, str) else column.data_type, column.data_type
        )

    def write(self, values, columns) -> str:
        return (
            "{"
            + ",".join(
                f"{json.dumps(c.name, ensure_ascii=False)}:{_json_text(v, c.data_type)}"
                for v, c in zip(values, columns)
            )
            + "}"
        )


def _json_timestamp(value, slow):
    """A TIMESTAMP column's value: an ISO date and time without a zone as it is."""
    if type(value) is str:
        try:
            parsed = datetime.datetime.fromisoformat(value)
        except ValueError:
            return slow(value)
        if parsed.tzinfo is None:
            return parsed
    return slow(value)


def _json_text(value, data_type) -> str:
    """A value as Flink's json format (Jackson) writes it: numbers as Java prints them
    (a DECIMAL without trailing zeros; NaN and infinities quoted)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        text = java_float(value) if data_type.name == "FLOAT" else java_double(value)
        return text if math.isfinite(value) else f'"{text}"'
    if isinstance(value, decimal.Decimal):
        return java_big_decimal(value)
    if isinstance(value, int):
        return str(value)
    return json.dumps(_json_value(value, data_type), separators=(",", ":"), ensure_ascii=False)


def _json_value(value, data_type):
    if isinstance(value, datetime.datetime):
        return _timestamp(value)
    if isinstance(value, datetime.date):
        return to_sql_string(value, data_type)
    if isinstance(value, decimal.Decimal):
        return float(value)
    return value


class RawFormat:
    """The `raw` format: a whole line (a message) as the table's one STRING column."""

    def __init__(self, options):
        charset = options.get("raw.charset", "UTF-8").upper().replace("_", "-")
        if charset not in ("UTF-8", "UTF8"):
            from weir.table.evaluate import not_supported

            not_supported(f"raw.charset '{charset}' (weir reads UTF-8)")

    def parse(self, line, columns, where):
        if len(columns) != 1:
            raise ValueError(f"the raw format reads one column, the table has {len(columns)}")
        return (line,)

    def write(self, values, columns) -> str:
        return "" if values[0] is None else str(values[0])


FORMATS = {"csv": CsvFormat, "json": JsonFormat, "raw": RawFormat}


def format_of(options):
    name = options.get("format")
    if name is None:
        raise ValueError("a filesystem table needs its 'format' option (csv, json or parquet)")
    if name not in FORMATS:
        from weir.table.evaluate import not_supported

        not_supported(
            f"the '{name}' format of the filesystem connector (weir has csv, json, raw and parquet)"
        )
    return FORMATS[name](options)
