"""PyFlink's expression DSL (`pyflink.table.expressions`): `col('a') + 1`, `lit(1).count`,
`col('data').json_value('$.name', DataTypes.STRING())`, `concat(...)`, `.alias('x')`.

An Expression is a tree: an operator name and its arguments (expressions or plain
values). It only describes; weir.table.evaluate types it against a table's schema and
compiles it to a Python function over a row's values.
"""

AGGREGATES = (
    "count",
    "sum",
    "sum0",
    "min",
    "max",
    "avg",
    "count_star",
    "count_distinct",
    "var_pop",
    "var_samp",
    "stddev_pop",
    "stddev_samp",
    "first_value",
    "last_value",
    "list_agg",
    "array_agg",
)


class Expression:
    """A column, a literal, a call or an alias (Flink's Expression)."""

    __hash__ = object.__hash__

    def __init__(self, op: str, *args):
        self.op = op
        self.args = args

    def __repr__(self):
        return f"{self.op}({', '.join(map(repr, self.args))})"

    # -- arithmetic and comparison --------------------------------------------------
    def _binary(self, op, other, reverse=False):
        other = _expr(other)
        return Expression(op, other, self) if reverse else Expression(op, self, other)

    def __add__(self, o):
        return self._binary("plus", o)

    def __radd__(self, o):
        return self._binary("plus", o, True)

    def __sub__(self, o):
        return self._binary("minus", o)

    def __rsub__(self, o):
        return self._binary("minus", o, True)

    def __mul__(self, o):
        return self._binary("times", o)

    def __rmul__(self, o):
        return self._binary("times", o, True)

    def __truediv__(self, o):
        return self._binary("divide", o)

    def __rtruediv__(self, o):
        return self._binary("divide", o, True)

    def __mod__(self, o):
        return self._binary("mod", o)

    def __rmod__(self, o):
        return self._binary("mod", o, True)

    def __eq__(self, o):
        return self._binary("equals", o)  # noqa: E704

    def __ne__(self, o):
        return self._binary("not_equals", o)

    def __lt__(self, o):
        return self._binary("less_than", o)

    def __le__(self, o):
        return self._binary("less_than_or_equal", o)

    def __gt__(self, o):
        return self._binary("greater_than", o)

    def __ge__(self, o):
        return self._binary("greater_than_or_equal", o)

    def __and__(self, o):
        return self._binary("and", o)

    def __rand__(self, o):
        return self._binary("and", o, True)

    def __or__(self, o):
        return self._binary("or", o)

    def __ror__(self, o):
        return self._binary("or", o, True)

    def __invert__(self):
        return Expression("not", self)

    def __neg__(self):
        return Expression("minus_prefix", self)

    def __pos__(self):
        return self

    # -- names, types ---------------------------------------------------------------
    def alias(self, name: str, *extra_names: str) -> "Expression":
        return Expression("alias", self, (name,) + extra_names)

    def cast(self, data_type) -> "Expression":
        return Expression("cast", self, data_type)

    def try_cast(self, data_type) -> "Expression":
        return Expression("try_cast", self, data_type)

    # -- fields of a ROW --------------------------------------------------------------
    def get(self, name_or_index) -> "Expression":
        """A field of a ROW value, by name or position (`col('location').get('lat')`)."""
        return Expression("get", self, name_or_index)

    def __getattr__(self, name):
        """`col('location').lat`: the field `lat` (PyFlink's attribute access)."""
        if name.startswith("_"):
            raise AttributeError(name)
        return self.get(name)

    # -- aggregates (properties, as PyFlink's) --------------------------------------
    count = property(lambda self: Expression("count", self))
    sum = property(lambda self: Expression("sum", self))
    sum0 = property(lambda self: Expression("sum0", self))
    min = property(lambda self: Expression("min", self))
    max = property(lambda self: Expression("max", self))
    avg = property(lambda self: Expression("avg", self))
    var_pop = property(lambda self: Expression("var_pop", self))
    var_samp = property(lambda self: Expression("var_samp", self))
    stddev_pop = property(lambda self: Expression("stddev_pop", self))
    stddev_samp = property(lambda self: Expression("stddev_samp", self))
    first_value = property(lambda self: Expression("first_value", self))
    last_value = property(lambda self: Expression("last_value", self))
    array_agg = property(lambda self: Expression("array_agg", self))

    def list_agg(self, separator=None) -> "Expression":
        return Expression("list_agg", self, *(() if separator is None else (_expr(separator),)))

    # -- scalar functions -----------------------------------------------------------
    is_null = property(lambda self: Expression("is_null", self))
    is_not_null = property(lambda self: Expression("is_not_null", self))
    is_true = property(lambda self: Expression("is_true", self))
    is_false = property(lambda self: Expression("is_false", self))
    abs = property(lambda self: Expression("abs", self))
    lower_case = property(lambda self: Expression("lower", self))
    upper_case = property(lambda self: Expression("upper", self))
    char_length = property(lambda self: Expression("char_length", self))
    asc = property(lambda self: Expression("asc", self))
    desc = property(lambda self: Expression("desc", self))
    lower = lower_case
    upper = upper_case

    # -- time (windows) -------------------------------------------------------------
    def _interval(self, millis: int) -> "Expression":
        if self.op != "lit" or not isinstance(self.args[0], int):
            raise ValueError("an interval is an integer literal: lit(5).seconds")
        return Expression("interval", self.args[0] * millis)

    milli = millis = property(lambda self: self._interval(1))
    second = seconds = property(lambda self: self._interval(1000))
    minute = minutes = property(lambda self: self._interval(60_000))
    hour = hours = property(lambda self: self._interval(3_600_000))
    day = days = property(lambda self: self._interval(86_400_000))
    rows = property(lambda self: Expression("row_interval", self.args[0]))
    start = property(lambda self: Expression("window_start", self))
    end = property(lambda self: Expression("window_end", self))
    rowtime = property(lambda self: Expression("window_rowtime", self))
    proctime = property(lambda self: Expression("window_proctime", self))

    def over(self, alias) -> "Expression":
        return Expression("over", self, alias)

    def json_value(self, path: str, returning_type=None, *_on_empty_or_error):
        return Expression("json_value", self, path, returning_type)

    def like(self, pattern) -> "Expression":
        return Expression("like", self, _expr(pattern))

    def between(self, lower, upper) -> "Expression":
        return (self >= lower) & (self <= upper)

    def not_between(self, lower, upper) -> "Expression":
        return ~self.between(lower, upper)

    def in_(self, *values) -> "Expression":
        return Expression("in", self, tuple(_expr(v) for v in values))

    def substring(self, begin, length=None) -> "Expression":
        args = (_expr(begin),) if length is None else (_expr(begin), _expr(length))
        return Expression("substring", self, *args)

    def if_null(self, null_replacement) -> "Expression":
        return Expression("coalesce", self, _expr(null_replacement))

    # -- more built-in functions (weir.table.scalar_builtins) ------------------------
    def _call(self, function, *args) -> "Expression":
        return Expression(
            "builtin", function, (self,) + tuple(_expr(a) for a in args if a is not None)
        )

    sqrt = property(lambda self: self._call("SQRT"))
    ln = property(lambda self: self._call("LN"))
    log10 = property(lambda self: self._call("LOG10"))
    log2 = property(lambda self: self._call("LOG2"))
    exp = property(lambda self: self._call("EXP"))
    sign = property(lambda self: self._call("SIGN"))
    init_cap = property(lambda self: self._call("INITCAP"))
    reverse = property(lambda self: self._call("REVERSE"))
    md5 = property(lambda self: self._call("MD5"))
    sha1 = property(lambda self: self._call("SHA1"))
    sha256 = property(lambda self: self._call("SHA256"))
    to_base64 = property(lambda self: self._call("TO_BASE64"))
    from_base64 = property(lambda self: self._call("FROM_BASE64"))
    ascii = property(lambda self: self._call("ASCII"))
    chr = property(lambda self: self._call("CHR"))
    cardinality = property(lambda self: self._call("CARDINALITY"))
    to_date = property(lambda self: Expression("cast", self, _type("DATE")))
    to_time = property(lambda self: _no_time())
    to_timestamp = property(lambda self: Expression("cast", self, _type("TIMESTAMP")))

    def floor(self, time_interval_unit=None) -> "Expression":
        return (
            self._call("FLOOR")
            if time_interval_unit is None
            else Expression("floor_to", self, _unit(time_interval_unit))
        )

    def ceil(self, time_interval_unit=None) -> "Expression":
        return (
            self._call("CEIL")
            if time_interval_unit is None
            else Expression("ceil_to", self, _unit(time_interval_unit))
        )

    def log(self, base=None) -> "Expression":
        return self._call("LN") if base is None else _expr(base)._call("LOG", self)

    def power(self, other):
        return self._call("POWER", other)

    def truncate(self, n=0):
        return self._call("TRUNCATE", n)

    def round(self, places):
        return self._call("ROUND", places)

    def lpad(self, length, pad):
        return self._call("LPAD", length, pad)

    def rpad(self, length, pad):
        return self._call("RPAD", length, pad)

    def trim(self, character=None):
        return self._call("BTRIM", character)

    def trim_leading(self, character=None):
        return self._call("LTRIM", character)

    def trim_trailing(self, character=None):
        return self._call("RTRIM", character)

    def ltrim(self, trim_str=None):
        return self._call("LTRIM", trim_str)

    def rtrim(self, trim_str=None):
        return self._call("RTRIM", trim_str)

    def repeat(self, n):
        return self._call("REPEAT", n)

    def left(self, length):
        return self._call("LEFT", length)

    def right(self, length):
        return self._call("RIGHT", length)

    def position(self, haystack):
        return self._call("POSITION", haystack)

    def regexp(self, regex):
        return self._call("REGEXP", regex)

    def sha2(self, hash_length):
        return self._call("SHA2", hash_length)

    def starts_with(self, start_expr):
        return self._call("STARTS_WITH", start_expr)

    def ends_with(self, end_expr):
        return self._call("ENDS_WITH", end_expr)

    def locate(self, s, pos=None) -> "Expression":
        return self._call("POSITION", s, pos)

    def instr(self, s) -> "Expression":
        return _expr(s)._call("POSITION", self)

    def regexp_replace(self, regex, replacement) -> "Expression":
        return self._call("REGEXP_REPLACE", regex, replacement)

    def regexp_extract(self, regex, extract_index=None) -> "Expression":
        return self._call("REGEXP_EXTRACT", regex, 1 if extract_index is None else extract_index)

    def overlay(self, new_string, starting, length=None) -> "Expression":
        return self._call("OVERLAY", new_string, starting, length)

    def replace(self, search, replacement) -> "Expression":
        return self._call("REPLACE", search, replacement)

    def split_index(self, separator, index) -> "Expression":
        return self._call("SPLIT_INDEX", separator, index)

    def substr(self, begin_index, length=None) -> "Expression":
        return self.substring(begin_index, length)

    def extract(self, time_interval_unit) -> "Expression":
        return Expression("builtin", "EXTRACT", (lit(_unit(time_interval_unit)), self))

    def plus(self, other):
        return self + other

    def minus(self, other):
        return self - other

    def times(self, other):
        return self * other

    def divided_by(self, other):
        return self / other


