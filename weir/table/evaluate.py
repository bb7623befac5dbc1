"""Typing and compiling Table API expressions (weir.table.expressions) against a table's
columns: each becomes a Python function of a row's values tuple, with its SQL type and
its name (a column's or an alias's; None for Flink's generated `EXPR$n`).

SQL's rules hold: NULL (None) in, NULL out for arithmetic, comparison and functions;
AND/OR with three-valued logic; a filter keeps a row only where its condition is TRUE.
"""

import decimal
import json as _json
import operator
import re
from dataclasses import dataclass
from typing import Callable, List, NoReturn, Optional

from weir.table.casts import (
    INT_RANGES,
    WIDE_DECIMALS,
    cast_value,
    java_wrap,
    literal_type,
    to_sql_string,
)
from weir.table.expressions import AGGREGATES, Expression
from weir.table.types import NUMERIC, DataType, DataTypes


@dataclass
class Column:
    name: str
    data_type: DataType
    time_attribute: bool = False  # the event-time column (rowtime) of its table
    proctime: bool = False  # a processing-time attribute (PROCTIME()), as printed


@dataclass
class Compiled:
    function: Callable
    data_type: DataType
    name: Optional[str]


def not_supported(what: str) -> NoReturn:
    raise NotImplementedError(
        f"{what} is not supported by weir's Table API yet: see docs/table.md in weir's repository"
    )


def _index_of(columns: List[Column], name: str) -> int:
    for index, column in enumerate(columns):
        if column.name == name:
            return index
    raise ValueError(
        f"no column '{name}' in the table's columns [{', '.join(c.name for c in columns)}]"
    )


def _numbers(function):
    """An arithmetic operator over mixed DECIMAL (Decimal) and DOUBLE (float) values:
    the DOUBLE wins, as in SQL."""

    def run(a, b):
        if isinstance(a, float) and isinstance(b, decimal.Decimal):
            b = float(b)
        elif isinstance(b, float) and isinstance(a, decimal.Decimal):
            a = float(a)
        return function(a, b)

    return run


def _null_safe(function, *parts):
    if len(parts) == 1:
        return _null_safe_1(function, parts[0])
    if len(parts) == 2:
        return _null_safe_2(function, *parts)

    def run(values):
        args = [part(values) for part in parts]
        return None if any(a is None for a in args) else function(*args)

    return run


def _null_safe_1(function, part):
    def run(values):
        a = part(values)
        return None if a is None else function(a)

    return run


def _null_safe_2(function, left, right):
    def run(values):
        a, b = left(values), right(values)
        return None if a is None or b is None else function(a, b)

    return run


def wider(left: DataType, right: DataType) -> DataType:
    """The type of values of both types (Calcite's least restrictive: a DECIMAL and an
    integer or another DECIMAL, the digits of both before the point and after it)."""
    order = ["TINYINT", "SMALLINT", "INT", "BIGINT", "DECIMAL", "FLOAT", "DOUBLE"]
    if left.name not in order or right.name not in order:
        return left
    if "DECIMAL" in (left.name, right.name) and all(
        t.name == "DECIMAL" or t.bits for t in (left, right)
    ):
        scale = max(_decimal_digits(left)[1], _decimal_digits(right)[1])
        whole = max(p - s for p, s in map(_decimal_digits, (left, right)))
        return DataTypes.DECIMAL(
            min(whole + scale, 38), scale, left.is_nullable or right.is_nullable
        )
    return left if order.index(left.name) >= order.index(right.name) else right


def _decimal_digits(data_type):
    """(precision, scale) of a DECIMAL or an integer type."""
    if data_type.name == "DECIMAL":
        return data_type.precision, data_type.scale
    return _EXACT_DIGITS[data_type.name], 0


def _divide(a, b):
    if isinstance(a, int) and isinstance(b, int):
        if b == 0:
            raise ArithmeticError("/ by zero")
        quotient = abs(a) // abs(b)
        return quotient if (a >= 0) == (b >= 0) else -quotient
    return a / b


_ARITHMETIC = {
    "plus": operator.add,
    "minus": operator.sub,
    "times": operator.mul,
    "divide": _divide,
    "mod": lambda a, b: a - b * _divide(a, b),
}
_COMPARISONS = {
    "equals": operator.eq,
    "not_equals": operator.ne,
    "less_than": operator.lt,
    "less_than_or_equal": operator.le,
    "greater_than": operator.gt,
    "greater_than_or_equal": operator.ge,
}


