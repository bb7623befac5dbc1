"""SQL expressions (sqlglot trees) as Table API expressions (weir.table.expressions)."""

import datetime
import decimal

from sqlglot import exp

from weir.table import expressions as e
from weir.table.evaluate import not_supported
from weir.table.sql_types import parse_type
from weir.table.types import DataTypes

_BINARY = {
    exp.EQ: "equals",
    exp.NEQ: "not_equals",
    exp.LT: "less_than",
    exp.LTE: "less_than_or_equal",
    exp.GT: "greater_than",
    exp.GTE: "greater_than_or_equal",
    exp.Add: "plus",
    exp.Sub: "minus",
    exp.Mul: "times",
    exp.Div: "divide",
    exp.Mod: "mod",
    exp.And: "and",
    exp.Or: "or",
}
_AGGREGATES = {
    exp.Sum: "sum",
    exp.Min: "min",
    exp.Max: "max",
    exp.Avg: "avg",
    exp.StddevPop: "stddev_pop",
    exp.StddevSamp: "stddev_samp",
    exp.Stddev: "stddev_samp",
    exp.VariancePop: "var_pop",
    exp.Variance: "var_samp",
    exp.FirstValue: "first_value",
    exp.LastValue: "last_value",
    exp.ArrayAgg: "array_agg",
}
_UNARY = {exp.Upper: "upper", exp.Lower: "lower", exp.Abs: "abs", exp.Length: "char_length"}


