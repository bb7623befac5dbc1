"""PyFlink's Table: relational operations that each return a new Table over a larger
logical plan (weir.table.logical); `execute`, `execute_insert` and `to_pandas` run it.
"""

import itertools
from typing import Any, Optional

from weir.common.gaps import PyFlinkGaps
from weir.table import logical
from weir.table.aggregation import (
    aggregate_select,
    flat_aggregate,
    over_select,
    udaf_aggregate,
    window_select,
)
from weir.table.evaluate import Column, compile_expression
from weir.table.expressions import Expression, col
from weir.table.types import DataTypes

_UNNAMED = itertools.count()


def _as_expressions(fields, t_env=None):
    """`fields` as Expressions (a name: its column), functions called by name resolved
    among `t_env`'s registered functions."""
    expressions = [col(f) if isinstance(f, str) else f for f in fields]
    return expressions if t_env is None else [resolved(e, t_env) for e in expressions]


def _of(table, fields):
    """`fields` as Expressions over `table` (its environment's functions by name)."""
    return _as_expressions(fields, table._t_env)


def resolved(expr, t_env):
    """`expr` with each `call("name", ...)` calling the function registered as `name`
    (create_temporary_function and the like)."""
    if not isinstance(expr, Expression):
        return expr
    args = tuple(
        tuple(resolved(a, t_env) for a in arg) if isinstance(arg, tuple) else resolved(arg, t_env)
        for arg in expr.args
    )
    if expr.op == "call" and isinstance(args[0], str):
        function = t_env.functions.get(args[0].lower())
        if function is None:
            raise ValueError(
                f"no function named '{args[0]}': register it first "
                "(create_temporary_function or CREATE FUNCTION)"
            )
        args = (function,) + args[1:]
    if all(a is b for a, b in zip(args, expr.args)):
        return expr
    return Expression(expr.op, *args)


