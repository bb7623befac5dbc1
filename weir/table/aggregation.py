"""Group aggregation in the logical plan: `group_by(keys).select(...)` becomes an
Aggregate node (its keys, then one column `EXPR$i` per aggregate call, Flink's names)
and a Calc above it computing the select list from those columns; `aggregate(udaf)`
and `flat_aggregate(udtaf)` give the function's result fields as columns."""

from weir.table import logical
from weir.table.aggregates import accumulator_of
from weir.table.evaluate import Column, compile_expression
from weir.table.expressions import AGGREGATES, Expression, col


def _key_columns(node, keys):
    columns = []
    for position, key in enumerate(keys):
        compiled = compile_expression(key, node.columns)
        columns.append(Column(compiled.name or f"EXPR${position}", compiled.data_type))
    return columns


def _call_of(expr):
    """(aggregate, [argument expressions]) if `expr` is an aggregate call, else None."""
    if expr.op in AGGREGATES:
        return expr.op, [expr.args[0]]
    if expr.op == "call" and getattr(expr.args[0], "kind", None) == "aggregate":
        return expr.args[0], list(expr.args[1])
    return None


def aggregate_select(node, keys, selects) -> logical.Node:
    """group_by(keys).select(selects) (keys [] : an aggregation of the whole table)."""
    key_columns = _key_columns(node, keys)
    calls, call_columns = [], []

    def replace(expr):
        if not isinstance(expr, Expression):
            return expr
        call = _call_of(expr)
        if call is not None:
            _, data_type = accumulator_of(call, node.columns)
            name = f"EXPR${len(calls)}"
            calls.append(call)
            call_columns.append(Column(name, data_type))
            return col(name)
        args = tuple(tuple(replace(b) for b in a) if isinstance(a, tuple) else replace(a)
                     for a in expr.args)
        return Expression(expr.op, *args)

    projections = [_rename_key(replace(s), keys, key_columns) for s in selects]
    aggregate = logical.Aggregate(key_columns + call_columns, node, list(keys), calls)
    return logical.project(aggregate, projections)


def _rename_key(expr, keys, key_columns):
    """A select item that is one of the keys (an expression) refers to its column."""
    for key, column in zip(keys, key_columns):
        if expr is key or (expr.op == key.op and expr.args == key.args
                           and key.op == "col"):
            return col(column.name)
    return expr


def _result_columns(function, what):
    data_type = function.result_type
    if data_type is None:
        raise ValueError(f"the {what} function '{function.name}' has no result type: "
                         "give it get_result_type() or result_type=")
    if data_type.name == "ROW":
        names = function.names or data_type.field_names()
        return [Column(n, f.data_type) for n, f in zip(names, data_type.fields)]
    return [Column((function.names or ["f0"])[0], data_type)]


def _function_and_args(func, node, kind):
    if isinstance(func, Expression):
        function, args = func.args
        args = list(args)
    else:
        function, args = func, [Expression("input_row")]
    if getattr(function, "kind", None) != kind:
        raise TypeError(f"expected a {kind.replace('_', ' ')} function, got {function!r}")
    return function, args


def udaf_aggregate(node, keys, func) -> logical.Node:
    """group_by(keys).aggregate(udaf): the keys, then the function's result fields."""
    function, args = _function_and_args(func, node, "aggregate")
    key_columns = _key_columns(node, keys)
    result = _result_columns(function, "aggregate")
    aggregate = logical.Aggregate(key_columns + [Column("_result", function.result_type)],
                                  node, list(keys), [(function, args)])
    if function.result_type.name != "ROW":
        return logical.project(aggregate, [col(c.name) for c in key_columns] +
                               [col("_result").alias(result[0].name)])
    fields = [Expression("field_of", col("_result"), i).alias(c.name)
              for i, c in enumerate(result)]
    return logical.project(aggregate, [col(c.name) for c in key_columns] + fields)


def flat_aggregate(node, keys, func) -> logical.Node:
    """group_by(keys).flat_aggregate(udtaf): the keys, then each emitted row's fields."""
    function, args = _function_and_args(func, node, "table_aggregate")
    columns = _key_columns(node, keys) + _result_columns(function, "table aggregate")
    return logical.Aggregate(columns, node, list(keys), [],
                             table_aggregate=(function, args))
