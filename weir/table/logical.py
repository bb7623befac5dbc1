"""The logical plan of the Table API and SQL: a tree of relational nodes, each with its
output columns. Table methods and SQL statements both build it (weir.table.table,
weir.table.sql); weir.table.planner runs it.

Every node's rows carry a RowKind (+I, -U, +U, -D): `changelog` says whether a node's
output may hold anything but inserts, which the operators above it must then handle.
"""

from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Tuple

from weir.table.evaluate import Column, compile_expression
from weir.table.expressions import AGGREGATES, Expression


@dataclass
class Node:
    columns: List[Column]

    @property
    def inputs(self) -> list:
        return []

    @property
    def changelog(self) -> bool:
        return any(node.changelog for node in self.inputs)

    def describe(self) -> str:
        return type(self).__name__


def digest(node: Node, memo: dict) -> tuple:
    """A key equal for two nodes that compute the same rows: the node's class and
    attributes, its inputs' digests; functions and other objects count by identity, a
    connector by its options (Flink's sub-plan reuse: a query that names one subquery
    or table twice computes it once). `memo` keeps the digests made (by node id)."""
    key = id(node)
    if key not in memo:
        memo[key] = (type(node).__name__,) + tuple(
            (name, _digest_of(value, memo)) for name, value in sorted(vars(node).items())
        )
    return memo[key]


_PLAIN = (str, int, float, bool, type(None))


def _digest_of(value, memo):
    if isinstance(value, Node):
        return digest(value, memo)
    if isinstance(value, Expression):
        return ("expr", value.op, _digest_of(value.args, memo))
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, tuple(_digest_of(v, memo) for v in value))
    if isinstance(value, _PLAIN) or type(value).__module__ in ("decimal", "datetime"):
        return (type(value).__name__, value)
    if isinstance(value, Column) or type(value).__name__ == "DataType":
        return ("repr", repr(value))
    if isinstance(getattr(value, "options", None), dict):  # a connector
        return (type(value).__name__, tuple(sorted(value.options.items())))
    return ("id", id(value))


class UnaryNode(Node):
    """A node of one input (the window, over and rank nodes)."""

    def __init__(self, columns, input):
        super().__init__(columns)
        self.input = input

    @property
    def inputs(self):
        return [self.input]


@dataclass
class Values(Node):
    rows: list = field(default_factory=list)

    def describe(self):
        return f"Values(fields=[{', '.join(c.name for c in self.columns)}], rows={len(self.rows)})"


@dataclass
class Scan(Node):
    """A table of a connector (weir.table.connectors); `rowtime`: its time attribute,
    with watermarks `delay_ms` behind."""

    path: str = ""
    connector: Any = None
    rowtime: Optional[str] = None
    delay_ms: int = 0
    physical: Optional[List[Column]] = None  # what the connector reads (computed columns)
    projections: Optional[List[Expression]] = None  # the columns from the physical ones

    @property
    def changelog(self) -> bool:  # (a connector that reads updates and deletes)
        return getattr(self.connector, "produces_changelog", False)

    def describe(self):
        return (
            f"TableSourceScan(table=[{self.path}], fields=["
            f"{', '.join(c.name for c in self.columns)}])"
        )


@dataclass
class Calc(Node):
    """Projection and filter: `projections` over the input's columns, rows kept where
    `condition` (if any) is TRUE; row kinds pass through."""

    input: Node = None  # type: ignore[assignment]  # (always given)
    projections: List[Expression] = field(default_factory=list)
    condition: Optional[Expression] = None

    @property
    def inputs(self):
        return [self.input]

    def describe(self):
        where = "" if self.condition is None else f", where=[{_show(self.condition)}]"
        return f"Calc(select=[{', '.join(c.name for c in self.columns)}]{where})"


def passed_column(expr: Expression, through: Tuple[str, ...] = ("alias",)) -> Optional[str]:
    """The input column `expr` passes on unchanged, seen through aliases (and the other
    wrappers in `through`, e.g. a cast), else None: the lineage of one output column."""
    while expr.op in through:
        expr = expr.args[0]
    return expr.args[0] if expr.op == "col" else None


def passed_columns(calc: Calc, through: Tuple[str, ...] = ("alias",)) -> Dict[str, Optional[str]]:
    """{output column: the input column it passes on unchanged, or None} of a Calc."""
    return {
        column.name: passed_column(expr, through)
        for column, expr in zip(calc.columns, calc.projections)
    }


@dataclass
class Aggregate(Node):
    """Group aggregation: `keys` (expressions over the input) and `calls`, each an
    aggregate's name ('count', 'sum', ..., or a Python AggregateFunction) with its
    argument expressions. Emits a changelog: +I, then -U/+U as a group's result changes."""

    input: Node = None  # type: ignore[assignment]  # (always given)
    keys: List[Expression] = field(default_factory=list)
    calls: list = field(default_factory=list)  # [(aggregate, [argument expressions])]
    table_aggregate: Any = None  # a table aggregate function (flat_aggregate)

    @property
    def changelog(self):
        return True

    @property
    def inputs(self):
        return [self.input]

    def describe(self):
        kind = "GroupTableAggregate" if self.table_aggregate else "GroupAggregate"
        return (
            f"{kind}(groupBy=[{', '.join(_show(k) for k in self.keys)}], "
            f"select=[{', '.join(c.name for c in self.columns)}])"
        )