class Table(PyFlinkGaps):
    _pyflink_class = "Table"
    _pyflink_gaps = frozenset(["to_changelog_stream"])
    _declared: Any  # a declared table's schema (set by from_path; unset: none)

    def __init__(self, node: logical.Node, t_env):
        self._node = node
        self._t_env = t_env
        self._name: Optional[str] = None

    # -- columns --------------------------------------------------------------------
    def __getattr__(self, name):
        if not name.startswith("_") and any(c.name == name for c in self._node.columns):
            return col(name)
        return super().__getattr__(name)

    def __str__(self):
        """The table's name in SQL (PyFlink registers it as `UnnamedTable$N`)."""
        if self._name is None:
            self._name = f"UnnamedTable${next(_UNNAMED)}"
            self._t_env.register_table(self._name, self)
        return self._name

    def get_schema(self):
        return TableSchema(self._node.columns, getattr(self, "_declared", None))

    def get_resolved_schema(self):
        return TableSchema(self._node.columns, getattr(self, "_declared", None), True)

    def print_schema(self) -> None:
        print(self.get_resolved_schema())

    def _derive(self, node: logical.Node) -> "Table":
        return Table(node, self._t_env)

    # -- projections and filters ----------------------------------------------------
    def select(self, *fields) -> "Table":
        expressions = _as_expressions(fields, self._t_env)
        if any(logical.contains_aggregate(e) for e in expressions):
            return self._derive(aggregate_select(self._node, [], expressions))
        return self._derive(logical.project(self._node, _expand_star(expressions, self._node)))

    def where(self, predicate: Expression) -> "Table":
        predicate = resolved(predicate, self._t_env)
        data_type = compile_expression(predicate, self._node.columns).data_type
        if data_type.name != "BOOLEAN":
            raise ValueError(f"a filter needs a BOOLEAN condition, got {data_type}")
        projections = [col(c.name) for c in self._node.columns]
        return self._derive(
            logical.Calc(list(self._node.columns), self._node, projections, predicate)
        )

    filter = where

    def add_columns(self, *fields) -> "Table":
        kept = [col(c.name) for c in self._node.columns]
        return self._derive(
            logical.project(self._node, kept + _as_expressions(fields, self._t_env))
        )

    def add_or_replace_columns(self, *fields) -> "Table":
        fields = _as_expressions(fields, self._t_env)
        new = {compile_expression(f, self._node.columns).name: f for f in fields}
        kept = [new.pop(c.name) if c.name in new else col(c.name) for c in self._node.columns]
        return self._derive(logical.project(self._node, kept + list(new.values())))

    def drop_columns(self, *fields) -> "Table":
        dropped = {f if isinstance(f, str) else f.args[0] for f in fields}
        unknown = dropped - {c.name for c in self._node.columns}
        if unknown:
            raise ValueError(f"cannot drop unknown columns {sorted(unknown)}")
        return self._derive(
            logical.project(
                self._node, [col(c.name) for c in self._node.columns if c.name not in dropped]
            )
        )

    def rename_columns(self, *fields) -> "Table":
        renames = {f.args[0].args[0]: f.args[1][0] for f in fields if f.op == "alias"}
        return self._derive(
            logical.project(
                self._node,
                [
                    col(c.name).alias(renames[c.name]) if c.name in renames else col(c.name)
                    for c in self._node.columns
                ],
            )
        )

    def alias(self, field: str, *fields: str) -> "Table":
        """The table's first columns renamed (Flink's: no more names than columns; the
        columns after them keep theirs)."""
        names = (field,) + fields
        if len(names) > len(self._node.columns):
            raise ValueError(
                "Aliasing more fields than we actually have: alias() names "
                f"{len(names)} columns; the table has "
                f"{len(self._node.columns)}"
            )
        names += tuple(c.name for c in self._node.columns[len(names) :])
        return self._derive(
            logical.project(
                self._node, [col(c.name).alias(n) for c, n in zip(self._node.columns, names)]
            )
        )

    def union_all(self, right: "Table") -> "Table":
        """Both tables' rows (Flink's UNION ALL): the same number of columns, of the same
        types; the result has this table's column names."""
        mine, theirs = self._node.columns, right._node.columns
        if len(mine) != len(theirs) or any(
            a.data_type.name != b.data_type.name for a, b in zip(mine, theirs)
        ):
            raise ValueError(
                "union_all() needs tables of the same column types: "
                f"[{', '.join(str(c.data_type) for c in mine)}] and "
                f"[{', '.join(str(c.data_type) for c in theirs)}]"
            )
        renamed = (
            right
            if [c.name for c in theirs] == [c.name for c in mine]
            else right.select(*(col(b.name).alias(a.name) for a, b in zip(mine, theirs)))
        )
        return self._derive(logical.Union(list(mine), [self._node, renamed._node]))

    def union(self, right: "Table") -> "Table":
        """UNION: both tables' rows without duplicates."""
        return self.union_all(right).distinct()

    def intersect(self, right: "Table") -> "Table":
        """The distinct rows both tables have (a changelog: weir.table.set_operations)."""
        return self._set_operation(right, "intersect", False)

    def intersect_all(self, right: "Table") -> "Table":
        """Each row as often as both tables have it."""
        return self._set_operation(right, "intersect", True)

    def minus(self, right: "Table") -> "Table":
        """The distinct rows of this table that `right` does not have (SQL's EXCEPT)."""
        return self._set_operation(right, "minus", False)

    def minus_all(self, right: "Table") -> "Table":
        """Each row as often as this table has it more than `right` (EXCEPT ALL)."""
        return self._set_operation(right, "minus", True)

    def _set_operation(self, right, kind, keep_all):
        if self._t_env.streaming:  # (Flink's Table API takes them in batch mode only)
            raise ValueError(
                f"The {kind.upper()} operation on two unbounded tables is currently not supported."
            )
        from weir.table.set_operations import set_operation

        return set_operation(self, right, kind, keep_all)

    def distinct(self) -> "Table":
        keys = [col(c.name) for c in self._node.columns]
        return self._derive(logical.Aggregate(list(self._node.columns), self._node, keys, []))

    def limit(self, fetch: int, offset: int = 0) -> "Table":
        from weir.table.sort import Sort

        if isinstance(self._node, Sort):
            return self._derive(self._node.limited(fetch, offset))
        if not self._t_env.streaming and self._node.changelog:  # (of its final rows)
            return self._derive(
                Sort(list(self._node.columns), self._node, [], offset, fetch, nulls_high=True)
            )
        return self._derive(logical.Limit(list(self._node.columns), self._node, fetch, offset))

    # -- sorting (BATCH mode: weir.table.sort) ----------------------------------------
    def order_by(self, *fields) -> "Table":
        """The table's rows sorted by `fields` (`col('a').desc`, `col('b').asc`, or
        columns: ascending); `offset` and `fetch` then cut them."""
        from weir.table.sort import Sort

        keys = [_sort_key(e) for e in _of(self, fields)]
        if self._t_env.streaming:  # (by the event-time attribute: Flink's temporal sort)
            from weir.table.temporal_sort import temporal_sort

            return self._derive(temporal_sort(self._node, keys, nulls_high=True))
        return self._derive(Sort(list(self._node.columns), self._node, keys, nulls_high=True))

    def offset(self, offset: int) -> "Table":
        return self._derive(self._sorted("offset").limited(None, offset))

    def fetch(self, fetch: int) -> "Table":
        return self._derive(self._sorted("fetch").limited(fetch))

    def _sorted(self, operation):
        from weir.table.sort import Sort

        if not isinstance(self._node, Sort):
            raise ValueError(
                f"A limit operation must be preceded by a sort operation "
                f"(order_by(...) before {operation}(...))"
            )
        return self._node

    # -- grouping -------------------------------------------------------------------
    def group_by(self, *fields) -> "GroupedTable":
        return GroupedTable(self, _as_expressions(fields, self._t_env))

    def aggregate(self, func) -> "AggregatedTable":
        return AggregatedTable(self, [], func)

    def flat_aggregate(self, func) -> "FlatAggregateTable":
        return FlatAggregateTable(self, [], func)

    # -- windows --------------------------------------------------------------------
    def window(self, window) -> "GroupWindowedTable":
        return GroupWindowedTable(self, window)

    def over_window(self, *over_windows) -> "OverWindowedTable":
        return OverWindowedTable(self, list(over_windows))

    # -- joins and functions --------------------------------------------------------
    def _join(self, right: "Table", predicate, kind: str) -> "Table":
        columns = list(self._node.columns) + list(right._node.columns)
        logical._check_unique(columns)
        return self._derive(logical.Join(columns, self._node, right._node, predicate, kind))

    def join(self, right, join_predicate=None) -> "Table":
        return self._join(right, join_predicate, "inner")

    def left_outer_join(self, right, join_predicate=None) -> "Table":
        return self._join(right, join_predicate, "left")

    def right_outer_join(self, right, join_predicate) -> "Table":
        return self._join(right, join_predicate, "right")

    def full_outer_join(self, right, join_predicate) -> "Table":
        return self._join(right, join_predicate, "full")

    def join_lateral(self, table_function_call, join_predicate=None) -> "Table":
        return self._lateral(table_function_call, "inner", join_predicate)

    def left_outer_join_lateral(self, table_function_call, join_predicate=None) -> "Table":
        return self._lateral(table_function_call, "left", join_predicate)

    def _lateral(self, call, kind, predicate):
        names, call = _aliased(resolved(call, self._t_env))
        function, args = _table_function(call, self._node.columns, whole_row=True)
        names = names or function.names or [f"f{i}" for i in range(len(function.result_type))]
        if len(names) != len(function.result_type):
            raise ValueError(
                f"alias() names {len(names)} columns; the table function "
                f"'{function.name}' gives {len(function.result_type)}"
            )
        extra = [Column(n, t) for n, t in zip(names, function.result_type)]
        condition = (
            None if predicate is None or kind != "left" else resolved(predicate, self._t_env)
        )
        node = logical.Correlate(
            list(self._node.columns) + extra, self._node, function, args, kind, condition=condition
        )
        table = self._derive(node)
        return table if predicate is None or kind == "left" else table.where(predicate)

    def map(self, func) -> "Table":
        expr = func if isinstance(func, Expression) else func(Expression("input_row"))
        expr = resolved(expr, self._t_env)
        compiled = compile_expression(expr, self._node.columns)
        data_type = compiled.data_type
        if data_type.name == "ROW":
            names = data_type.field_names()
            projections = [_field_of(expr, i) for i in range(len(names))]
            columns = [Column(f.name, f.data_type) for f in data_type.fields]
            inner = logical.Calc([Column("_row", data_type)], self._node, [expr])
            return self._derive(logical.Calc(columns, inner, projections))
        return self._derive(logical.Calc([Column("f0", data_type)], self._node, [expr]))

    def flat_map(self, func) -> "Table":
        function, args = _table_function(
            resolved(func, self._t_env), self._node.columns, whole_row=True
        )
        names = function.names or [f"f{i}" for i in range(len(function.result_type))]
        columns = [Column(n, t) for n, t in zip(names, function.result_type)]
        return self._derive(
            logical.Correlate(columns, self._node, function, args, "inner", replace=True)
        )

    # -- running --------------------------------------------------------------------
    def execute(self):
        return self._t_env.execute_table(self)

    def execute_insert(self, table_path_or_descriptor, overwrite: bool = False):
        return self._t_env.insert_into(table_path_or_descriptor, self)

    def insert_into(self, table_path_or_descriptor, overwrite: bool = False):
        """Flink's TablePipeline: the insert, run by `execute()`."""
        return TablePipeline(self, table_path_or_descriptor)

    def explain(self, *extra_details) -> str:
        return self._t_env.explain_table(self)

    def print_explain(self, *extra_details) -> None:
        print(self.explain(*extra_details))

    def to_pandas(self):
        return self._t_env.to_pandas(self)

    def to_spark(self):
        """The table as a Spark DataFrame (weir's addition; insert-only tables)."""
        return self._t_env.to_spark(self)


