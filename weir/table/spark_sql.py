"""Table expressions as Spark SQL text, for the parts of a Table job that Spark computes
exactly as Flink does (weir.table.lowering runs them on Spark).

`to_spark_sql(expr, columns)` is the expression over columns named `_c0`, `_c1`, ... (the
input's columns by position: Spark's names are case-insensitive, Flink's are not), or
None where weir cannot promise Spark's value equals Flink's. Arithmetic runs with ANSI
mode off, where Spark's integer arithmetic wraps as Java's (and Flink's) does. What is lowered:
- columns, literals (numbers, text, booleans), `+ - *` and unary minus on numbers
  (INT, BIGINT, DECIMAL within 38 digits, FLOAT, DOUBLE), `%` and MOD on INT and BIGINT by a literal
  other than 0;
- comparisons of two numbers, two texts, two booleans or two timestamps; AND, OR, NOT,
  IS [NOT] NULL, CASE/IF;
- UPPER, LOWER, CONCAT of texts; HOUR, MINUTE, SECOND, YEAR, MONTH, DAYOFMONTH of a
  timestamp; DATE_FORMAT with the pattern letters weir's own DATE_FORMAT reads;
  SPLIT_INDEX with a literal separator and a literal index >= 0; REGEXP_EXTRACT with a
  literal pattern and group that takes part in every match (Spark's regular expressions
  are Java's, as Flink's), and its test IS [NOT] NULL as RLIKE; IN with a list of literals;
- CAST between integer types, to a wider one; a timestamp plus or minus a literal
  interval (days to milliseconds).
Anything else (division, other casts, LIKE, other regular expressions, Python functions...)
keeps the job on weir's operators.
"""

import datetime
import decimal
import re
from typing import Optional

from weir.table.evaluate import compile_expression
from weir.table.types import DataTypes

_INTEGERS = ("TINYINT", "SMALLINT", "INT", "BIGINT")
_NUMBERS = _INTEGERS + ("DECIMAL", "FLOAT", "DOUBLE")
_TEXT = ("STRING", "VARCHAR", "CHAR")
_ARITHMETIC = {"plus": "+", "minus": "-", "times": "*"}
_COMPARISONS = {
    "equals": "=",
    "not_equals": "<>",
    "less_than": "<",
    "less_than_or_equal": "<=",
    "greater_than": ">",
    "greater_than_or_equal": ">=",
}
_FIELDS = {
    "HOUR": "hour",
    "MINUTE": "minute",
    "SECOND": "second",
    "YEAR": "year",
    "MONTH": "month",
    "DAYOFMONTH": "dayofmonth",
}
_DATE_PATTERN = re.compile(r"^(yyyy|yy|MM|dd|HH|mm|ss|SSS|[-/:. _T,])*$")


def spark_type(data_type):
    """The Spark SQL type of a column's type, or None (not lowered)."""
    name = data_type.name
    if name in _INTEGERS or name in ("BOOLEAN", "DOUBLE", "FLOAT", "DATE"):
        return name
    if name in _TEXT:
        return "STRING"
    if name == "DECIMAL":
        return f"DECIMAL({data_type.precision}, {data_type.scale})"
    if name == "TIMESTAMP":
        return "TIMESTAMP_NTZ"
    return None


def column_name(index: int) -> str:
    return f"_c{index}"


def select(items, source: str, where: Optional[str] = None) -> str:
    """SELECT `items` FROM (`source`), a query text, [WHERE `where`]."""
    text = f"SELECT {', '.join(items)} FROM ({source}) AS _q"
    return text if where is None else f"{text} WHERE {where}"


class _Refused(Exception):
    """The expression has a part Spark does not compute as Flink does."""


def to_spark_sql(expr, columns):
    """`expr` (over `columns`) as Spark SQL text over `_c<i>`, or None."""
    try:
        return _Lowering(columns).sql(expr)
    except _Refused:
        return None


