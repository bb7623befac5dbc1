"""More of Flink's built-in scalar functions: arithmetic (FLOOR, CEIL, POWER, SQRT, LN,
LOG, LOG10, LOG2, EXP, SIGN, TRUNCATE, PI), text (CONCAT_WS, LPAD, RPAD, LTRIM, RTRIM,
INITCAP, REPEAT, REVERSE, LEFT, RIGHT, POSITION/LOCATE/INSTR, REGEXP_REPLACE, REGEXP,
MD5, SHA1, SHA256, SHA2, TO_BASE64, FROM_BASE64, ASCII, CHR, STARTS_WITH, ENDS_WITH,
OVERLAY, IS_DIGIT, IS_ALPHA), conditions (NULLIF, GREATEST, LEAST), time (TO_DATE,
DAYOFWEEK, DAYOFYEAR, WEEK, QUARTER, EXTRACT, FLOOR/CEIL of a timestamp TO a unit,
CURRENT_DATE, CURRENT_TIMESTAMP, LOCALTIMESTAMP) and CARDINALITY. Each entry is
(function, result type or a function of the argument types); a NULL argument makes the
result NULL except for the functions in NULL_TAKING, which see their NULLs. Results were
checked against PyFlink 2.3 (tests/table_programs/sql_builtins.py)."""

import base64
import datetime
import decimal
import hashlib
import math
import re

from weir.table.types import DataTypes

NULL_TAKING = {
    "CONCAT_WS",
    "NULLIF",
    "PI",
    "CURRENT_DATE",
    "CURRENT_TIMESTAMP",
    "LOCALTIMESTAMP",
    "NOW",
    "IS_DIGIT",
    "IS_ALPHA",
}


def _same(types):
    return types[0]


def _integral(types):
    """FLOOR and CEIL: an integer stays itself, a DECIMAL(p, s) is a DECIMAL(p, 0)."""
    if types[0].name == "DECIMAL":
        return DataTypes.DECIMAL(types[0].precision, 0)
    return types[0]


def _rounded(function):
    def run(value):
        if isinstance(value, int):
            return value
        if isinstance(value, decimal.Decimal):
            return value.to_integral_value(function) + 0  # (no -0)
        return float(math.floor(value) if function == decimal.ROUND_FLOOR else math.ceil(value))

    return run


def _truncated_type(types, literals):
    """TRUNCATE(DECIMAL(p, s), r): Flink's rounded decimal type (findRoundDecimalType)."""
    data_type, digits = types[0], (literals[1] if len(literals) > 1 else 0)
    if data_type.name != "DECIMAL" or digits is None:
        return data_type
    precision, scale = data_type.precision, data_type.scale
    if digits >= scale:
        return data_type
    if digits < 0:
        return DataTypes.DECIMAL(min(38, 1 + precision - scale), 0)
    return DataTypes.DECIMAL(1 + precision - scale + digits, digits)


_truncated_type.takes_literals = True  # type: ignore[attr-defined]


def _log(base_or_value, value=None):
    if value is None:
        return _positive(math.log, base_or_value)
    if base_or_value <= 0 or value <= 0:
        return None
    if base_or_value == 10:  # (as Java's Math.log10, LOG10's)
        return math.log10(value)
    return math.log(value) / math.log(base_or_value)


def _positive(function, value):
    return function(value) if value > 0 else None


def rounded_to(value, digits, rounding):
    """`value` at `digits` after the point (before it where negative) by `rounding`, of
    its own type: a double by its decimal text, as Flink's BigDecimal of it."""
    exact = decimal.Decimal(repr(value)) if isinstance(value, float) else decimal.Decimal(value)
    result = exact.quantize(decimal.Decimal(1).scaleb(-digits), rounding)
    if isinstance(value, float):
        return float(result)
    return int(result) if isinstance(value, int) else result


def _truncate(value, digits=0):
    """TRUNCATE(x, d): cut toward zero at d digits after the point."""
    return rounded_to(value, digits, decimal.ROUND_DOWN)


def _sign(value):
    result = (value > 0) - (value < 0)
    if isinstance(value, decimal.Decimal):  # (at the argument's scale: 1.000)
        return decimal.Decimal(result).quantize(value) if value.is_finite() else value
    return float(result) if isinstance(value, float) else result


def _concat_ws(separator, *texts):
    if separator is None:
        return None
    return separator.join(t for t in texts if t is not None)


def _pad(left):
    def run(text, length, fill):
        if length < 0:
            return None
        if length <= len(text):
            return text[:length]
        if not fill:
            return None
        padding = (fill * length)[: length - len(text)]
        return padding + text if left else text + padding

    return run


def _trim(where):
    def run(text, characters=" "):
        if where == "LEADING":
            return text.lstrip(characters)
        if where == "TRAILING":
            return text.rstrip(characters)
        return text.strip(characters)

    return run