def _field_of(expr, index):
    return Expression("field_of", Expression("col", "_row"), index)


def _sort_key(expr):
    """(expression, descending) of an order_by field."""
    if expr.op in ("asc", "desc"):
        return expr.args[0], expr.op == "desc"
    return expr, False


def _aliased(call):
    """(the names an `.alias(...)` gives a table function's columns, or None; the
    call)."""
    if isinstance(call, Expression) and call.op == "alias":
        return list(call.args[1]), call.args[0]
    return None, call


def _table_function(call, columns, whole_row=False):
    """(PythonFunction, argument expressions) of a table function given as a call
    (`split(col('a'))`) or alone (its arguments: every column, or the whole row)."""
    if isinstance(call, Expression):
        function, args = call.args
    else:
        function = call
        args = (Expression("input_row"),) if whole_row else tuple(col(c.name) for c in columns)
    if getattr(function, "kind", None) != "table":
        raise TypeError(f"expected a table function (@udtf), got {function!r}")
    return function, list(args)


def _expand_star(expressions, node):
    out: list = []
    for expr in expressions:
        if expr.op == "col" and expr.args[0] == "*":
            out.extend(col(c.name) for c in node.columns)
        else:
            out.append(expr)
    return out


class TablePipeline:
    """An insert of a table into a sink table, not yet run (Table.insert_into)."""

    def __init__(self, table, target):
        self._table, self._target = table, target

    def execute(self):
        return self._table.execute_insert(self._target)

    def explain(self, *extra_details) -> str:
        return self._table.explain(*extra_details)

    def print_explain(self, *extra_details) -> None:
        print(self.explain(*extra_details))