class _Lowering:
    def __init__(self, columns):
        self.columns = columns

    def type_of(self, expr):
        return compile_expression(expr, self.columns).data_type.name

    def sql(self, expr) -> str:
        op = expr.op
        if op == "alias":
            return self.sql(expr.args[0])
        if op == "col":
            names = [c.name for c in self.columns]
            if expr.args[0] not in names:
                raise _Refused()
            return column_name(names.index(expr.args[0]))
        if op == "lit":
            return _literal(*expr.args)
        if op not in _HANDLED:
            raise _Refused()
        return getattr(self, "_" + op)(expr)

    def _operands(self, left, right, families):
        """The SQL of two operands, which must be of one of `families` of types."""
        types = {self.type_of(left), self.type_of(right)}
        if not any(types <= set(family) for family in families):
            raise _Refused()
        return self.sql(left), self.sql(right)

    def _arithmetic(self, expr):
        # (not on TINYINT and SMALLINT, whose result types Spark and Flink widen apart)
        if expr.op in ("plus", "minus") and self.type_of(expr.args[0]) == "TIMESTAMP":
            return self._timestamp_shift(expr)
        # (expr.args: its two operands, which mypy cannot count)
        left, right = self._operands(*expr.args, [_NUMBERS[2:]])  # type: ignore[call-arg]
        self._check_decimal_digits(expr)
        return f"({left} {_ARITHMETIC[expr.op]} {right})"

    _plus = _minus = _times = _arithmetic

    def _timestamp_shift(self, expr):
        """A timestamp plus or minus a literal interval of days to milliseconds."""
        timestamp, interval = expr.args
        if interval.op != "lit" or not isinstance(interval.args[0], datetime.timedelta):
            raise _Refused()
        millis = interval.args[0] // datetime.timedelta(milliseconds=1)
        sign = "-" if millis < 0 else ""
        seconds = f"{sign}{abs(millis) // 1000}.{abs(millis) % 1000:03d}"
        return f"({self.sql(timestamp)} {_ARITHMETIC[expr.op]} INTERVAL '{seconds}' SECOND)"

    def _check_decimal_digits(self, expr):
        """Exact decimal arithmetic only where neither Spark nor Flink needs more than 38
        digits (beyond, each rounds by its own rules)."""
        if self.type_of(expr) == "DECIMAL" and self._digits(expr)[0] > 38:
            raise _Refused()

    def _digits(self, expr):
        """(precision, scale) of an exact number expression, by Spark's rules."""
        if expr.op in ("plus", "minus", "times"):
            (p1, s1), (p2, s2) = (self._digits(a) for a in expr.args)
            if expr.op == "times":
                return p1 + p2 + 1, s1 + s2
            scale = max(s1, s2)
            return scale + max(p1 - s1, p2 - s2) + 1, scale
        data_type = compile_expression(expr, self.columns).data_type
        if data_type.name == "DECIMAL":
            return data_type.precision, data_type.scale
        return {"TINYINT": 3, "SMALLINT": 5, "INT": 10, "BIGINT": 20}.get(data_type.name, 38), 0

    def _mod(self, expr):
        return self._remainder(*expr.args)

    def _remainder(self, left, right):
        """a % b for a literal b other than 0 (by 0 Flink fails, Spark gives NULL)."""
        if right.op != "lit" or type(right.args[0]) is not int or right.args[0] == 0:
            raise _Refused()
        left, right = self._operands(left, right, [_INTEGERS[2:]])
        return f"({left} % {right})"

    def _minus_prefix(self, expr):
        if self.type_of(expr.args[0]) not in _NUMBERS:
            raise _Refused()
        return f"(- {self.sql(expr.args[0])})"

    def _comparison(self, expr):
        left, right = self._operands(  # type: ignore[call-arg]  # (args: the two operands)
            *expr.args, [_NUMBERS, _TEXT, ("BOOLEAN",), ("TIMESTAMP",)]
        )
        return f"({left} {_COMPARISONS[expr.op]} {right})"

    _equals = _not_equals = _less_than = _less_than_or_equal = _comparison
    _greater_than = _greater_than_or_equal = _comparison

    def _and(self, expr):
        return f"({self.sql(expr.args[0])} AND {self.sql(expr.args[1])})"

    def _or(self, expr):
        return f"({self.sql(expr.args[0])} OR {self.sql(expr.args[1])})"

    def _not(self, expr):
        if expr.args[0].op == "is_null":
            return self._null_test(expr.args[0].args[0], negated=True)
        return f"(NOT {self.sql(expr.args[0])})"

    def _is_null(self, expr):
        return self._null_test(expr.args[0], negated=False)

    def _is_not_null(self, expr):
        return self._null_test(expr.args[0], negated=True)

    def _null_test(self, operand, negated):
        match = self._regexp_match(operand)
        if match is None:
            return f"({self.sql(operand)} IS {'NOT ' if negated else ''}NULL)"
        text, pattern = match
        if negated:
            return f"({text} IS NOT NULL AND {text} RLIKE {pattern})"
        return f"({text} IS NULL OR NOT ({text} RLIKE {pattern}))"

    def _regexp_match(self, expr):
        """(text, pattern) where `expr` is a REGEXP_EXTRACT lowered as the first match's
        group: it is NULL exactly where its text is or has no match, which RLIKE tests
        (Java's `find`, as the extraction's) without collecting the matches."""
        if expr.op != "builtin" or expr.args[0] != "REGEXP_EXTRACT":
            return None
        return self._regexp_parts(expr.args[1])[:2]

    def _if(self, expr):
        condition, then, otherwise = (self.sql(a) for a in expr.args)
        return f"(CASE WHEN {condition} THEN {then} ELSE {otherwise} END)"

    def _text_function(self, expr):
        if any(self.type_of(a) not in _TEXT for a in expr.args):
            raise _Refused()
        return f"{expr.op}({', '.join(self.sql(a) for a in expr.args)})"

    _upper = _lower = _text_function

    def _concat(self, expr):
        parts = (
            expr.args[0] if len(expr.args) == 1 and isinstance(expr.args[0], tuple) else expr.args
        )
        if any(self.type_of(a) not in _TEXT for a in parts):
            raise _Refused()
        return f"concat({', '.join(self.sql(a) for a in parts)})"

    def _cast(self, expr):
        inner, target = expr.args
        source = self.type_of(inner)
        if (
            source not in _INTEGERS
            or target.name not in _INTEGERS
            or _INTEGERS.index(target.name) < _INTEGERS.index(source)
        ):
            raise _Refused()
        return f"CAST({self.sql(inner)} AS {spark_type(target)})"

    def _builtin(self, expr):
        name, args = expr.args
        if name in _FIELDS and len(args) == 1 and self.type_of(args[0]) == "TIMESTAMP":
            return f"CAST({_FIELDS[name]}({self.sql(args[0])}) AS BIGINT)"
        if name == "MOD" and len(args) == 2:
            return self._remainder(*args)
        if name == "DATE_FORMAT":
            return self._date_format(args)
        if name == "SPLIT_INDEX":
            return self._split_index(args)
        if name == "REGEXP_EXTRACT":
            return self._regexp_extract(args)
        raise _Refused()

    def _regexp_extract(self, args):
        """Flink's REGEXP_EXTRACT gives NULL where Spark's gives '' (no match, or a group
        that took no part in it): lowered where the group takes part in every match, as
        the first match's group, NULL where there is none (one pass over the text, as
        fast as regexp_extract here, where a test for a match first took ~20% more)."""
        text, quoted, index = self._regexp_parts(args)
        return f"try_element_at(regexp_extract_all({text}, {quoted}, {index}), 1)"

    def _regexp_parts(self, args):
        """(text, quoted pattern, group) of a REGEXP_EXTRACT Spark computes as Flink does:
        a text, a literal pattern and a group that takes part in every match."""
        if len(args) != 3 or self.type_of(args[0]) not in _TEXT:
            raise _Refused()
        pattern, index = _literal_value(args[1], str), _literal_value(args[2], int)
        if not _always_takes_part(pattern, index):
            raise _Refused()
        return self.sql(args[0]), _quote(pattern), index

    def _in(self, expr):
        """x IN (literals of x's family, none NULL): NULL for a NULL x on both."""
        inner, options = expr.args
        family = next((f for f in (_NUMBERS, _TEXT) if self.type_of(inner) in f), None)
        if (
            family is None
            or not options
            or any(
                o.op != "lit" or o.args[0] is None or self.type_of(o) not in family for o in options
            )
        ):
            raise _Refused()
        return f"({self.sql(inner)} IN ({', '.join(self.sql(o) for o in options)}))"

    def _date_format(self, args):
        if len(args) != 2 or self.type_of(args[0]) != "TIMESTAMP":
            raise _Refused()
        pattern = _literal_value(args[1], str)
        if not _DATE_PATTERN.match(pattern):
            raise _Refused()
        return f"date_format({self.sql(args[0])}, {_quote(pattern)})"

    def _split_index(self, args):
        if len(args) != 3 or self.type_of(args[0]) not in _TEXT:
            raise _Refused()
        separator, index = _literal_value(args[1], str), _literal_value(args[2], int)
        if not separator or index < 0:
            raise _Refused()
        pattern = _quote("\\Q" + separator + "\\E") if "\\E" not in separator else None
        if pattern is None:
            raise _Refused()
        return f"element_at(split({self.sql(args[0])}, {pattern}, -1), {index + 1})"


