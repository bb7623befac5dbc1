"""SQL expressions (sqlglot trees) as Table API expressions (weir.table.expressions)."""

from sqlglot import exp

from weir.table import expressions as e
from weir.table.evaluate import not_supported
from weir.table.sql_types import parse_type

_BINARY = {exp.EQ: "equals", exp.NEQ: "not_equals", exp.LT: "less_than",
           exp.LTE: "less_than_or_equal", exp.GT: "greater_than",
           exp.GTE: "greater_than_or_equal", exp.Add: "plus", exp.Sub: "minus",
           exp.Mul: "times", exp.Div: "divide", exp.Mod: "mod", exp.And: "and",
           exp.Or: "or"}
_AGGREGATES = {exp.Sum: "sum", exp.Min: "min", exp.Max: "max", exp.Avg: "avg"}
_UNARY = {exp.Upper: "upper", exp.Lower: "lower", exp.Abs: "abs", exp.Length: "char_length",
          exp.Trim: "trim"}


class SqlExpressions:
    def __init__(self, t_env):
        self.t_env = t_env

    def function(self, name: str):
        function = self.t_env.functions.get(name.lower())
        if function is None:
            raise ValueError(f"No match found for function signature {name}(): register "
                             "it with create_temporary_function or CREATE FUNCTION")
        return function

    def convert(self, node) -> e.Expression:
        for kind, op in _BINARY.items():
            if type(node) is kind:
                return e.Expression(op, self.convert(node.this),
                                    self.convert(node.expression))
        handler = getattr(self, "_" + type(node).__name__.lower(), None)
        if handler is None:
            not_supported(f"the SQL expression '{node.sql()}'")
        return handler(node)

    def _column(self, node):
        return e.col(node.name)

    def _identifier(self, node):
        return e.col(node.name)

    def _paren(self, node):
        return self.convert(node.this)

    def _alias(self, node):
        return self.convert(node.this).alias(node.alias)

    def _literal(self, node):
        if node.is_string:
            return e.lit(node.name)
        text = node.name
        return e.lit(float(text) if any(c in text for c in ".eE") else int(text))

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
            not_supported("COUNT(DISTINCT ...)")
        return self.convert(arg).count

    def _like(self, node):
        return self.convert(node.this).like(self.convert(node.expression))

    def _in(self, node):
        return self.convert(node.this).in_(*(self.convert(v) for v in node.expressions))

    def _between(self, node):
        return self.convert(node.this).between(self.convert(node.args["low"]),
                                               self.convert(node.args["high"]))

    def _concat(self, node):
        return e.concat(*(self.convert(a) for a in node.expressions))

    def _coalesce(self, node):
        return e.coalesce(self.convert(node.this),
                          *(self.convert(a) for a in node.expressions))

    def _if(self, node):
        return e.if_then_else(self.convert(node.this), self.convert(node.args["true"]),
                              self.convert(node.args.get("false") or exp.Null()))

    def _anonymous(self, node):
        name = node.name
        if name.upper() == "JSON_VALUE":
            value, path = node.expressions[:2]
            return self.convert(value).json_value(path.name)
        return self.function(name)(*(self.convert(a) for a in node.expressions))


def _aggregate(op):
    return lambda self, node: e.Expression(op, self.convert(node.this))


def _unary(op):
    return lambda self, node: e.Expression(op, self.convert(node.this))


for _kind, _op in _AGGREGATES.items():
    setattr(SqlExpressions, "_" + _kind.__name__.lower(), _aggregate(_op))
for _kind, _op in _UNARY.items():
    setattr(SqlExpressions, "_" + _kind.__name__.lower(), _unary(_op))
