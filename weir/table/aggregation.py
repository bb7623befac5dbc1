"""Group aggregation in the logical plan: `group_by(keys).select(...)` becomes an
Aggregate node (its keys, then one column `EXPR$i` per aggregate call, Flink's names)
and a Calc above it computing the select list from those columns; `aggregate(udaf)`
and `flat_aggregate(udtaf)` give the function's result fields as columns."""

from weir.table import logical
from weir.table.aggregates import accumulator_of
from weir.table.evaluate import Column, compile_expression
from weir.table.expressions import AGGREGATES, Expression, col


def _key_columns(node, keys):
    """The grouping keys' columns: a column keeps its name; an expression is `$key<i>`
    (the select list names it)."""
    columns = []
    for position, key in enumerate(keys):
        compiled = compile_expression(key, node.columns)
        columns.append(Column(compiled.name or f"$key{position}", compiled.data_type))
    return columns


def same_expression(a, b) -> bool:
    """Whether two expressions are the same tree (Expression's == builds a comparison)."""
    if isinstance(a, Expression) != isinstance(b, Expression):
        return False
    if not isinstance(a, Expression):
        if isinstance(a, tuple) and isinstance(b, tuple):
            return len(a) == len(b) and all(same_expression(x, y) for x, y in zip(a, b))
        return a is b or (type(a) is type(b) and a == b)
    return (
        a.op == b.op
        and len(a.args) == len(b.args)
        and all(same_expression(x, y) for x, y in zip(a.args, b.args))
    )


def _call_of(expr):
    """(aggregate, [argument expressions]) if `expr` is an aggregate call, else None."""
    if expr.op == "agg_filter":
        return "agg_filter", (_call_of(expr.args[0]), expr.args[1])
    if expr.op in AGGREGATES:  # (LISTAGG's separator is its second argument)
        return expr.op, list(expr.args[: 2 if expr.op == "list_agg" else 1])
    if expr.op == "call" and getattr(expr.args[0], "kind", None) == "aggregate":
        return expr.args[0], list(expr.args[1])
    return None


class _Calls:
    """Takes the aggregate calls out of select expressions: each call becomes a column
    (`prefix<i>`) of the aggregating node, the expression refers to it. `find(expr)`
    says whether an expression is a call to take ((aggregate, args) or None); `fixed`
    maps other operators (window properties) to column names."""

    def __init__(self, node, find, prefix="EXPR$", fixed=None):
        self.node, self.find, self.prefix, self.fixed = node, find, prefix, fixed or {}
        self.calls, self.columns = [], []

    def replace(self, expr):
        if not isinstance(expr, Expression):
            return expr
        if expr.op in self.fixed:
            return col(self.fixed[expr.op])
        call = self.find(expr)
        if call is not None:
            _, data_type = accumulator_of(call, self.node.columns)
            self.calls.append(call)
            self.columns.append(Column(f"{self.prefix}{len(self.calls) - 1}", data_type))
            return col(self.columns[-1].name)
        args = tuple(
            tuple(self.replace(b) for b in a) if isinstance(a, tuple) else self.replace(a)
            for a in expr.args
        )
        return Expression(expr.op, *args)


def aggregate_select(node, keys, selects) -> logical.Node:
    """group_by(keys).select(selects) (keys [] : an aggregation of the whole table); over
    a window table function with window_start and window_end among the keys, Flink's
    window aggregation (one row per group and window, when the window ends)."""
    from weir.table import window_tvf

    key_columns = _key_columns(node, keys)
    names = [c.name for c in key_columns]
    windowed = (
        "window_start" in names and "window_end" in names and window_tvf.reads_window_tvf(node)
    )
    if windowed:
        from weir.table.session_input import session_of, session_tvf

        tvf = session_tvf(node)
        if tvf is not None and _by_partition(tvf, keys):
            return _session_select(session_of(node), keys, selects)
        if tvf is not None:  # (Flink: the sessions' rows, then a group aggregation)
            windowed = False
    end_index = names.index("window_end") if windowed else _cascaded_end(node, keys)
    if windowed:  # (window_time stays the windows' time attribute)
        key_columns = [_window_time_kept(node, k, c) for k, c in zip(keys, key_columns)]
    taken = _Calls(node, _call_of)
    projections = [
        _name_key(_rename_key(taken.replace(s), keys, key_columns), position)
        for position, s in enumerate(selects)
    ]
    aggregate: logical.Node
    if end_index is not None:
        aggregate = window_tvf.WindowAggregate(
            key_columns + taken.columns, node, list(keys), taken.calls, end_index
        )
    else:
        aggregate = logical.Aggregate(key_columns + taken.columns, node, list(keys), taken.calls)
    return logical.project(aggregate, projections)