_HANDLED = {
    *_ARITHMETIC,
    *_COMPARISONS,
    "mod",
    "minus_prefix",
    "and",
    "or",
    "not",
    "is_null",
    "is_not_null",
    "if",
    "in",
    "upper",
    "lower",
    "concat",
    "cast",
    "builtin",
}


try:  # Python's parser of regular expressions (re._parser from 3.11, sre_parse before)
    from re import _parser as _REGEX_PARSER  # type: ignore[attr-defined]  # (not in typeshed)
except ImportError:  # pragma: no cover (Python 3.10)
    import sre_parse as _REGEX_PARSER


def _always_takes_part(pattern: str, index: int) -> bool:
    """Whether group `index` of a regular expression matches in every match of it: the
    whole match, or a group outside any alternative or repetition (read with Python's
    parser of regular expressions, which reads the common syntax as Java's does; a
    pattern it cannot read is not lowered)."""
    if any(python in pattern for python in ("(?P", "(?(", "{,")):
        return False  # (Python's syntax, not Java's: Flink's pattern would not compile)
    try:
        parsed = _REGEX_PARSER.parse(pattern)
    except Exception:  # noqa: BLE001 (a pattern Python cannot read is not lowered)
        return False
    if not 0 <= index <= parsed.state.groups - 1:
        return False
    return index == 0 or index in _top_level_groups(parsed)


