"""Flink SQL's built-in scalar functions that are not operators: each a Python function
of non-NULL arguments (NULL in, NULL out) and its result type."""

import datetime
import re

from weir.table.types import DataTypes

_JAVA_PATTERN = [("yyyy", "%Y"), ("yy", "%y"), ("MM", "%m"), ("dd", "%d"), ("HH", "%H"),
                 ("mm", "%M"), ("ss", "%S"), ("SSS", "%f")]


def _date_format(value, pattern="yyyy-MM-dd HH:mm:ss"):
    """DATE_FORMAT(timestamp, 'yyyy-MM-dd'): Java's date pattern letters."""
    if isinstance(value, str):
        value = datetime.datetime.fromisoformat(value)
    out, index = "", 0
    while index < len(pattern):
        for java, python in _JAVA_PATTERN:
            if pattern.startswith(java, index):
                text = value.strftime(python)
                out += text[:3] if java == "SSS" else text
                index += len(java)
                break
        else:
            out += pattern[index]
            index += 1
    return out


def _regexp_extract(text, pattern, index=1):
    match = re.search(pattern, text)
    if match is None or index > (match.re.groups or 0):
        return None
    return match.group(index)


def _split_index(text, separator, index):
    parts = text.split(separator)
    return parts[index] if 0 <= index < len(parts) else None


def _to_timestamp_ltz(number, precision=3):
    """TO_TIMESTAMP_LTZ(epoch, precision): epoch seconds (0) or milliseconds (3)."""
    millis = number * 1000 if precision == 0 else number
    return datetime.datetime.fromtimestamp(millis / 1000, datetime.timezone.utc)


def _to_timestamp(text, pattern="yyyy-MM-dd HH:mm:ss"):
    python = pattern
    for java, code in _JAVA_PATTERN:
        python = python.replace(java, code)
    return datetime.datetime.strptime(text, python)


def _mod(a, b):
    return a - b * int(a / b) if b else None


FUNCTIONS = {
    "DATE_FORMAT": (_date_format, DataTypes.STRING()),
    "HOUR": (lambda ts: ts.hour, DataTypes.BIGINT()),
    "MINUTE": (lambda ts: ts.minute, DataTypes.BIGINT()),
    "SECOND": (lambda ts: ts.second, DataTypes.BIGINT()),
    "YEAR": (lambda ts: ts.year, DataTypes.BIGINT()),
    "MONTH": (lambda ts: ts.month, DataTypes.BIGINT()),
    "DAYOFMONTH": (lambda ts: ts.day, DataTypes.BIGINT()),
    "REGEXP_EXTRACT": (_regexp_extract, DataTypes.STRING()),
    "SPLIT_INDEX": (_split_index, DataTypes.STRING()),
    "REPLACE": (lambda text, old, new: text.replace(old, new), DataTypes.STRING()),
    "MOD": (_mod, None),
    "TO_TIMESTAMP_LTZ": (_to_timestamp_ltz, DataTypes.TIMESTAMP_LTZ(3)),
    "TO_TIMESTAMP": (_to_timestamp, DataTypes.TIMESTAMP(3)),
}