def _window_time_kept(node, key, column):
    if key.op != "col" or key.args[0] != "window_time":
        return column
    source = next(c for c in node.columns if c.name == "window_time")
    return Column(column.name, column.data_type, source.time_attribute, source.proctime)


def _cascaded_end(node, keys):
    """Where grouping keys include a window aggregation's window_start and window_end
    (passed on unchanged, under any names), Flink aggregates the same windows again,
    once each, when it ends: the index of the key that is window_end, else None."""
    if node.changelog:
        return None
    from weir.table.window_tvf import window_bound

    bounds = [window_bound(node, k.args[0]) if k.op == "col" else None for k in keys]
    if "window_start" not in bounds or "window_end" not in bounds:
        return None
    return bounds.index("window_end")


_SESSION_COLUMNS = {"window_start": "$w_start", "window_end": "$w_end", "window_time": "$w_rowtime"}


def _session_keys(keys):
    return [k for k in keys if not (k.op == "col" and k.args[0] in _SESSION_COLUMNS)]


def _by_partition(tvf, keys) -> bool:
    """Whether GROUP BY `keys` are a SESSION's window columns and its PARTITION BY keys."""
    group = _session_keys(keys)
    named = [k.args[0] for k in group if k.op == "col"]
    return len(named) == len(group) and sorted(named) == sorted(tvf.partition)


def _session_select(session, keys, selects) -> logical.Node:
    """GROUP BY window_start, window_end, keys over SESSION(TABLE t PARTITION BY keys,
    ...): a session group window over t's rows (after the projections and filters
    between, weir.table.session_input), keyed by the partition keys."""
    from weir.table.window import GroupWindow

    tvf, rows, time = session
    window = GroupWindow("session", tvf.size, None, col(time), "$w")
    window.not_null = True  # (a window table function's columns are NOT NULL)
    return window_select(
        rows, window, _session_keys(keys), [_session_columns(s, top=True) for s in selects]
    )


def _session_columns(expr, top=False):
    """A select item with the window columns of a SESSION table function as a session
    window's properties (a bare one keeps its name)."""
    if not isinstance(expr, Expression):
        return expr
    if expr.op == "col" and expr.args[0] in _SESSION_COLUMNS:
        renamed = col(_SESSION_COLUMNS[expr.args[0]])
        return renamed.alias(expr.args[0]) if top else renamed
    args = tuple(
        tuple(_session_columns(b) for b in a) if isinstance(a, tuple) else _session_columns(a)
        for a in expr.args
    )
    return Expression(expr.op, *args)


def _rename_key(expr, keys, key_columns):
    """A select item's parts that are one of the keys refer to the key's column."""
    if not isinstance(expr, Expression):
        return expr
    for key, column in zip(keys, key_columns):
        if same_expression(expr, key):
            return col(column.name)
    args = tuple(
        tuple(_rename_key(b, keys, key_columns) for b in a)
        if isinstance(a, tuple)
        else _rename_key(a, keys, key_columns)
        for a in expr.args
    )
    return Expression(expr.op, *args)


def _result_columns(function, what):
    data_type = function.result_type
    if data_type is None:
        raise ValueError(
            f"the {what} function '{function.name}' has no result type: "
            "give it get_result_type() or result_type="
        )
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
    aggregate = logical.Aggregate(
        key_columns + [Column("_result", function.result_type)],
        node,
        list(keys),
        [(function, args)],
    )
    if function.result_type.name != "ROW":
        return logical.project(
            aggregate, [col(c.name) for c in key_columns] + [col("_result").alias(result[0].name)]
        )
    fields = [Expression("field_of", col("_result"), i).alias(c.name) for i, c in enumerate(result)]
    return logical.project(aggregate, [col(c.name) for c in key_columns] + fields)


def flat_aggregate(node, keys, func) -> logical.Node:
    """group_by(keys).flat_aggregate(udtaf): the keys, then each emitted row's fields."""
    function, args = _function_and_args(func, node, "table_aggregate")
    columns = _key_columns(node, keys) + _result_columns(function, "table aggregate")
    return logical.Aggregate(columns, node, list(keys), [], table_aggregate=(function, args))


def _window_key(window):
    return (repr(window.partition_by), repr(window.order_field), window.bound())