def _top_level_groups(items) -> set:
    groups = set()
    for op, argument in items:
        if op is _REGEX_PARSER.SUBPATTERN:
            group, _, _, inner = argument
            groups |= {group} | _top_level_groups(inner)
    return groups


def _literal_value(expr, kind):
    if expr.op != "lit" or type(expr.args[0]) is not kind:
        raise _Refused()
    return expr.args[0]


def _quote(text: str) -> str:
    """A Spark SQL string literal (which reads backslash escapes)."""
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _literal(value, data_type=None) -> str:
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, str):
        return _quote(value)
    if isinstance(value, int):
        name = (
            data_type.name
            if data_type is not None
            else ("INT" if -(2**31) <= value < 2**31 else "BIGINT")
        )
        if name not in _INTEGERS:
            raise _Refused()
        return f"CAST({value} AS {name})"
    if isinstance(value, decimal.Decimal) and value.is_finite():
        data_type = data_type or DataTypes.DECIMAL(
            max(len(value.as_tuple().digits), 1),
            max(-value.as_tuple().exponent, 0),  # type: ignore[operator]  # (finite: an int)
        )
        if data_type.name != "DECIMAL":
            raise _Refused()
        return f"CAST('{value}' AS {spark_type(data_type)})"
    raise _Refused()