def compile_expression(expr: Expression, columns: List[Column]) -> Compiled:
    """`expr` as a function of a row's values, its type and its name."""
    op = expr.op
    if op == "col":
        index = _index_of(columns, expr.args[0])
        return Compiled(operator.itemgetter(index), columns[index].data_type, expr.args[0])
    if op == "lit":
        value, data_type = expr.args
        return Compiled(lambda values: value, data_type or literal_type(value), None)
    if op == "alias":
        inner = compile_expression(expr.args[0], columns)
        return Compiled(inner.function, inner.data_type, expr.args[1][0])
    if op in AGGREGATES:
        raise ValueError(
            f"the aggregate {op}() belongs in a group_by(...).select(...) or "
            "an aggregation over the whole table, not in a row expression"
        )
    handler = _HANDLERS.get(op)
    if handler is None:
        not_supported(f"the expression {op}()")
    return handler(expr, columns)


def _arithmetic(expr, columns):
    left, right = (compile_expression(a, columns) for a in expr.args)
    data_type = wider(left.data_type, right.data_type)
    if expr.op == "divide" and data_type.name in ("TINYINT", "SMALLINT", "INT", "BIGINT"):
        data_type = DataTypes.INT() if data_type.name != "BIGINT" else data_type
    function = _numbers(_ARITHMETIC[expr.op])
    if data_type.name in INT_RANGES:
        function = _wrapping(function, INT_RANGES[data_type.name])
    elif data_type.name == "DECIMAL" and expr.op != "mod":
        data_type = decimal_arithmetic_type(expr.op, left.data_type, right.data_type)
        function = _decimal_result(function, data_type)
    nullable = left.data_type.is_nullable or right.data_type.is_nullable
    data_type = data_type.nullable() if nullable else data_type.not_null()
    return Compiled(_null_safe(function, left.function, right.function), data_type, None)


_EXACT_DIGITS = {"TINYINT": 3, "SMALLINT": 5, "INT": 10, "BIGINT": 19}


def decimal_arithmetic_type(op: str, left: DataType, right: DataType) -> DataType:
    """Flink's DECIMAL result of `left op right` (an integer operand as a DECIMAL of its
    digits), at most 38 digits: beyond, the integer digits are kept and the scale gives
    way, down to 6 digits."""
    (p1, s1), (p2, s2) = (_digits(t) for t in (left, right))
    if op in ("plus", "minus"):
        scale = max(s1, s2)
        precision = max(p1 - s1, p2 - s2) + scale + 1
    elif op == "times":
        precision, scale = p1 + p2 + 1, s1 + s2
    else:  # divide
        scale = max(6, s1 + p2 + 1)
        precision = p1 - s1 + s2 + scale
    if precision > 38:
        scale = max(38 - (precision - scale), min(scale, 6))
        precision = 38
    return DataTypes.DECIMAL(precision, scale)


def _digits(data_type):
    if data_type.name == "DECIMAL":
        return data_type.precision, data_type.scale
    return _EXACT_DIGITS[data_type.name], 0


def _decimal_result(function, data_type):
    """A DECIMAL operation computed exactly, rounded half up to the type's scale; NULL
    where it needs more digits than the type has (as Flink's)."""
    step = decimal.Decimal(1).scaleb(-data_type.scale)
    limit = decimal.Decimal(10) ** (data_type.precision - data_type.scale)

    def run(a, b):
        with decimal.localcontext(WIDE_DECIMALS):
            result = function(a, b)
            if not isinstance(result, decimal.Decimal):
                return result  # (a DOUBLE operand makes the result a DOUBLE)
            result = result.quantize(step, rounding=decimal.ROUND_HALF_UP)
        return result if abs(result) < limit else None

    return run


def _wrapping(function, bits):
    """Integer arithmetic as Java's: a result out of the type's range wraps around."""
    low, high = -(2 ** (bits - 1)), 2 ** (bits - 1)

    def run(a, b):
        result = function(a, b)
        return result if low <= result < high else java_wrap(result, bits)

    return run


_TIMES = ("DATE", "TIME", "TIMESTAMP", "TIMESTAMP_LTZ")
_TEXTS = ("STRING", "VARCHAR", "CHAR")


def _comparison(expr, columns):
    left, right = (compile_expression(a, columns) for a in expr.args)
    left, right = _as_time_of(left, right), _as_time_of(right, left)
    return Compiled(
        _null_safe(_COMPARISONS[expr.op], left.function, right.function), DataTypes.BOOLEAN(), None
    )


def _as_time_of(side: "Compiled", other: "Compiled") -> "Compiled":
    """A text compared with a date or time is cast to its type, as Flink casts it
    (`sales_date = '2021-07-01'`)."""
    if side.data_type.name not in _TEXTS or other.data_type.name not in _TIMES:
        return side
    source, target, text = side.data_type, other.data_type, side.function
    return Compiled(lambda values: cast_value(text(values), source, target), target, None)