class SqlExpressions:
    def __init__(self, t_env):
        self.t_env = t_env
        self.scope = None  # resolves qualified and unqualified column names (sql_query)

    def function(self, name: str):
        function = self.t_env.functions.get(name.lower())
        if function is None:
            raise ValueError(
                f"No match found for function signature {name}(): register "
                "it with create_temporary_function or CREATE FUNCTION"
            )
        return function

    def convert(self, node) -> e.Expression:
        for kind, op in _BINARY.items():
            if type(node) is kind:
                return e.Expression(op, self.convert(node.this), self.convert(node.expression))
        handler = getattr(self, "_" + type(node).__name__.lower(), None)
        if handler is None:
            from weir.table.sql_functions import function_call

            call = function_call(self, node)
            if call is None:
                not_supported(f"the SQL expression '{node.sql()}'")
            return call
        return handler(node)

    def _column(self, node):
        if self.scope is None:
            return e.col(node.name)
        return e.col(self.scope.resolve(node.table or None, node.name))

    def _identifier(self, node):
        return e.col(node.name)

    def _paren(self, node):
        return self.convert(node.this)

    def _alias(self, node):
        return self.convert(node.this).alias(node.alias)

    def _literal(self, node):
        """'text' is a string; 1 an INT (BIGINT if it needs it); 0.908 an exact DECIMAL;
        1e3 a DOUBLE (as in Flink SQL)."""
        if node.is_string:
            return e.lit(node.name)
        text = node.name
        if any(c in text for c in "eE"):
            return e.lit(float(text))
        if "." in text:  # (its digits, leading zeros too, as Calcite counts them)
            scale = len(text.split(".")[1])
            return e.lit(
                decimal.Decimal(text),
                DataTypes.DECIMAL(max(len(text.lstrip("-")) - 1, 1), scale, False),
            )
        return e.lit(int(text))

    def _interval(self, node):
        from weir.table.sql import interval_millis

        return e.lit(datetime.timedelta(milliseconds=interval_millis(node)), DataTypes.INTERVAL())

    def _boolean(self, node):
        return e.lit(node.this)

    def _null(self, node):
        return e.lit(None)

    def _not(self, node):
        return ~self.convert(node.this)

    def _neg(self, node):
        return -self.convert(node.this)

    def _is(self, node):
        inner = self.convert(node.this)
        if isinstance(node.expression, exp.Null):
            return inner.is_null
        not_supported(f"'{node.sql()}'")

    def _cast(self, node):
        return self.convert(node.this).cast(parse_type(node.to.sql()))

    def _trycast(self, node):
        return self.convert(node.this).try_cast(parse_type(node.to.sql()))

    def _count(self, node):
        arg = node.this
        if arg is None or isinstance(arg, exp.Star):
            return e.Expression("count_star", e.lit(1))
        if isinstance(arg, exp.Distinct):
            if len(arg.expressions) != 1:
                not_supported("COUNT(DISTINCT ...) of several columns")
            return e.Expression("count_distinct", self.convert(arg.expressions[0]))
        return self.convert(arg).count

    def _case(self, node):
        operand = None if node.this is None else self.convert(node.this)
        result = self.convert(node.args.get("default") or exp.Null())
        for branch in reversed(node.args["ifs"]):
            condition = self.convert(branch.this)
            if operand is not None:
                condition = operand == condition
            result = e.if_then_else(condition, self.convert(branch.args["true"]), result)
        return result

    def _filter(self, node):
        """agg(...) FILTER (WHERE condition): the aggregate over the rows meeting it."""
        return e.Expression(
            "agg_filter", self.convert(node.this), self.convert(node.expression.this)
        )

    def _like(self, node):
        return self.convert(node.this).like(self.convert(node.expression))

    def _in(self, node):
        return self.convert(node.this).in_(*(self.convert(v) for v in node.expressions))

    def _between(self, node):
        return self.convert(node.this).between(
            self.convert(node.args["low"]), self.convert(node.args["high"])
        )

    def _concat(self, node):
        return e.concat(*(self.convert(a) for a in node.expressions))

    def _coalesce(self, node):
        return e.coalesce(self.convert(node.this), *(self.convert(a) for a in node.expressions))

    def _if(self, node):
        return e.if_then_else(
            self.convert(node.this),
            self.convert(node.args["true"]),
            self.convert(node.args.get("false") or exp.Null()),
        )

    def _window(self, node):
        """agg(...) OVER (PARTITION BY ... ORDER BY ts ROWS|RANGE ... PRECEDING)."""
        from weir.table.window import OverWindow

        if isinstance(node.this, exp.RowNumber):
            not_supported("ROW_NUMBER() outside a Top-N (WHERE rn <= N) subquery")
        order = node.args.get("order")
        if order is None or len(order.expressions) != 1:
            not_supported("an OVER window not ordered by one time attribute")
        spec = node.args.get("spec")
        preceding = e.Expression("unbounded_range")
        if spec is not None:
            start, kind = spec.args.get("start"), spec.args.get("kind", "ROWS").upper()
            end = spec.args.get("end")
            if end is not None and str(end).upper() != "CURRENT ROW":
                not_supported("an OVER window ending elsewhere than at CURRENT ROW")
            if isinstance(start, exp.Literal):
                preceding = (
                    e.Expression("row_interval", int(start.name))
                    if kind == "ROWS"
                    else e.Expression("interval", int(start.name))
                )
            elif isinstance(start, exp.Interval):
                from weir.table.sql import interval_millis

                preceding = e.Expression("interval", interval_millis(start))
            elif str(start).upper() == "UNBOUNDED":
                preceding = e.Expression("unbounded_row" if kind == "ROWS" else "unbounded_range")
            else:
                not_supported(f"the OVER window bound '{spec.sql()}'")
        window = OverWindow(
            [self.convert(p) for p in node.args.get("partition_by") or []],
            self.convert(order.expressions[0].this),
            preceding,
        )
        return e.Expression("over", self.convert(node.this), window)

    def _builtin(self, name, *args):
        return e.Expression("builtin", name, tuple(self.convert(a) for a in args if a))

    def _round(self, node):
        return self._builtin("ROUND", node.this, node.args.get("decimals"))

    def _uuid(self, node):  # noqa: ARG002
        return e.Expression("builtin", "UUID", ())

    def _hour(self, node):
        return self._builtin("HOUR", node.this)

    def _regexpextract(self, node):
        # (sqlglot reads Flink's third argument, the group, as its `position`)
        return self._builtin(
            "REGEXP_EXTRACT",
            node.this,
            node.expression,
            node.args.get("group") or node.args.get("position"),
        )

    def _substring(self, node):
        start, length = node.args.get("start"), node.args.get("length")
        args = [self.convert(start)] + ([self.convert(length)] if length is not None else [])
        return e.Expression("substring", self.convert(node.this), *args)

    def _array(self, node):
        return e.Expression("array", *(self.convert(a) for a in node.expressions))

    def _jsonvalue(self, node):
        condition = node.args.get("on_condition")
        if node.args.get("returning") or (condition is not None and any(condition.args.values())):
            not_supported(f"'{node.sql()}' (JSON_VALUE with RETURNING or ON EMPTY/ERROR)")
        return self.convert(node.this).json_value(node.args["path"].name)

    def _dpipe(self, node):  # (a || b: CONCAT's NULL rule, NULL if either is)
        return e.Expression("concat", (self.convert(node.this), self.convert(node.expression)))

    def _split(self, node):
        return self._builtin("SPLIT", node.this, node.expression)

    def _replace(self, node):
        return self._builtin("REPLACE", node.this, node.expression, node.args.get("replacement"))

    def _anonymous(self, node):
        from weir.table.builtins import FUNCTIONS, time_unit

        name = node.name
        prefix, _, suffix = name.upper().partition("_")
        if prefix in ("TUMBLE", "HOP", "SESSION") and suffix in (
            "START",
            "END",
            "ROWTIME",
            "PROCTIME",
        ):
            # a legacy group window's property (GROUP BY TUMBLE(ts, ...)): see sql_query
            return e.Expression(f"window_{suffix.lower()}", e.col("$w"))
        if name.upper() in ("TIMESTAMPDIFF", "TIMESTAMPADD"):
            time_unit(node.expressions[0].name)  # an unknown unit fails here, not per row
        if name.upper() in FUNCTIONS and name.lower() not in self.t_env.functions:
            return e.Expression(
                "builtin", name.upper(), tuple(self.convert(a) for a in node.expressions)
            )
        if name.upper() == "ROW" and name.lower() not in self.t_env.functions:
            return e.Expression("row", *(self.convert(a) for a in node.expressions))
        if name.upper() == "LISTAGG" and name.lower() not in self.t_env.functions:
            return e.Expression("list_agg", *(self.convert(a) for a in node.expressions))
        if name.upper() == "JSON_VALUE":
            value, path = node.expressions[:2]
            return self.convert(value).json_value(path.name)
        return self.function(name)(*(self.convert(a) for a in node.expressions))


def _aggregate(op):
    return lambda self, node: e.Expression(op, self.convert(node.this))


def _unary(op):
    return lambda self, node: e.Expression(op, self.convert(node.this))


_kind: type
for _kind, _op in _AGGREGATES.items():
    setattr(SqlExpressions, "_" + _kind.__name__.lower(), _aggregate(_op))
for _kind, _op in _UNARY.items():
    setattr(SqlExpressions, "_" + _kind.__name__.lower(), _unary(_op))