def _type(name):
    from weir.table.types import DataTypes

    return {"DATE": DataTypes.DATE(), "TIMESTAMP": DataTypes.TIMESTAMP(3)}[name]


def _no_time():
    from weir.table.evaluate import not_supported

    not_supported("to_time (weir's Table API has no TIME type yet)")


def _unit(unit) -> str:
    """A TimeIntervalUnit's (or a unit name's) name: YEAR, ..., SECOND."""
    return unit.name if hasattr(unit, "name") else str(unit).upper()


def _expr(value) -> Expression:
    return value if isinstance(value, Expression) else Expression("lit", value, None)


def col(name: str) -> Expression:
    """The column `name`."""
    return Expression("col", name)


def lit(value, data_type=None) -> Expression:
    """A literal (of `data_type`, else of the type its Python value has)."""
    return Expression("lit", value, data_type)


def call(f, *args) -> Expression:
    """A function by name (a registered temporary function) or a Python UDF, on `args`."""
    return Expression("call", f, tuple(_expr(a) for a in args))


def concat(first, *others) -> Expression:
    return Expression("concat", tuple(_expr(v) for v in (first,) + others))


def if_then_else(condition, if_true, if_false) -> Expression:
    return Expression("if", _expr(condition), _expr(if_true), _expr(if_false))