def _logical(expr, columns):
    left, right = (compile_expression(a, columns).function for a in expr.args)
    if expr.op == "and":

        def run(values):
            a, b = left(values), right(values)
            if a is False or b is False:
                return False
            return None if a is None or b is None else True
    else:

        def run(values):
            a, b = left(values), right(values)
            if a is True or b is True:
                return True
            return None if a is None or b is None else False

    return Compiled(run, DataTypes.BOOLEAN(), None)


def _unary(function, result_type=None):
    def handler(expr, columns):
        inner = compile_expression(expr.args[0], columns)
        return Compiled(
            _null_safe(function, inner.function),
            result_type() if result_type else inner.data_type,
            None,
        )

    return handler


def _null_test(negate):
    def handler(expr, columns):
        inner = compile_expression(expr.args[0], columns).function
        return Compiled(
            lambda values: (inner(values) is None) != negate, DataTypes.BOOLEAN(False), None
        )

    return handler


def _cast(expr, columns):
    inner = compile_expression(expr.args[0], columns)
    target = expr.args[1]
    lenient = expr.op == "try_cast"
    source = inner.data_type
    return Compiled(
        lambda values: cast_value(inner.function(values), source, target, lenient), target, None
    )


def _json_path(path: str):
    if not path.startswith("$"):
        raise ValueError(f"JSON path '{path}' must start with '$'")
    steps = re.findall(r"\.([A-Za-z_][\w]*)|\[(\d+)\]|\['([^']*)'\]", path[1:])
    return [int(index) if index else (name or quoted) for name, index, quoted in steps]


def _json_value(expr, columns):
    inner = compile_expression(expr.args[0], columns).function
    steps = _json_path(expr.args[1])
    target = expr.args[2] or DataTypes.STRING()

    def run(values):
        text = inner(values)
        if text is None:
            return None
        try:
            node = _json.loads(text)
            for step in steps:
                node = node[step]
        except (ValueError, KeyError, IndexError, TypeError):
            return None
        if node is None or isinstance(node, (dict, list)):
            return None
        as_text = ("true" if node else "false") if isinstance(node, bool) else str(node)
        return cast_value(as_text, DataTypes.STRING(), target, True)

    return Compiled(run, target, None)


def _concat(expr, columns):
    parts = [compile_expression(a, columns) for a in expr.args[0]]
    functions = [(p.function, p.data_type) for p in parts]

    def run(values):
        pieces = [f(values) for f, _ in functions]
        if any(p is None for p in pieces):
            return None
        return "".join(to_sql_string(p, t) for p, (_, t) in zip(pieces, functions))

    return Compiled(run, DataTypes.STRING(), None)


def _if(expr, columns):
    condition, yes, no = (compile_expression(a, columns) for a in expr.args)
    return Compiled(
        lambda v: yes.function(v) if condition.function(v) is True else no.function(v),
        common_type(yes.data_type, no.data_type),
        None,
    )


_TEXTS = ("CHAR", "VARCHAR", "STRING")


def common_type(a: DataType, b: DataType) -> DataType:
    """The type of values of either type (Calcite's least restrictive, for what weir
    meets: texts are CHAR of one length, else VARCHAR of the longer, STRING over all;
    numbers the wider), nullable where either is."""
    if a.name in _TEXTS and b.name in _TEXTS:
        if "STRING" in (a.name, b.name):
            result = DataTypes.STRING()
        elif a.name == b.name == "CHAR" and a.length == b.length:
            result = DataTypes.CHAR(a.length)
        else:
            result = DataTypes.VARCHAR(max(a.length, b.length))
    else:
        result = wider(a, b)
    return result.nullable() if a.is_nullable or b.is_nullable else result.not_null()


def _coalesce(expr, columns):
    parts = [compile_expression(a, columns) for a in expr.args]

    def run(values):
        for part in parts:
            value = part.function(values)
            if value is not None:
                return value
        return None

    data_type = parts[0].data_type
    for part in parts[1:]:
        data_type = common_type(data_type, part.data_type)
    nullable = all(p.data_type.is_nullable for p in parts)  # (NULL only where all are)
    return Compiled(run, data_type.nullable() if nullable else data_type.not_null(), None)


def _in(expr, columns):
    inner = compile_expression(expr.args[0], columns).function
    options = [compile_expression(a, columns).function for a in expr.args[1]]

    def run(values):
        value = inner(values)
        return None if value is None else any(value == o(values) for o in options)

    return Compiled(run, DataTypes.BOOLEAN(), None)