class GroupedTable:
    def __init__(self, table: Table, keys):
        self._table, self._keys = table, keys

    def select(self, *fields) -> Table:
        node = aggregate_select(self._table._node, self._keys, _of(self._table, fields))
        return self._table._derive(node)

    def aggregate(self, func) -> "AggregatedTable":
        return AggregatedTable(self._table, self._keys, func)

    def flat_aggregate(self, func) -> "FlatAggregateTable":
        return FlatAggregateTable(self._table, self._keys, func)


class AggregatedTable:
    def __init__(self, table, keys, func):
        self._table, self._keys = table, keys
        self._func = resolved(func, table._t_env)

    def select(self, *fields) -> Table:
        node = udaf_aggregate(self._table._node, self._keys, self._func)
        return self._table._derive(
            logical.project(node, _expand_star(_of(self._table, fields), node))
        )


class FlatAggregateTable(AggregatedTable):
    def select(self, *fields) -> Table:
        node = flat_aggregate(self._table._node, self._keys, self._func)
        return self._table._derive(
            logical.project(node, _expand_star(_of(self._table, fields), node))
        )


class GroupWindowedTable:
    def __init__(self, table: Table, window):
        self._table, self._window = table, window

    def group_by(self, *fields) -> "WindowGroupedTable":
        return WindowGroupedTable(self._table, self._window, _of(self._table, fields))


class WindowGroupedTable:
    def __init__(self, table, window, keys):
        self._table, self._window, self._keys = table, window, keys

    def select(self, *fields) -> Table:
        return self._table._derive(
            window_select(self._table._node, self._window, self._keys, _of(self._table, fields))
        )


class OverWindowedTable:
    def __init__(self, table, windows):
        self._table, self._windows = table, windows

    def select(self, *fields) -> Table:
        return self._table._derive(
            over_select(self._table._node, self._windows, _of(self._table, fields))
        )


class TableSchema:
    """A table's columns, printed as Flink prints a TableSchema (`get_schema()`), or as it
    prints a resolved schema (`resolved`: `get_resolved_schema()`)."""

    def __init__(self, columns, declared=None, resolved=False):
        self.columns, self.declared = columns, declared  # (declared: the table's Schema)
        self.resolved = resolved

    def get_field_names(self):
        return [c.name for c in self.columns]

    def get_field_data_types(self):
        return [c.data_type for c in self.columns]

    def __str__(self):
        from weir.table.schema_text import schema_text

        return schema_text(self.columns, self.declared, legacy=not self.resolved)


__all__ = ["Table", "GroupedTable", "TableSchema", "DataTypes"]
