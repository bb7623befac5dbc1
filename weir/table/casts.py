"""SQL values: the type a Python value has in a table, CAST between types, and the text
Flink shows for a value (`to_sql_string`, as CAST(x AS STRING) and TableResult.print()
write it; `to_java_string`, as the `print` connector's `+I[...]` lines write it).
"""

import datetime
import decimal
import math
import struct
from typing import Optional, Tuple, Union

from weir.common.row import Row
from weir.table.types import DataType, DataTypes

INT_RANGES = {"TINYINT": 8, "SMALLINT": 16, "INT": 32, "BIGINT": 64}


def literal_type(value) -> DataType:
    """The type of a literal in an expression (lit(1) is INT NOT NULL, as in Flink)."""
    if value is None:
        return DataTypes.STRING()
    if isinstance(value, bool):
        return DataTypes.BOOLEAN(False)
    if isinstance(value, int):
        return DataTypes.INT(False) if -(2**31) <= value < 2**31 else DataTypes.BIGINT(False)
    if isinstance(value, float):
        return DataTypes.DOUBLE(False)
    if isinstance(value, str):
        return DataTypes.CHAR(max(len(value), 1), False)
    return element_type(value).not_null()


def element_type(value) -> DataType:
    """The type from_elements infers for a Python value (ints are BIGINT, as PyFlink's)."""
    if isinstance(value, bool):
        return DataTypes.BOOLEAN()
    if isinstance(value, int):
        return DataTypes.BIGINT()
    if isinstance(value, float):
        return DataTypes.DOUBLE()
    if isinstance(value, str):
        return DataTypes.STRING()
    if isinstance(value, decimal.Decimal):
        return DataTypes.DECIMAL(38, 18)
    if isinstance(value, datetime.datetime):
        return DataTypes.TIMESTAMP(6)
    if isinstance(value, datetime.date):
        return DataTypes.DATE()
    if isinstance(value, (list, tuple)) and not isinstance(value, Row) and value:
        return DataTypes.ARRAY(element_type(value[0]))
    if isinstance(value, Row):
        names = (
            value.as_dict().keys() if value._fields else [f"_{i + 1}" for i in range(len(value))]
        )
        return DataTypes.ROW([DataTypes.FIELD(n, element_type(v)) for n, v in zip(names, value)])
    raise TypeError(
        f"weir cannot infer a SQL type for {type(value).__name__} value "
        f"{value!r}: give from_elements a schema with DataTypes"
    )


def _to_int(value, target):
    if isinstance(value, str):
        value = int(value.strip())
    elif isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            raise ValueError(f"{value} has no {target.name} value")
        value = int(value)
    elif isinstance(value, decimal.Decimal):
        value = int(value)
    else:
        value = int(value)
    return java_wrap(value, INT_RANGES[target.name])


def java_wrap(value: int, bits: int) -> int:
    """An integer as Java's of `bits` bits holds it: wrapped around past its range."""
    return (value + 2 ** (bits - 1)) % 2**bits - 2 ** (bits - 1)


def _to_bool(value):
    if isinstance(value, str):
        text = value.strip().lower()
        if text in ("true", "t", "yes", "y", "1"):
            return True
        if text in ("false", "f", "no", "n", "0"):
            return False
        raise ValueError(f"'{value}' is not a BOOLEAN")
    return bool(value)


WIDE_DECIMALS = decimal.Context(prec=200)  # (DECIMAL's 38 digits need more than Python's 28)


def _to_decimal(value, target):
    number = decimal.Decimal(value.strip() if isinstance(value, str) else str(value))
    with decimal.localcontext(WIDE_DECIMALS):
        return number.quantize(
            decimal.Decimal(1).scaleb(-target.scale), rounding=decimal.ROUND_HALF_UP
        )


def _local_zone():
    return datetime.datetime.now().astimezone().tzinfo


def _to_timestamp(value):
    """A TIMESTAMP (naive: wall clock) from an Instant, an aware datetime (in the local
    time zone, as Flink's session time zone defaults to the system's), or text."""
    if type(value).__name__ == "Instant":
        value = datetime.datetime.fromtimestamp(
            value.to_epoch_milli() / 1000, datetime.timezone.utc
        )
    if isinstance(value, datetime.datetime):
        if value.tzinfo is not None:
            return value.astimezone(_local_zone()).replace(tzinfo=None)
        return value
    if isinstance(value, str):
        return datetime.datetime.fromisoformat(value.strip().replace(" ", "T"))
    raise ValueError(f"{value!r} is not a TIMESTAMP")