def and_(predicate0, predicate1, *predicates) -> Expression:
    result = _expr(predicate0) & predicate1
    for predicate in predicates:
        result = result & predicate
    return result


def or_(predicate0, predicate1, *predicates) -> Expression:
    result = _expr(predicate0) | predicate1
    for predicate in predicates:
        result = result | predicate
    return result


def not_(expression) -> Expression:
    return ~_expr(expression)


def coalesce(*args) -> Expression:
    return Expression("coalesce", *(_expr(a) for a in args))


def json(value) -> Expression:
    """JSON(value): a JSON string taken as JSON, not as a string (PyFlink's `json`)."""
    return Expression("json", _expr(value))


def row(*values) -> Expression:
    return Expression("row", *(_expr(v) for v in values))


def array(head, *tail) -> Expression:
    """ARRAY[head, ...]: an array of the values (PyFlink's `array`)."""
    return Expression("array", *(_expr(v) for v in (head, *tail)))


def row_interval(rows: int) -> Expression:
    """ROWS n: an over window's bound in rows."""
    return Expression("row_interval", rows)


CURRENT_ROW = Expression("current_row")
CURRENT_RANGE = Expression("current_range")
UNBOUNDED_ROW = Expression("unbounded_row")
UNBOUNDED_RANGE = Expression("unbounded_range")

__all__ = [
    "col",
    "row_interval",
    "CURRENT_ROW",
    "CURRENT_RANGE",
    "UNBOUNDED_ROW",
    "UNBOUNDED_RANGE",
    "lit",
    "call",
    "concat",
    "if_then_else",
    "and_",
    "or_",
    "not_",
    "coalesce",
    "json",
    "row",
    "array",
    "Expression",
]