def _initcap(text):
    """Each word's (run of letters and digits') first letter upper case, the rest lower."""
    return re.sub(r"[A-Za-z0-9]+", lambda m: m.group(0)[0].upper() + m.group(0)[1:].lower(), text)


def _position(needle, haystack, start=1):
    """POSITION(a IN b), LOCATE(a, b[, start]): 1-based, 0 where absent."""
    if start < 1:
        return 0
    return haystack.find(needle, start - 1) + 1


def _regexp_replace(text, pattern, replacement):
    """Every match replaced by `replacement` as it is (Flink quotes it: `$1` is text)."""
    return re.sub(pattern, lambda match: replacement, text)


def _overlay(text, replacement, start, length=None):
    length = len(replacement) if length is None else length
    return text[: start - 1] + replacement + text[start - 1 + length :]


def _digest(name):
    return lambda text: hashlib.new(name, text.encode("utf-8")).hexdigest()


def _sha2(text, bits):
    if bits not in (224, 256, 384, 512):
        return None
    return hashlib.new(f"sha{bits}", text.encode("utf-8")).hexdigest()


def _from_base64(text):
    return base64.b64decode(text).decode("utf-8")


def _chr(code):
    return chr(code % 256) if code >= 0 else None


def _extremum(choose):
    def run(*values):
        return None if any(v is None for v in values) else choose(values)

    return run


def _to_date(text, pattern="yyyy-MM-dd"):
    """TO_DATE(text[, Java pattern]); NULL where the text does not match. (sqlglot hands
    SQL's pattern over already as strptime's.)"""
    from weir.table.builtins import strptime_pattern

    python = pattern if "%" in pattern else strptime_pattern(pattern)
    try:
        return datetime.datetime.strptime(text, python).date()
    except ValueError:
        return None


def _week(value):
    return value.isocalendar()[1]


def _day_of_week(value):
    """1 for Sunday to 7 for Saturday (SQL's, not ISO's)."""
    return value.isoweekday() % 7 + 1


_FIELDS = {
    "YEAR": lambda v: v.year,
    "MONTH": lambda v: v.month,
    "DAY": lambda v: v.day,
    "QUARTER": lambda v: (v.month - 1) // 3 + 1,
    "WEEK": _week,
    "DOW": _day_of_week,
    "DOY": lambda v: v.timetuple().tm_yday,
    "HOUR": lambda v: v.hour,
    "MINUTE": lambda v: v.minute,
    "SECOND": lambda v: v.second,
    "MILLISECOND": lambda v: v.second * 1000 + v.microsecond // 1000,
    "MICROSECOND": lambda v: v.second * 1_000_000 + v.microsecond,
    "DECADE": lambda v: v.year // 10,
    "CENTURY": lambda v: (v.year + 99) // 100,
    "MILLENNIUM": lambda v: (v.year + 999) // 1000,
}


def extract(unit, value):
    """EXTRACT(unit FROM a date, a time or a timestamp) as a BIGINT."""
    unit = unit.upper()
    if unit not in _FIELDS:
        from weir.table.evaluate import not_supported

        not_supported(f"EXTRACT({unit} FROM ...)")
    return _FIELDS[unit](value)


_FLOOR_UNITS = ("YEAR", "QUARTER", "MONTH", "WEEK", "DAY", "HOUR", "MINUTE", "SECOND")


def floor_to(unit, ceil=False):
    """FLOOR(ts TO unit) / CEIL(ts TO unit) of a timestamp or a date, as a function of the
    value (a unit weir does not round to is refused here, when the query is planned)."""
    unit = unit.upper()
    if unit not in _FLOOR_UNITS:
        from weir.table.evaluate import not_supported

        not_supported(f"FLOOR/CEIL(... TO {unit})")

    def run(value):
        date_only = not isinstance(value, datetime.datetime)
        moment = datetime.datetime.combine(value, datetime.time()) if date_only else value
        floor = _floored(moment, unit)
        if ceil and floor != moment:
            floor = _next(floor, unit)
        return floor.date() if date_only else floor

    return run


def _floored(moment, unit):
    parts = {
        "YEAR": dict(month=1, day=1, hour=0, minute=0, second=0, microsecond=0),
        "QUARTER": dict(
            month=(moment.month - 1) // 3 * 3 + 1, day=1, hour=0, minute=0, second=0, microsecond=0
        ),
        "MONTH": dict(day=1, hour=0, minute=0, second=0, microsecond=0),
        "DAY": dict(hour=0, minute=0, second=0, microsecond=0),
        "HOUR": dict(minute=0, second=0, microsecond=0),
        "MINUTE": dict(second=0, microsecond=0),
        "SECOND": dict(microsecond=0),
    }
    if unit == "WEEK":  # (weeks from Sunday, as Calcite's)
        day = moment - datetime.timedelta(days=moment.isoweekday() % 7)
        return day.replace(hour=0, minute=0, second=0, microsecond=0)
    return moment.replace(**parts[unit])