@dataclass
class Limit(Node):
    input: Node = None  # type: ignore[assignment]  # (always given)
    fetch: int = 0
    offset: int = 0

    @property
    def inputs(self):
        return [self.input]

    def describe(self):
        return f"Limit(offset=[{self.offset}], fetch=[{self.fetch}])"


@dataclass
class Join(Node):
    """A regular join: `kind` inner, left, right or full; equi-keys found in
    `condition` partition both inputs, the rest of it is checked per pair."""

    left: Node = None  # type: ignore[assignment]  # (always given)
    right: Node = None  # type: ignore[assignment]  # (always given)
    condition: Optional[Expression] = None
    kind: str = "inner"

    @property
    def inputs(self):
        return [self.left, self.right]

    @property
    def changelog(self):
        if self.flavour != "Join":
            return False  # (window and interval joins insert their rows once)
        return self.kind != "inner" or super().changelog

    @property
    def flavour(self) -> str:
        """'WindowJoin', 'IntervalJoin' (weir.table.window_join, interval_join) or 'Join'."""
        from weir.table.interval_join import interval_bounds
        from weir.table.planner import window_join_end

        if window_join_end(self) is not None:
            return "WindowJoin"
        return "IntervalJoin" if interval_bounds(self) is not None else "Join"

    def describe(self):
        on = "true" if self.condition is None else _show(self.condition)
        return f"{self.flavour}(joinType=[{self.kind.capitalize()}Join], where=[{on}])"


@dataclass
class Union(Node):
    """UNION ALL: every input's rows, with their row kinds (the inputs' columns must have
    the same names and count)."""

    parts: list = field(default_factory=list)

    @property
    def inputs(self):
        return list(self.parts)

    def describe(self):
        return f"Union(all=[true], union=[{', '.join(c.name for c in self.columns)}])"


@dataclass
class Correlate(Node):
    """A table function on each row (join_lateral, flat_map): the input's columns (unless
    `replace`) and each row the function yields; `kind` inner or left."""

    input: Node = None  # type: ignore[assignment]  # (always given)
    function: Any = None
    args: List[Expression] = field(default_factory=list)
    kind: str = "inner"
    replace: bool = False
    condition: Optional[Expression] = None  # (a LEFT join's: on the joined columns)

    @property
    def inputs(self):
        return [self.input]

    def describe(self):
        return (
            f"Correlate(invocation=[{self.function.name}], "
            f"select=[{', '.join(c.name for c in self.columns)}], "
            f"joinType=[{self.kind.upper()}])"
        )


def _show(expr: Expression) -> str:
    if expr.op == "col":
        return expr.args[0]
    if expr.op == "lit":
        return repr(expr.args[0])
    if expr.op == "alias":
        return f"{_show(expr.args[0])} AS {expr.args[1][0]}"
    names = {
        "equals": "=",
        "not_equals": "<>",
        "less_than": "<",
        "greater_than": ">",
        "less_than_or_equal": "<=",
        "greater_than_or_equal": ">=",
        "and": "AND",
        "or": "OR",
        "plus": "+",
        "minus": "-",
        "times": "*",
        "divide": "/",
    }
    if expr.op in names and len(expr.args) == 2:
        return f"{_show(expr.args[0])} {names[expr.op]} {_show(expr.args[1])}"
    parts = [
        _show(a) if isinstance(a, Expression) else getattr(a, "name", repr(a))
        for a in expr.args
        if not isinstance(a, tuple)
    ]
    return f"{expr.op.upper()}({', '.join(parts)})"


def explain_tree(node: Node, depth: int = 0) -> str:
    """weir's plan of a table, one node per line, inputs indented below (docs/table.md)."""
    lines = [("   " * (depth - 1) + "+- " if depth else "") + node.describe()]
    for child in node.inputs:
        lines.append(explain_tree(child, depth + 1))
    return "\n".join(lines)


def project(node: Node, expressions: List[Expression], condition=None) -> Calc:
    """A Calc of `expressions` over `node`, named as Flink's Table API names them (a
    column's name, an alias, else _c<position>; SQL names its own: EXPR$<position>)."""
    columns = []
    times = {c.name for c in node.columns if c.time_attribute}
    procs = {c.name for c in node.columns if c.proctime}
    for position, expr in enumerate(expressions):
        compiled = compile_expression(expr, node.columns)
        source = expr.args[0] if expr.op == "alias" else expr
        named = source.args[0] if source.op == "col" else None
        columns.append(
            Column(
                compiled.name or f"_c{position}", compiled.data_type, named in times, named in procs
            )
        )
    _check_unique(columns)
    return Calc(columns, node, list(expressions), condition)


def _check_unique(columns: List[Column]) -> None:
    seen = set()
    for column in columns:
        if column.name in seen:
            raise ValueError(
                f"ambiguous column name '{column.name}': name the columns apart with alias(...)"
            )
        seen.add(column.name)


def contains_aggregate(expr) -> bool:
    if not isinstance(expr, Expression):
        return False
    if expr.op == "over":
        return False
    if expr.op in AGGREGATES or expr.op == "agg_filter":
        return True
    if expr.op == "call" and getattr(expr.args[0], "kind", None) == "aggregate":
        return True
    return any(
        contains_aggregate(a) or (isinstance(a, tuple) and any(contains_aggregate(b) for b in a))
        for a in expr.args
    )
