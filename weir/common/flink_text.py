"""The text Flink prints for a record (`print()`), given the stream's declared type.

PyFlink prints an untyped (pickled) record as Python's `str()`, a `Row` as its kind and
fields (`+I[a,b]`, each field by `str()`), and any other typed record as Java's
`toString()` of the converted value: a tuple as `(a,b)`, a float as Java writes it (`1.0`,
`1.0E7`), a boolean as `true`, a list as `[a, b]`, a map as `{k=v}`.
"""

import math
from typing import Any, Optional

from weir.common._typeinfo_base import AtomicTypeInfo, PickledBytesTypeInfo, TypeInformation
from weir.common._typeinfo_composite import ListTypeInfo, MapTypeInfo, RowTypeInfo, TupleTypeInfo
from weir.common.row import Row
from weir.common.time import Instant


def flink_text(value: Any, type_info: Optional[TypeInformation] = None) -> str:
    """What Flink's print() writes for `value` of a stream declared as `type_info`."""
    if type_info is None or isinstance(type_info, PickledBytesTypeInfo):
        return value if isinstance(value, str) else str(value)
    if isinstance(type_info, RowTypeInfo) and isinstance(value, Row):
        return f"{value.get_row_kind()}[{','.join(str(item) for item in value._values)}]"
    return java_text(value, type_info)


def java_text(value: Any, type_info: Optional[TypeInformation]) -> str:
    """Java's toString() of `value` converted to `type_info`'s Java type."""
    if value is None:
        return "null"
    if isinstance(type_info, TupleTypeInfo):
        types = type_info.get_field_types()
        return "(" + ",".join(java_text(v, t) for v, t in zip(value, types)) + ")"
    if isinstance(type_info, RowTypeInfo):  # (Java's Row.toString: fields by ", ")
        row = value if isinstance(value, Row) else Row(*value)
        return (
            f"{row.get_row_kind()}["
            + ", ".join(java_text(v, t) for v, t in zip(row._values, type_info.get_field_types()))
            + "]"
        )
    if isinstance(type_info, ListTypeInfo):
        element = type_info.get_element_type()
        return "[" + ", ".join(java_text(v, element) for v in value) + "]"
    if isinstance(type_info, MapTypeInfo):
        return (
            "{"
            + ", ".join(f"{java_text(k, None)}={java_text(v, None)}" for k, v in value.items())
            + "}"
        )
    name = type_info.name if isinstance(type_info, AtomicTypeInfo) else None
    if isinstance(value, bool):
        return "true" if value else "false"
    if name == "FLOAT":
        return java_float(value, single=True)
    if name == "DOUBLE" or isinstance(value, float):
        return java_float(value, single=False)
    if type(value).__name__ == "Instant":
        return java_instant(value)
    return str(value)


def java_instant(instant: Instant) -> str:
    """Java's Instant.toString: ISO-8601 in UTC, seconds always, the fraction in groups
    of three digits where it is not zero (2017-11-26T01:05:00Z)."""
    import datetime

    moment = datetime.datetime(1970, 1, 1) + datetime.timedelta(seconds=instant.seconds)
    text = moment.strftime("%Y-%m-%dT%H:%M:%S")
    if instant.nanos:
        fraction = f"{instant.nanos:09d}"
        while fraction.endswith("000"):
            fraction = fraction[:-3]
        text += "." + fraction
    return text + "Z"


def java_float(value: Any, single: bool) -> str:
    """Java's Float.toString / Double.toString: the shortest digits that read back, in
    plain notation between 10^-3 and 10^7 and as `d.dddE±n` outside it."""
    value = float(value)
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value == 0:
        return "-0.0" if math.copysign(1, value) < 0 else "0.0"
    digits = _shortest_float32(value) if single else repr(value)
    mantissa, _, exponent = digits.lower().partition("e")
    sign = "-" if mantissa.startswith("-") else ""
    mantissa = mantissa.lstrip("-")
    whole, _, fraction = mantissa.partition(".")
    # the digits and the position of the decimal point after the first digit
    all_digits = (whole + fraction).lstrip("0")
    point = len(whole) + int(exponent or 0) - (len(whole + fraction) - len(all_digits))
    all_digits = all_digits.rstrip("0") or "0"
    if 1e-3 <= abs(value) < 1e7:
        if point <= 0:
            return f"{sign}0.{'0' * -point}{all_digits}"
        if point >= len(all_digits):
            return f"{sign}{all_digits}{'0' * (point - len(all_digits))}.0"
        return f"{sign}{all_digits[:point]}.{all_digits[point:]}"
    rest = all_digits[1:] or "0"
    return f"{sign}{all_digits[0]}.{rest}E{point - 1}"


def _shortest_float32(value: float) -> str:
    """The shortest decimal that reads back as the same 32-bit float."""
    import numpy as np

    return np.format_float_scientific(np.float32(value), unique=True, trim="0")