def cast_value(value, source: Optional[DataType], target: DataType, lenient: bool = False):
    """CAST(value AS target): a value that does not convert fails the job (TRY_CAST and
    `lenient`: NULL)."""
    if value is None:
        return None
    try:
        name = target.name
        if name in ("STRING", "VARCHAR", "CHAR"):
            return to_sql_string(value, source)
        if name in INT_RANGES:
            return _to_int(value, target)
        if name == "DOUBLE":
            return float(value.strip() if isinstance(value, str) else value)
        if name == "FLOAT":
            return float32(float(value.strip() if isinstance(value, str) else value))
        if name == "BOOLEAN":
            return _to_bool(value)
        if name == "DECIMAL":
            return _to_decimal(value, target)
        if name == "TIMESTAMP":
            return _to_timestamp(value)
        if name == "TIMESTAMP_LTZ":
            return (
                _to_timestamp(value).replace(tzinfo=_local_zone()).astimezone(datetime.timezone.utc)
            )
        if name == "DATE":
            stamp = value if isinstance(value, datetime.date) else _to_timestamp(value)
            return stamp.date() if isinstance(stamp, datetime.datetime) else stamp
    except (ValueError, TypeError, decimal.InvalidOperation) as error:
        if lenient:
            return None
        raise ValueError(f"cannot cast {value!r} ({source}) to {target}: {error}") from None
    return value


def float32(value: float) -> float:
    """The FLOAT (single precision) nearest to `value`."""
    return struct.unpack("f", struct.pack("f", value))[0]


def java_float(value: float) -> str:
    """Java's Float.toString: the shortest text that reads back as the same FLOAT."""
    import numpy

    text = repr(numpy.float32(value))
    text = text[len("np.float32(") : -1] if text.startswith("np.float32(") else text
    if "e" in text or abs(value) >= 1e7 or (value and abs(value) < 1e-3):
        return java_double(float(text))
    return text if "." in text or "n" in text else text + ".0"


def java_double(value: float) -> str:
    """Java's Double.toString: what Flink prints for a DOUBLE (plain from 10^-3 to 10^7,
    else d.dddE<n>; always a digit after the point)."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    text = repr(float(value))  # (the shortest digits, plain in this range)
    if value == 0 or 1e-3 <= abs(value) < 1e7:
        return text
    number = decimal.Decimal(text)
    digits: Union[Tuple[int, ...], str]
    sign, digits, _ = number.normalize().as_tuple()
    digits = "".join(map(str, digits))
    return f"{'-' if sign else ''}{digits[0]}.{digits[1:] or '0'}E{number.adjusted()}"


def java_big_decimal(value: decimal.Decimal) -> str:
    """How Flink's csv and json formats write a DECIMAL: trailing zeros dropped, in
    Java's BigDecimal.toString (1000.00 is 1E+3)."""
    if value == 0:
        return "0"
    return str(value.normalize())


def _timestamp_text(value: datetime.datetime, precision) -> str:
    if value.tzinfo is not None:
        value = value.astimezone(_local_zone()).replace(tzinfo=None)
    text = value.strftime("%Y-%m-%d %H:%M:%S")
    precision = 6 if precision is None else precision
    if precision:
        text += "." + f"{value.microsecond:06d}{'000'}"[:precision]
    return text


def to_sql_string(value, data_type: Optional[DataType] = None) -> str:
    """The value as SQL's CAST to STRING writes it (and TableResult.print() shows it)."""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, float):
        return java_double(value)
    if isinstance(value, datetime.datetime):
        return _timestamp_text(value, getattr(data_type, "precision", None))
    if isinstance(value, Row):
        return "(" + ", ".join(to_sql_string(v) for v in value) + ")"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(to_sql_string(v) for v in value) + "]"
    return str(value)


def _fraction(micros: int) -> str:
    if not micros:
        return ""
    return f".{micros // 1000:03d}" if micros % 1000 == 0 else f".{micros:06d}"


def to_java_string(value, data_type: Optional[DataType] = None) -> str:
    """The value as Flink's Row.toString writes it (the `print` connector's lines):
    TIMESTAMP as Java's LocalDateTime, TIMESTAMP_LTZ as Java's Instant."""
    if value is None:
        return "null"
    if isinstance(value, float) and getattr(data_type, "name", None) == "FLOAT":
        return java_float(value)
    if isinstance(value, datetime.datetime) and value.tzinfo is not None:
        utc = value.astimezone(datetime.timezone.utc)
        return utc.strftime("%Y-%m-%dT%H:%M:%S") + _fraction(utc.microsecond) + "Z"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return java_double(value)
    if isinstance(value, datetime.datetime):
        text = value.isoformat()
        return text[:-3] if text.endswith(":00") and not value.microsecond else text
    if isinstance(value, Row):
        return "+I[" + ", ".join(to_java_string(v) for v in value) + "]"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(to_java_string(v) for v in value) + "]"
    return str(value)