def _time_attribute(node, field, what) -> bool:
    """Whether `field`, a time attribute of `node`, is a processing-time one."""
    name = field.args[0] if isinstance(field, Expression) and field.op == "col" else None
    column = next((c for c in node.columns if c.name == name), None)
    if column is None or not (column.time_attribute or column.proctime):
        raise ValueError(
            f"{what} must be on a time attribute of the table (a column with "
            f"a watermark, or PROCTIME()), got {field!r}"
        )
    return column.proctime


def window_select(node, window, keys, selects) -> logical.Node:
    """window(w).group_by(keys..., w).select(...): a group window aggregation."""
    from weir.table.types import DataTypes
    from weir.table.windowing import WindowAggregate

    if node.changelog:
        raise ValueError(
            "a group window aggregation takes an insert-only table (this one is a changelog)"
        )
    proctime = _time_attribute(node, window.time_field, "a group window")
    alias = window.alias_name
    keys = [k for k in keys if not (k.op == "col" and k.args[0] == alias)]
    key_columns = _key_columns(node, keys)
    # (the window's time: its rowtime, end - 1 ms; in processing time, its proctime,
    # when it fires)
    taken = _Calls(
        node,
        _call_of,
        fixed={
            "window_start": "$w_start",
            "window_end": "$w_end",
            "window_proctime" if proctime else "window_rowtime": "$w_rowtime",
        },
    )
    projections = [_rename_key(taken.replace(s), keys, key_columns) for s in selects]
    nullable = not window.not_null
    times = [
        Column("$w_start", DataTypes.TIMESTAMP(3, nullable)),
        Column("$w_end", DataTypes.TIMESTAMP(3, nullable)),
        Column("$w_rowtime", DataTypes.TIMESTAMP_LTZ(3, False), False, True)
        if proctime
        else Column("$w_rowtime", DataTypes.TIMESTAMP(3, nullable), True),
    ]
    aggregate = WindowAggregate(
        key_columns + taken.columns + times, node, window, keys, taken.calls
    )
    return logical.project(
        aggregate, _unnamed_numbered(projections, {c.name for c in taken.columns})
    )


def _name_key(expr, position):
    """An unnamed grouping expression in the select list gets Flink's EXPR$<position>."""
    if expr.op == "col" and expr.args[0].startswith("$key"):
        return expr.alias(f"EXPR${position}")
    return expr


def _unnamed_numbered(projections, aggregates):
    """A group window's select items with Flink's names: the items without one (window
    properties, aggregates, other expressions) are EXPR$0, EXPR$1... in their order;
    columns and aliases keep theirs."""
    out, number = [], 0
    for expr in projections:
        if expr.op == "alias" or (
            expr.op == "col"
            and not expr.args[0].startswith("$w_")
            and expr.args[0] not in aggregates
        ):
            out.append(expr)
            continue
        out.append(expr.alias(f"EXPR${number}"))
        number += 1
    return out


def _over_call(expr):
    """(aggregate, args) of an `agg.over(w)` expression, else None."""
    if expr.op != "over":
        return None
    call = _call_of(expr.args[0])
    if call is None:
        raise ValueError("over(...) takes an aggregate: col('x').max.over(w)")
    return call


def _over_windows(expr, found):
    if isinstance(expr, Expression):
        if expr.op == "over" and not isinstance(expr.args[1], Expression):
            found.append(expr.args[1])
        for arg in expr.args:
            for item in arg if isinstance(arg, tuple) else (arg,):
                _over_windows(item, found)
    return found


def over_select(node, windows, selects) -> logical.Node:
    """over_window(w).select(..., agg.over(w)) (or SQL's agg OVER (...) in the select
    list): an over aggregation."""
    from weir.table.windowing import OverAggregate

    inline = [w for s in selects for w in _over_windows(s, [])]
    windows = list(windows) + inline
    if len({_window_key(w) for w in windows}) != 1:
        raise ValueError(
            "the OVER windows of one select must be identical (partition, "
            "order and frame), as in Flink's streaming queries"
        )
    window = windows[0]
    _time_attribute(node, window.order_field, "an over window's order_by")
    taken = _Calls(node, _over_call, prefix="$over")
    projections = [taken.replace(s) for s in selects]
    projections = [
        p.alias(f"_c{i}") if p.op == "col" and p.args[0].startswith("$over") else p
        for i, p in enumerate(projections)
    ]  # (SQL names its own)
    aggregate = OverAggregate(
        list(node.columns) + taken.columns, node, window, list(window.partition_by), taken.calls
    )
    return logical.project(aggregate, projections)
