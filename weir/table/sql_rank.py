"""Flink SQL's Top-N pattern: a subquery with `ROW_NUMBER() OVER (PARTITION BY ...
ORDER BY ...) AS rn` filtered on `rn <= N` (`rn < N`, `rn = 1`, `rn BETWEEN M AND N`,
and a first rank with `rn > M` or `rn >= M`) becomes a Rank node (weir.table.rank)."""

from sqlglot import exp

from weir.table import logical
from weir.table.evaluate import not_supported
from weir.table.expressions import col
from weir.table.rank import Rank
from weir.table.types import DataTypes


def _conjuncts(node):
    if isinstance(node, exp.And):
        return _conjuncts(node.this) + _conjuncts(node.expression)
    return [node]


def _row_number_item(select):
    for index, item in enumerate(select.expressions):
        if (
            isinstance(item, exp.Alias)
            and isinstance(item.this, exp.Window)
            and isinstance(item.this.this, exp.RowNumber)
        ):
            return index, item
    return None, None


def _rank_start(conjunct, name):
    """M if `conjunct` bounds the row number `name` from below to M.., else None."""
    if isinstance(conjunct, exp.Between) and conjunct.this.name == name:
        return int(conjunct.args["low"].name)
    if (
        not isinstance(conjunct, (exp.GT, exp.GTE))
        or not isinstance(conjunct.this, exp.Column)
        or conjunct.this.name != name
    ):
        return None
    bound = int(conjunct.expression.name)
    return bound + 1 if isinstance(conjunct, exp.GT) else bound


def _rank_end(conjunct, name):
    """N if `conjunct` bounds the row number `name` to ..N, else None."""
    if isinstance(conjunct, exp.Between) and conjunct.this.name == name:
        return int(conjunct.args["high"].name)
    if not isinstance(conjunct, (exp.LTE, exp.LT, exp.EQ)):
        return None
    if not isinstance(conjunct.this, exp.Column) or conjunct.this.name != name:
        return None
    bound = int(conjunct.expression.name)
    if isinstance(conjunct, exp.EQ) and bound != 1:
        not_supported("a Top-N of one rank other than 1")
    return bound - 1 if isinstance(conjunct, exp.LT) else bound


def ranked_subquery(planner, source, where, outer):
    """(table, remaining WHERE) when `source` is a subquery with ROW_NUMBER() and `where`
    bounds it; else None."""
    if not isinstance(source, exp.Subquery) or not isinstance(source.this, exp.Select):
        return None
    inner = source.this
    index, item = _row_number_item(inner)
    if item is None:
        return None
    name = item.alias
    conjuncts = _conjuncts(where.this) if where is not None else []
    bounds = [(c, _rank_start(c, name), _rank_end(c, name)) for c in conjuncts]
    ends = [end for _, _, end in bounds if end is not None]
    if not ends:
        not_supported(f"ROW_NUMBER() without a bound on '{name}' (a Top-N needs WHERE {name} <= N)")
    start = max([1] + [s for _, s, _ in bounds if s is not None])
    if start > min(ends):
        raise ValueError(f"the bounds on '{name}' leave no rank ({start} to {min(ends)})")
    remaining = [c for c, s, end in bounds if end is None and s is None]
    window = item.this
    hidden = [
        exp.alias_(p.copy(), f"$p{i}") for i, p in enumerate(window.args.get("partition_by") or [])
    ]
    order = window.args.get("order")
    ordered = order.expressions if order is not None else []
    hidden += [exp.alias_(o.this.copy(), f"$o{i}") for i, o in enumerate(ordered)]
    stripped = inner.copy()
    items = list(stripped.expressions)
    stripped.set("expressions", items[:index] + items[index + 1 :] + hidden)
    table = planner.select(stripped)
    visible = table._node.columns[: len(table._node.columns) - len(hidden)]
    output_rank = any(
        isinstance(i, exp.Star) or any(c.name == name for c in i.find_all(exp.Column))
        for i in outer.expressions
    )
    partition = [col(f"$p{i}") for i in range(len(window.args.get("partition_by") or []))]
    order_keys = [(col(f"$o{i}"), bool(o.args.get("desc"))) for i, o in enumerate(ordered)]
    from weir.table.evaluate import Column

    columns = list(table._node.columns) + (
        [Column(name, DataTypes.BIGINT(False))] if output_rank else []
    )
    ranked: logical.UnaryNode
    if not table._t_env.streaming and table._node.changelog:  # (its final rows, sorted)
        from weir.table.sort import Sort

        ranked = Sort(
            columns,
            table._node,
            order_keys,
            offset=start - 1,
            fetch=min(ends) - start + 1,
            partition=partition,
            output_rank=output_rank,
        )
    else:
        ranked = Rank(columns, table._node, partition, order_keys, min(ends), output_rank, start)
    kept = [col(c.name) for c in visible] + ([col(name)] if output_rank else [])
    result = table._derive(ranked).select(*kept)
    rest = None
    for conjunct in remaining:
        rest = conjunct if rest is None else exp.And(this=rest, expression=conjunct)
    return result, (None if rest is None else exp.Where(this=rest))