def _like(expr, columns):
    inner, pattern = (compile_expression(a, columns).function for a in expr.args)

    def matches(text, like):
        regex = "".join(".*" if c == "%" else "." if c == "_" else re.escape(c) for c in like)
        return re.fullmatch(regex, text, re.DOTALL) is not None

    return Compiled(_null_safe(matches, inner, pattern), DataTypes.BOOLEAN(), None)


def _substring(expr, columns):
    parts = [compile_expression(a, columns).function for a in expr.args]

    def cut(text, begin, length=None):
        start = max(begin - 1, 0)
        return text[start:] if length is None else text[start : start + length]

    return Compiled(_null_safe(cut, *parts), DataTypes.STRING(), None)


def _array(expr, columns):
    """ARRAY[a, b, ...]: a list, its elements of the type common to theirs."""
    from weir.table.casts import cast_value

    parts = [compile_expression(a, columns) for a in expr.args]
    if not parts:
        raise ValueError("ARRAY[] needs at least one element")
    element = parts[0].data_type
    for part in parts[1:]:
        element = common_type(element, part.data_type)
    return Compiled(
        lambda values: [cast_value(p.function(values), p.data_type, element) for p in parts],
        DataTypes.ARRAY(element, False),
        None,
    )


def _row(expr, columns):
    """ROW(a, b, ...) (the Table API's row(...)): a row of the values, its fields named
    EXPR$0, EXPR$1, ... as Flink names them."""
    from weir.common.row import Row

    parts = [compile_expression(a, columns) for a in expr.args]
    names = [f"EXPR${i}" for i in range(len(parts))]
    return Compiled(
        lambda values: Row(**dict(zip(names, (p.function(values) for p in parts)))),
        DataTypes.ROW([DataTypes.FIELD(n, p.data_type) for n, p in zip(names, parts)], False),
        None,
    )


def _input_row(expr, columns):
    """All of the row's columns as one Row (what Table.map and flat_map give a
    function)."""
    from weir.common.row import Row

    names = [c.name for c in columns]
    return Compiled(
        lambda values: Row(**dict(zip(names, values))),
        DataTypes.ROW([DataTypes.FIELD(c.name, c.data_type) for c in columns]),
        None,
    )


def _field_of(expr, columns):
    inner = compile_expression(expr.args[0], columns)
    index = expr.args[1]
    field = inner.data_type.fields[index]
    return Compiled(lambda values: _nth(inner.function(values), index), field.data_type, field.name)


def _get(expr, columns):
    """A ROW value's field by name or position, named as Flink names it (`location$lat`)."""
    inner = compile_expression(expr.args[0], columns)
    key, data_type = expr.args[1], inner.data_type
    names = data_type.field_names() if data_type.name == "ROW" else None
    if names is None:
        raise ValueError(f"get({key!r}) takes a field of a ROW, got {data_type}")
    if isinstance(key, str) and key not in names:
        raise ValueError(f"the ROW has no field '{key}' (fields: {', '.join(names)})")
    index = names.index(key) if isinstance(key, str) else key
    field = data_type.fields[index]
    name = f"{inner.name}${field.name}" if inner.name else None
    return Compiled(lambda values: _nth(inner.function(values), index), field.data_type, name)


def _nth(value, index):
    return None if value is None else value[index]


_HANDLERS = {
    **{op: _arithmetic for op in _ARITHMETIC},
    **{op: _comparison for op in _COMPARISONS},
    "and": _logical,
    "or": _logical,
    "not": _unary(operator.not_, DataTypes.BOOLEAN),
    "minus_prefix": _unary(operator.neg),
    "abs": _unary(abs),
    "lower": _unary(str.lower),
    "upper": _unary(str.upper),
    "char_length": _unary(len, DataTypes.INT),
    "is_null": _null_test(False),
    "is_not_null": _null_test(True),
    "is_true": _unary(lambda v: v is True, DataTypes.BOOLEAN),
    "is_false": _unary(lambda v: v is False, DataTypes.BOOLEAN),
    "cast": _cast,
    "try_cast": _cast,
    "json_value": _json_value,
    "concat": _concat,
    "if": _if,
    "coalesce": _coalesce,
    "in": _in,
    "like": _like,
    "substring": _substring,
    "input_row": _input_row,
    "array": _array,
    "row": _row,
    "field_of": _field_of,
    "get": _get,
}

from weir.table.calls import builtin_call, floor_to_call, function_call  # noqa: E402

_HANDLERS.update(
    {
        "builtin": builtin_call,
        "floor_to": floor_to_call,
        "ceil_to": floor_to_call,
        "call": function_call,
    }
)

__all__ = ["Column", "Compiled", "compile_expression", "not_supported", "NUMERIC"]
