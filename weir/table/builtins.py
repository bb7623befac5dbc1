"""Flink SQL's built-in scalar functions that are not operators: each a Python function
of non-NULL arguments (NULL in, NULL out) and its result type (None: the first
argument's; a function: of the arguments' types)."""

import calendar
import datetime
import decimal
import functools
import re
import uuid
from typing import Any, Callable, Dict, Tuple

from weir.table.casts import _local_zone
from weir.table.types import DataTypes

_JAVA_PATTERN = [
    ("yyyy", "%Y"),
    ("yy", "%y"),
    ("MM", "%m"),
    ("dd", "%d"),
    ("HH", "%H"),
    ("mm", "%M"),
    ("ss", "%S"),
    ("SSS", "%f"),
]


_FORMAT_FIELDS = [
    ("yyyy", "{0.year:04d}"),
    ("yy", "{1:02d}"),
    ("MM", "{0.month:02d}"),
    ("dd", "{0.day:02d}"),
    ("HH", "{0.hour:02d}"),
    ("mm", "{0.minute:02d}"),
    ("ss", "{0.second:02d}"),
    ("SSS", "{2:03d}"),
]


def _date_format(value, pattern="yyyy-MM-dd HH:mm:ss"):
    """DATE_FORMAT(timestamp, 'yyyy-MM-dd'): Java's date pattern letters."""
    if isinstance(value, str):
        value = datetime.datetime.fromisoformat(value)
    return _template_of(pattern).format(value, value.year % 100, value.microsecond // 1000)


@functools.lru_cache(maxsize=64)
def _template_of(pattern: str) -> str:
    """A Java date pattern as a str.format template of (datetime, two-digit year,
    milliseconds)."""
    template, index = "", 0
    while index < len(pattern):
        for java, field in _FORMAT_FIELDS:
            if pattern.startswith(java, index):
                template += field
                index += len(java)
                break
        else:
            template += pattern[index].replace("{", "{{").replace("}", "}}")
            index += 1
    return template


def _regexp_extract(text, pattern, index=1):
    match = re.search(pattern, text)
    if match is None or index > (match.re.groups or 0):
        return None
    return match.group(index)


def _split_index(text, separator, index):
    parts = text.split(separator)
    return parts[index] if 0 <= index < len(parts) else None


def _split(text, delimiter):
    """SPLIT(text, delimiter): its parts, empty ones kept; every character where the
    delimiter is empty; no parts of an empty text."""
    if text == "":
        return []
    return list(text) if delimiter == "" else text.split(delimiter)


def _to_timestamp_ltz(number, precision=3):
    """TO_TIMESTAMP_LTZ(epoch, precision): epoch seconds (0) or milliseconds (3)."""
    millis = number * 1000 if precision == 0 else number
    return datetime.datetime.fromtimestamp(millis / 1000, datetime.timezone.utc)


def _from_unixtime(seconds, pattern="yyyy-MM-dd HH:mm:ss"):
    """FROM_UNIXTIME(epoch seconds[, Java pattern]): the local time as text."""
    local = datetime.datetime.fromtimestamp(seconds, _local_zone()).replace(tzinfo=None)
    return _date_format(local, pattern)


def _unix_timestamp(text=None, pattern="yyyy-MM-dd HH:mm:ss"):
    """UNIX_TIMESTAMP(): now in epoch seconds; UNIX_TIMESTAMP(text[, pattern]): the local
    time `text` in epoch seconds (Long.MIN_VALUE where it does not match, as Flink's)."""
    if text is None:
        return int(datetime.datetime.now().timestamp())
    local = _to_timestamp(text, pattern)
    if local is None:
        return -(2**63)
    return int(local.replace(tzinfo=_local_zone()).timestamp())


def _proctime():
    """PROCTIME(): the time the row is processed (a TIMESTAMP_LTZ(3))."""
    now = datetime.datetime.now(datetime.timezone.utc)
    return now.replace(microsecond=now.microsecond // 1000 * 1000)


def _to_timestamp(text, pattern="yyyy-MM-dd HH:mm:ss"):
    """TO_TIMESTAMP(text, Java pattern): NULL where the text does not match, as Flink's."""
    python = strptime_pattern(pattern)  # (a pattern weir cannot read fails the job)
    try:
        return datetime.datetime.strptime(text, python)
    except ValueError:
        return None


def strptime_pattern(pattern: str) -> str:
    """A Java date pattern (`yyyy-MM-dd'T'HH:mm:ss.SSS`, text in single quotes literal,
    `''` a quote) as strptime's."""
    out, index = [], 0
    codes = dict(_JAVA_PATTERN)
    while index < len(pattern):
        char = pattern[index]
        if char == "'":
            end = pattern.find("'", index + 1)
            end = len(pattern) if end < 0 else end
            out.append("'" if end == index + 1 else pattern[index + 1 : end].replace("%", "%%"))
            index = end + 1
            continue
        run = len(pattern[index:]) - len(pattern[index:].lstrip(char))
        letters = pattern[index : index + run]
        if char.isalpha() and letters not in codes:
            raise ValueError(
                f"the date pattern letters '{letters}' (in '{pattern}') are "
                "not supported by weir yet"
            )
        out.append(codes.get(letters, letters.replace("%", "%%")))
        index += run
    return "".join(out)


def _mod(a, b):
    return a - b * int(a / b) if b else None


_UNIT_MILLIS = {
    "SECOND": 1000,
    "MINUTE": 60_000,
    "HOUR": 3_600_000,
    "DAY": 86_400_000,
    "WEEK": 7 * 86_400_000,
}
_UNIT_MONTHS = {"MONTH": 1, "QUARTER": 3, "YEAR": 12}


def time_unit(unit):
    if unit not in _UNIT_MILLIS and unit not in _UNIT_MONTHS:
        raise ValueError(
            f"unknown time unit '{unit}' (expected one of "
            f"{', '.join([*_UNIT_MILLIS, *_UNIT_MONTHS])})"
        )
    return unit


def _truncated(a, b):
    """a / b rounded toward zero, as Java's integer division."""
    quotient = abs(a) // abs(b)
    return quotient if (a >= 0) == (b >= 0) else -quotient


def _add_months(value, months):
    """A date or timestamp `months` later; a day past the month's end is its last."""
    total = value.year * 12 + value.month - 1 + months
    year, month = divmod(total, 12)
    last = calendar.monthrange(year, month + 1)[1]
    return value.replace(year=year, month=month + 1, day=min(value.day, last))


def _months_after(later, earlier):
    """The most months that can be added to the date `earlier` without passing `later`."""
    months = (later.year - earlier.year) * 12 + later.month - earlier.month
    while months > 0 and _add_months(earlier, months) > later:
        months -= 1
    return months


def _months_between(start, end):
    """Whole months from timestamp `start` to `end` (Calcite's rule: by dates, then one
    less where the dates meet but the time of day is not reached)."""
    d0, d1 = end.date(), start.date()
    months = _months_after(d0, d1) if d0 >= d1 else -_months_after(d1, d0)
    if _add_months(d1, months) == d0 and end.time() < start.time():
        months -= 1
    return months


def _timestamp_diff(unit, start, end):
    """TIMESTAMPDIFF(unit, start, end): whole units from start to end (negative when end
    is earlier), rounded toward zero."""
    if time_unit(unit) in _UNIT_MILLIS:
        delta = end - start
        millis = (delta.days * 86_400 + delta.seconds) * 1000 + delta.microseconds // 1000
        return _truncated(millis, _UNIT_MILLIS[unit])
    return _truncated(_months_between(start, end), _UNIT_MONTHS[unit])


def _timestamp_add(unit, count, value):
    """TIMESTAMPADD(unit, count, timestamp)."""
    if time_unit(unit) in _UNIT_MILLIS:
        return value + datetime.timedelta(milliseconds=count * _UNIT_MILLIS[unit])
    return _add_months(value, count * _UNIT_MONTHS[unit])


def _round(value, digits=0):
    """ROUND(x, d): half away from zero at d digits after the point (before it where d is
    negative), as Flink's (Java's BigDecimal HALF_UP); of the argument's type."""
    from weir.table.scalar_builtins import rounded_to

    return rounded_to(value, digits, decimal.ROUND_HALF_UP)


def _round_type(types):
    if types[0].name == "DECIMAL":
        from weir.table.evaluate import not_supported

        not_supported("ROUND of a DECIMAL (of a DOUBLE, a FLOAT or an integer it runs)")
    return types[0]


FUNCTIONS: Dict[str, Tuple[Callable, Any]] = {  # name -> (function, its result type)
    "ROUND": (_round, _round_type),
    "UUID": (lambda: str(uuid.uuid4()), DataTypes.STRING(False)),
    "DATE_FORMAT": (_date_format, DataTypes.STRING()),
    "HOUR": (lambda ts: ts.hour, DataTypes.BIGINT()),
    "MINUTE": (lambda ts: ts.minute, DataTypes.BIGINT()),
    "SECOND": (lambda ts: ts.second, DataTypes.BIGINT()),
    "YEAR": (lambda ts: ts.year, DataTypes.BIGINT()),
    "MONTH": (lambda ts: ts.month, DataTypes.BIGINT()),
    "DAYOFMONTH": (lambda ts: ts.day, DataTypes.BIGINT()),
    "REGEXP_EXTRACT": (_regexp_extract, DataTypes.STRING()),
    "SPLIT_INDEX": (_split_index, DataTypes.STRING()),
    "SPLIT": (_split, DataTypes.ARRAY(DataTypes.STRING())),
    "REPLACE": (lambda text, old, new: text.replace(old, new), DataTypes.STRING()),
    "MOD": (_mod, None),
    "TO_TIMESTAMP_LTZ": (_to_timestamp_ltz, DataTypes.TIMESTAMP_LTZ(3)),
    "PROCTIME": (_proctime, DataTypes.TIMESTAMP_LTZ(3, False)),
    "CURRENT_TIMESTAMP": (_proctime, DataTypes.TIMESTAMP_LTZ(3, False)),
    "NOW": (_proctime, DataTypes.TIMESTAMP_LTZ(3, False)),
    "TO_TIMESTAMP": (_to_timestamp, DataTypes.TIMESTAMP(3)),
    "FROM_UNIXTIME": (_from_unixtime, DataTypes.STRING()),
    "UNIX_TIMESTAMP": (_unix_timestamp, DataTypes.BIGINT()),
    "TIMESTAMPDIFF": (_timestamp_diff, DataTypes.INT()),
    "TIMESTAMPADD": (_timestamp_add, lambda types: types[2]),  # the timestamp's type
}

from weir.table.scalar_builtins import FUNCTIONS as _MORE  # noqa: E402

FUNCTIONS.update(_MORE)