def _next(moment, unit):
    from weir.table.builtins import _add_months

    if unit in ("YEAR", "QUARTER", "MONTH"):
        return _add_months(moment, {"YEAR": 12, "QUARTER": 3, "MONTH": 1}[unit])
    seconds = {"WEEK": 604_800, "DAY": 86_400, "HOUR": 3_600, "MINUTE": 60, "SECOND": 1}
    return moment + datetime.timedelta(seconds=seconds[unit])


def _now_local():
    now = datetime.datetime.now()
    return now.replace(microsecond=now.microsecond // 1000 * 1000)


def _nullif(a, b):
    return None if a is not None and b is not None and a == b else a


_DOUBLE = DataTypes.DOUBLE()
_TEXT = DataTypes.STRING()

FUNCTIONS = {
    "FLOOR": (_rounded(decimal.ROUND_FLOOR), _integral),
    "CEIL": (_rounded(decimal.ROUND_CEILING), _integral),
    "POWER": (lambda a, b: float(a) ** float(b), _DOUBLE),
    "SQRT": (lambda a: math.sqrt(a) if a >= 0 else float("nan"), _DOUBLE),
    "LN": (lambda a: _positive(math.log, a), _DOUBLE),
    "LOG": (_log, _DOUBLE),
    "LOG10": (lambda a: _positive(math.log10, a), _DOUBLE),  # (Java's Math.log10)
    "LOG2": (lambda a: _positive(math.log2, a), _DOUBLE),
    "EXP": (lambda a: math.exp(a), _DOUBLE),
    "SIGN": (_sign, _same),
    "TRUNCATE": (_truncate, _truncated_type),
    "PI": (lambda: math.pi, DataTypes.DOUBLE(False)),
    "CONCAT_WS": (_concat_ws, _TEXT),
    "LPAD": (_pad(True), _TEXT),
    "RPAD": (_pad(False), _TEXT),
    "LTRIM": (_trim("LEADING"), _TEXT),
    "RTRIM": (_trim("TRAILING"), _TEXT),
    "BTRIM": (_trim("BOTH"), _TEXT),
    "INITCAP": (_initcap, _TEXT),
    "REPEAT": (lambda text, n: text * max(n, 0), _TEXT),
    "REVERSE": (lambda text: text[::-1], _TEXT),
    "LEFT": (lambda text, n: text[: max(n, 0)], _TEXT),
    "RIGHT": (lambda text, n: text[len(text) - n :] if n > 0 else "", _TEXT),
    "POSITION": (_position, DataTypes.INT()),
    "REGEXP_REPLACE": (_regexp_replace, _TEXT),
    "REGEXP": (lambda text, pattern: re.search(pattern, text) is not None, DataTypes.BOOLEAN()),
    "MD5": (_digest("md5"), _TEXT),
    "SHA1": (_digest("sha1"), _TEXT),
    "SHA256": (_digest("sha256"), _TEXT),
    "SHA2": (_sha2, _TEXT),
    "TO_BASE64": (lambda text: base64.b64encode(text.encode("utf-8")).decode("ascii"), _TEXT),
    "FROM_BASE64": (_from_base64, _TEXT),
    "ASCII": (lambda text: ord(text[0]) if text else 0, DataTypes.INT()),
    "CHR": (_chr, _TEXT),
    "STARTS_WITH": (lambda text, prefix: text.startswith(prefix), DataTypes.BOOLEAN()),
    "ENDS_WITH": (lambda text, suffix: text.endswith(suffix), DataTypes.BOOLEAN()),
    "OVERLAY": (_overlay, _TEXT),
    "IS_DIGIT": (
        lambda text: bool(text) and text.isascii() and text.isdigit(),
        DataTypes.BOOLEAN(False),
    ),  # (NULL: FALSE)
    "IS_ALPHA": (lambda text: bool(text) and text.isalpha(), DataTypes.BOOLEAN(False)),
    "NULLIF": (_nullif, _same),
    "GREATEST": (_extremum(max), _same),
    "LEAST": (_extremum(min), _same),
    "TO_DATE": (_to_date, DataTypes.DATE()),
    "DAYOFWEEK": (_day_of_week, DataTypes.BIGINT()),
    "DAYOFYEAR": (lambda v: v.timetuple().tm_yday, DataTypes.BIGINT()),
    "WEEK": (_week, DataTypes.BIGINT()),
    "QUARTER": (lambda v: (v.month - 1) // 3 + 1, DataTypes.BIGINT()),
    "EXTRACT": (extract, DataTypes.BIGINT()),
    "CURRENT_DATE": (lambda: datetime.date.today(), DataTypes.DATE(False)),
    "LOCALTIMESTAMP": (_now_local, DataTypes.TIMESTAMP(3, False)),
    "CARDINALITY": (len, DataTypes.INT()),
}
