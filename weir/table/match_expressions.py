"""The expressions of MATCH_RECOGNIZE's DEFINE and MEASURES: row expressions over the
rows a (partial) match has mapped to its pattern variables.

A reference to rows is replaced by a value computed from the match before the
expression runs (a "navigation"):

- `A.price`: the last row mapped to A (in A's own DEFINE: the row being tried); `price`,
  with no variable: the last row of the match so far (in DEFINE: the row being tried);
- `LAST(A.price, n)` and `FIRST(A.price, n)`: the n-th row of A from its last or first
  (n defaults to 0); the expression inside names one variable at most;
- `SUM`, `AVG`, `MIN`, `MAX`, `COUNT` of an expression over A's rows (or all rows);
- `MATCH_ROWTIME()`: the time attribute of the match's last row; `MATCH_PROCTIME()`:
  the processing time the match is made at (a processing-time attribute).

The rest of the expression is an ordinary row expression (weir.table.evaluate) over the
navigations' values. Flink's rules are kept: no PREV/NEXT (physical offsets), no
DISTINCT aggregates, one pattern variable per navigation.
"""

from sqlglot import exp

from weir.table.aggregates import accumulator_of
from weir.table.evaluate import Column, compile_expression, not_supported
from weir.table.expressions import lit
from weir.table.types import DataTypes

AGGREGATES = (exp.Sum, exp.Avg, exp.Min, exp.Max, exp.Count)


class Navigation:
    """A value of a match: `function` of one row (FIRST/LAST/a reference) or an
    accumulator over rows (an aggregate), over the rows of `variable` (None: all)."""

    def __init__(self, variable, function=None, position=-1, accumulator=None):
        self.variable, self.function = variable, function
        self.position, self.accumulator = position, accumulator

    def value(self, rows):
        if self.accumulator is not None:
            acc = self.accumulator.create()
            for values in rows:
                acc = self.accumulator.accumulate(acc, values)
            return self.accumulator.value(acc)
        position = self.position
        if position >= len(rows) or -position > len(rows):
            return None
        return self.function(rows[position])


class MatchExpression:
    """A DEFINE condition or a MEASURES expression: `evaluate(rows_of)` where rows_of(var)
    gives the value tuples of a variable's rows (None: all rows) in match order."""

    def __init__(self, navigations, compiled):
        self.navigations, self.function = navigations, compiled.function
        self.data_type = compiled.data_type

    def evaluate(self, rows_of):
        cache = {}
        values = []
        for navigation in self.navigations:
            variable = navigation.variable
            if variable not in cache:
                cache[variable] = rows_of(variable)
            values.append(navigation.value(cache[variable]))
        return self.function(tuple(values))


class MatchExpressions:
    """Compiles DEFINE and MEASURES items of one MATCH_RECOGNIZE over `columns` (the
    input's) with its pattern `variables`; `planner` converts SQL into expressions."""

    def __init__(self, planner, table, variables, time_column):
        self.planner, self.table, self.variables = planner, table, variables
        self.columns, self.time_column = table._node.columns, time_column

    def compile(self, node) -> MatchExpression:
        from weir.table.sql_query import Scope

        navigations: list = []
        rewritten = node.copy().transform(lambda n: self._navigation(n, navigations), copy=False)
        names = [f"$nav{i}" for i in range(len(navigations))]
        columns = [Column(name, data_type) for name, (_, data_type) in zip(names, navigations)]
        expression = self.planner.convert(rewritten, Scope((None, n, n) for n in names))
        compiled = compile_expression(expression, columns)
        return MatchExpression([n for n, _ in navigations], compiled)

    def _navigation(self, node, found):
        """`node` replaced by a column of its navigation's value (added to `found`),
        or as it is."""
        if isinstance(node, (exp.First, exp.Last)):
            offset = node.args.get("expression")
            offset = 0 if offset is None else int(offset.name)
            variable, compiled = self._of_one_variable(node.this)
            position = offset if isinstance(node, exp.First) else -1 - offset
            navigation = Navigation(variable, compiled.function, position)
            data_type = compiled.data_type.nullable()
        elif isinstance(node, AGGREGATES):
            navigation, data_type = self._aggregate(node)
        elif isinstance(node, exp.Anonymous) and node.name.upper() in ("PREV", "NEXT"):
            raise NotImplementedError(
                "Flink does not support physical offsets within "
                "partition (PREV/NEXT); use LAST(A.x, n)"
            )
        elif isinstance(node, exp.Anonymous) and node.name.upper() == "MATCH_ROWTIME":
            index = [c.name for c in self.columns].index(self.time_column)
            navigation = Navigation(None, lambda values: values[index])
            data_type = self.columns[index].data_type
        elif isinstance(node, exp.Anonymous) and node.name.upper() == "MATCH_PROCTIME":
            navigation = Navigation(None, _processing_time)
            data_type = DataTypes.TIMESTAMP_LTZ(3, False)
        elif isinstance(node, exp.Column) and not isinstance(node.this, exp.Star):
            variable, compiled = self._of_one_variable(node)
            navigation, data_type = Navigation(variable, compiled.function), compiled.data_type
            if variable is not None:
                data_type = data_type.nullable()  # (an optional variable may have no row)
        else:
            return node
        found.append((navigation, data_type))
        return exp.column(f"$nav{len(found) - 1}")

    def _aggregate(self, node):
        inner = node.this
        if isinstance(inner, exp.Distinct):
            not_supported("DISTINCT aggregations in MATCH_RECOGNIZE (as in Flink)")
        if inner is None or isinstance(inner, exp.Star):
            accumulator, _ = accumulator_of(("count_star", [lit(1)]), self.columns)
            return Navigation(None, accumulator=accumulator), DataTypes.BIGINT(False)
        variable, _ = self._of_one_variable(inner)
        call = self.planner.convert(_unqualified(node), self._scope())
        accumulator, data_type = accumulator_of((call.op, list(call.args)), self.columns)
        return Navigation(variable, accumulator=accumulator), data_type

    def _of_one_variable(self, node):
        """(the pattern variable `node` names, its expression compiled over a row)."""
        qualifiers = {c.table for c in node.find_all(exp.Column) if c.table}
        for qualifier in qualifiers:
            if qualifier.upper() not in self.variables:
                raise ValueError(
                    f"Table '{qualifier}' not found: no pattern variable "
                    f"{qualifier} in the PATTERN "
                    f"({', '.join(self.variables.values())})"
                )
        if len({q.upper() for q in qualifiers}) > 1:
            raise ValueError(
                f"'{node.sql()}' references several pattern variables: "
                "a navigation or aggregation reads one"
            )
        variable = self.variables[qualifiers.pop().upper()] if qualifiers else None
        expression = self.planner.convert(_unqualified(node), self._scope())
        return variable, compile_expression(expression, self.columns)

    def _scope(self):
        from weir.table.sql_query import Scope

        return Scope.of(None, self.table)


def _processing_time(values):  # noqa: ARG001 (a row of the match: not needed)
    from weir.table.builtins import FUNCTIONS

    return FUNCTIONS["PROCTIME"][0]()


def _unqualified(node):
    copy = node.copy()
    for column in copy.find_all(exp.Column):
        column.set("table", None)
    return copy
