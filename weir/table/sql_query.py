"""SQL queries as Table API plans: FROM items with their aliases (a scope resolves
`A.id` and unqualified names, and renames a join's clashing columns as Calcite does:
`id`, `id0`), joins, WHERE, GROUP BY with HAVING, DISTINCT, LIMIT, lateral tables and
window table functions."""

from typing import TYPE_CHECKING, Optional

from sqlglot import exp

from weir.table.evaluate import not_supported
from weir.table.expressions import col

if TYPE_CHECKING:
    from weir.table.table import Table


class Scope:
    """The columns a query level can name: (qualifier, name, column of the table)."""

    def __init__(self, entries=()):
        self.entries = list(entries)

    @staticmethod
    def of(alias, table):
        return Scope((alias, c.name, c.name) for c in table._node.columns)

    def resolve(self, qualifier, name) -> str:
        found = [
            e
            for e in self.entries
            if e[1].lower() == name.lower()
            and (qualifier is None or (e[0] or "").lower() == qualifier.lower())
        ]
        if not found:
            where = f"{qualifier}." if qualifier else ""
            raise ValueError(
                f"Column '{where}{name}' not found in any table of the query "
                f"(columns: {', '.join(self._names())})"
            )
        if len({e[2] for e in found}) > 1:
            raise ValueError(f"Column '{name}' is ambiguous: qualify it with its table")
        return found[0][2]

    def _names(self):
        return [f"{q}.{n}" if q else n for q, n, _ in self.entries]


class QueryPlanner:
    def __init__(self, t_env, expressions):
        self.t_env = t_env
        self.expressions = expressions
        self.ctes = {}  # lower-cased name -> Table of the WITH items in scope

    def convert(self, node, scope):
        self.expressions.scope = scope
        return self.expressions.convert(node)

    # -- FROM -----------------------------------------------------------------------
    def _from_item(self, source):
        """(table, scope) of a FROM item."""
        alias = source.alias_or_name if hasattr(source, "alias_or_name") else None
        if isinstance(source, exp.Table):
            if isinstance(source.this, exp.Anonymous):
                table = self._table_function(source.this)
            elif not source.args.get("db") and source.name.lower() in self.ctes:
                table = self.ctes[source.name.lower()]
            else:
                table = self.t_env.from_path(source.name)
        elif isinstance(source, exp.Subquery):
            table = self.select(source.this)
            alias = source.alias or None
        elif isinstance(source, exp.Values):
            table, alias = self._values(source), source.alias or None
        else:
            not_supported(f"'{source.sql()}' in FROM")
        return table, Scope.of(alias, table)

    def _values(self, values):
        """(VALUES (...), ...) [AS t(a, ...)]: constant rows, each column of the widest
        of its rows' number types (else the first row's type), named EXPR$<i> unless
        the alias names them."""
        from weir.table import logical
        from weir.table.casts import cast_value
        from weir.table.evaluate import Column, compile_expression, wider
        from weir.table.table import Table

        rows = [
            [compile_expression(self.convert(item, Scope()), []) for item in row.expressions]
            for row in values.expressions
        ]
        if len({len(row) for row in rows}) != 1:
            raise ValueError("the rows of VALUES have different numbers of columns")
        types = [row.data_type for row in rows[0]]
        for row in rows[1:]:
            types = [wider(t, c.data_type) for t, c in zip(types, row)]
        alias = values.args.get("alias")
        names = (
            [c.name for c in alias.columns]
            if alias is not None and alias.columns
            else [f"EXPR${i}" for i in range(len(types))]
        )
        constants = [
            tuple(cast_value(c.function(()), c.data_type, t) for c, t in zip(row, types))
            for row in rows
        ]
        return Table(
            logical.Values([Column(n, t) for n, t in zip(names, types)], constants), self.t_env
        )

    def _table_function(self, call):
        """TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), size)), HOP, CUMULATE and SESSION(TABLE t
        [PARTITION BY keys], DESCRIPTOR(ts), gap)."""
        from weir.table.sql import interval_millis
        from weir.table.window_tvf import window_tvf

        inner = call.expressions[0] if call.name.upper() == "TABLE" and call.expressions else call
        name = inner.name.upper()
        if name not in ("TUMBLE", "HOP", "CUMULATE", "SESSION"):
            not_supported(f"the table function {inner.name} in FROM")
        source, *args = inner.expressions
        partition = []
        if args and isinstance(args[0], exp.Anonymous) and args[0].name == "PARTITION BY":
            if name != "SESSION":
                raise ValueError(f"{name} takes no PARTITION BY (SESSION does)")
            partition = [column.name for column in args.pop(0).expressions]
        descriptor, *sizes = args
        table, _ = self._from_item(source)
        time_column = descriptor.expressions[0].name
        millis = [interval_millis(s) for s in sizes]
        if name == "SESSION":
            node = window_tvf(table._node, "session", time_column, millis[0], partition=partition)
        elif name == "TUMBLE":
            node = window_tvf(table._node, "tumble", time_column, millis[0])
        else:  # HOP(slide, size), CUMULATE(step, size)
            node = window_tvf(table._node, name.lower(), time_column, millis[1], millis[0])
        return table._derive(node)

    # -- SELECT ---------------------------------------------------------------------
    def select(self, tree):
        """The Table of a query; its WITH items name tables for it (and for the items
        after them), shadowing the catalog's."""
        if not tree.args.get("with_"):
            return self._select(tree)
        outer = dict(self.ctes)
        try:
            for cte in tree.args["with_"].expressions:
                if tree.args["with_"].args.get("recursive"):
                    not_supported("WITH RECURSIVE")
                table = self.select(cte.this)
                names = [column.name for column in cte.args["alias"].columns]
                self.ctes[cte.alias.lower()] = table.alias(*names) if names else table
            return self._select(tree)
        finally:
            self.ctes = outer

    def _select(self, tree):
        if isinstance(tree, (exp.Intersect, exp.Except)):
            left, right = self.select(tree.this), self.select(tree.expression)
            from weir.table.set_operations import set_operation

            kind = "intersect" if isinstance(tree, exp.Intersect) else "minus"
            return set_operation(left, right, kind, not tree.args.get("distinct", True))
        if isinstance(tree, exp.Union):
            left, right = self.select(tree.this), self.select(tree.expression)
            return left.union(right) if tree.args.get("distinct") else left.union_all(right)
        if isinstance(tree, exp.Values):  # (INSERT INTO t VALUES ..., or alone)
            return self._values(tree)
        if not isinstance(tree, exp.Select):
            not_supported(f"the query {type(tree).__name__.upper()}")
        table: Optional["Table"]
        if tree.args.get("from_") is None:  # SELECT 1: one row of no columns
            from weir.table import logical
            from weir.table.table import Table

            table = Table(logical.Values([], [()]), self.t_env)
            scope = Scope()
        else:
            table = scope = None
        joins = tree.args.get("joins") or []
        where = tree.args.get("where")
        if table is None:
            from weir.table.sql_rank import ranked_subquery

            source = tree.args["from_"].this
            ranked = ranked_subquery(self, source, where, tree) if not joins else None
            if ranked is not None:
                table, where = ranked
                scope = Scope.of(source.alias or None, table)
            else:
                table, scope = self._from_item(source)
        if tree.args.get("match") is not None:
            from weir.table.match_recognize import match_recognize

            table = match_recognize(self, table, tree.args["match"])
            alias = tree.args["match"].args.get("alias")
            scope = Scope.of(alias.name if alias is not None else None, table)
        for index, join in enumerate(joins):
            # FROM a, b WHERE ...: the WHERE is the (inner) join's condition, so that its
            # equalities key the join
            last_comma = (
                index == len(joins) - 1
                and where is not None
                and join.args.get("on") is None
                and not join.args.get("side")
                and not join.args.get("kind")
                and not isinstance(join.this, (exp.Lateral, exp.Unnest))
            )
            table, scope = self._join(
                table,
                scope,
                join,  # (last_comma: a WHERE)
                where.this if last_comma else None,  # type: ignore[union-attr]
            )
            if last_comma:
                where = None
        if where is not None:
            table = table.where(self.convert(where.this, scope))
        order = tree.args.get("order")
        selected, keys = _order_keys(tree, order) if order else (tree, [])
        table = self._project(table, scope, _named_windows_inlined(selected))
        if tree.args.get("distinct"):
            if len(selected.expressions) > len(tree.expressions):
                raise ValueError("ORDER BY of a SELECT DISTINCT takes only the columns it selects")
            table = table.distinct()
        limit, offset = tree.args.get("limit"), tree.args.get("offset")
        if order:
            hidden = len(selected.expressions) - len(tree.expressions)
            ordered = self._ordered(table, keys, limit, offset, hidden)
            if not hidden:
                return ordered
            visible = [c.name for c in ordered._node.columns][:-hidden]
            return ordered.select(*(col(name) for name in visible))
        if limit is not None:
            table = table.limit(int(limit.expression.name))
        return table

    def _ordered(self, table, keys, limit, offset=None, hidden=0):
        """ORDER BY [LIMIT n] [OFFSET m] of `keys` ([(output column or position,
        descending)]): in BATCH mode the table's final rows sorted (weir.table.sort); in
        a streaming query Flink's Top-N over the whole table, or without a LIMIT its
        temporal sort (weir.table.temporal_sort)."""
        from weir.table.rank import Rank
        from weir.table.sort import Sort

        streaming = table._t_env.streaming
        names = [c.name for c in table._node.columns]
        for key, _ in keys:
            if isinstance(key, int) and not 0 <= key < len(names) - hidden:
                raise ValueError(
                    f"ORDER BY {key + 1}: the query selects {len(names) - hidden} columns"
                )
        keys = [
            (col(names[key] if isinstance(key, int) else key), descending)
            for key, descending in keys
        ]
        if streaming and limit is None:  # (by the event-time attribute: Flink's)
            from weir.table.temporal_sort import temporal_sort

            if offset is not None:
                not_supported("ORDER BY with OFFSET and no LIMIT in a streaming query")
            return table._derive(temporal_sort(table._node, keys))
        if not streaming:
            return table._derive(
                Sort(
                    list(table._node.columns),
                    table._node,
                    keys,
                    int(offset.expression.name) if offset else 0,
                    int(limit.expression.name) if limit else None,
                )
            )
        skip = int(offset.expression.name) if offset is not None else 0
        node = Rank(
            list(table._node.columns),
            table._node,
            [],
            keys,
            skip + int(limit.expression.name),
            False,
            skip + 1,
        )
        return table._derive(node)

    def _join(self, table, scope, join, where=None):
        source = join.this
        if isinstance(source, exp.Lateral) or (
            isinstance(source, exp.Table)
            and isinstance(source.this, exp.Anonymous)
            and source.this.name.upper() == "TABLE"
            and source.this.expressions[0].name.upper() not in ("TUMBLE", "HOP", "CUMULATE")
        ):
            return self._lateral(table, scope, source, join)
        if isinstance(source, exp.Unnest):
            return self._unnest(table, scope, source, join)
        version = source.args.get("version") if isinstance(source, exp.Table) else None
        if version is not None:
            source = source.copy()
            source.set("version", None)
        other, other_scope = self._from_item(source)
        other, other_scope = _renamed_apart(table, other, other_scope)
        scope = Scope(scope.entries + other_scope.entries)
        on = join.args.get("on") if where is None else where
        condition = None if on is None else self.convert(on, scope)
        side = (join.args.get("side") or "").lower()
        if version is not None:  # FOR SYSTEM_TIME AS OF: a lookup or temporal join
            from weir.table.lookup_join import is_lookup_table, lookup_join
            from weir.table.temporal_join import temporal_join

            as_of = self.convert(version.expression, scope)  # (a column of the left)
            if is_lookup_table(other):
                return lookup_join(table, other, source.name, condition, side or "inner"), scope
            if as_of.op != "col":
                not_supported(
                    f"FOR SYSTEM_TIME AS OF {version.expression.sql()} (a column of the left table)"
                )
            return temporal_join(table, other, as_of.args[0], condition, side or "inner"), scope
        method = {
            "": "join",
            "left": "left_outer_join",
            "right": "right_outer_join",
            "full": "full_outer_join",
        }.get(side)
        if method is None:
            not_supported(f"{side.upper()} JOIN")
        return getattr(table, method)(other, condition), scope

    def _lateral(self, table, scope, source, join):
        call = source.this
        while isinstance(call, (exp.Table, exp.Lateral)) or (
            isinstance(call, exp.Anonymous) and call.name.upper() == "TABLE"
        ):
            call = call.expressions[0] if isinstance(call, exp.Anonymous) else call.this
        function = self.expressions.function(call.name)
        args = [self.convert(a, scope) for a in call.expressions]
        alias = source.args.get("alias")
        names = [c.name for c in alias.columns] if alias is not None and alias.columns else None
        udtf = function.alias(*names) if names else function
        return _joined_laterally(self, table, scope, udtf(*args), join, alias)

    def _unnest(self, table, scope, source, join):
        """[CROSS | LEFT] JOIN UNNEST(collection) [WITH ORDINALITY] [AS t(names)] [ON
        condition], or a comma before it: weir.table.unnest."""
        from weir.table.evaluate import compile_expression
        from weir.table.unnest import unnest_function

        if len(source.expressions) != 1:
            not_supported("UNNEST of more than one collection")
        if (join.args.get("side") or "").lower() not in ("", "left"):
            not_supported(f"'{join.sql()}' (UNNEST joins by CROSS JOIN, a comma or LEFT JOIN)")
        value = self.convert(source.expressions[0], scope)
        data_type = compile_expression(value, table._node.columns).data_type
        alias, ordinality = source.args.get("alias"), source.args.get("offset")
        names = [c.name for c in alias.columns] if alias is not None else []
        if isinstance(ordinality, exp.Identifier) and names:
            names.append(ordinality.name)  # (sqlglot keeps the last name apart)
        function = unnest_function(
            data_type, names, bool(ordinality), alias.name if alias is not None else None
        )
        return _joined_laterally(self, table, scope, function(value), join, alias)

    def _legacy_window(self, windows, scope):
        """GROUP BY ..., TUMBLE(ts, size) (HOP(ts, slide, size), SESSION(ts, gap)):
        Flink's group windows in SQL, their bounds TUMBLE_START(...) and the like."""
        if len(windows) != 1:
            raise ValueError("a GROUP BY takes one group window")
        return _legacy_window_of(self, windows[0], scope)

    def _project(self, table, scope, tree):
        items: list = []
        for position, item in enumerate(tree.expressions):
            if isinstance(item, exp.Star) or (
                isinstance(item, exp.Column) and isinstance(item.this, exp.Star)
            ):
                qualifier = item.table if isinstance(item, exp.Column) else None
                items.extend(
                    col(internal)
                    for q, name, internal in scope.entries
                    if qualifier is None or (q or "").lower() == qualifier.lower()
                )
                continue
            expr = self.convert(item, scope)
            if isinstance(item, exp.Column) and expr.op == "col" and expr.args[0] != item.name:
                expr = expr.alias(item.name)  # a renamed column keeps its name
            elif expr.op not in ("alias", "col"):
                expr = expr.alias(f"EXPR${position}")
            items.append(expr)
        items = _unique_names(items, table)
        group = tree.args.get("group")
        having = tree.args.get("having")
        if (
            any(i.find(exp.Window) is not None for i in tree.expressions)
            and group is None
            and having is None
        ):
            from weir.table.aggregation import over_select

            return table._derive(over_select(table._node, [], items))
        if group is None and having is None:
            return table.select(*items)
        windows = [
            k
            for k in (group.expressions if group else [])
            if isinstance(k, exp.Anonymous) and k.name.upper() in LEGACY_WINDOWS
        ]
        keys = (
            [self.convert(k, scope) for k in group.expressions if not any(k is w for w in windows)]
            if group
            else []
        )
        if windows:
            window = self._legacy_window(windows, scope)
            grouped = table.window(window).group_by(*keys, col("$w"))
            if having is not None:
                not_supported("HAVING with a group window")
            return grouped.select(*items)
        if having is None:
            return table.group_by(*keys).select(*items)
        condition = self.convert(having.this, scope).alias("$having")
        grouped = table.group_by(*keys).select(*items, condition)
        return grouped.where(col("$having")).select(
            *(col(c.name) for c in grouped._node.columns[:-1])
        )


LEGACY_WINDOWS = ("TUMBLE", "HOP", "SESSION")


def _order_keys(tree, order):
    """(the SELECT with a hidden column appended for each ORDER BY key it does not
    select, the keys as [(output column name or position, descending)]). A key is an
    output column where it names one (Calcite looks there first), a position where it is
    a number (ORDER BY 2), else an expression over the query's input, aggregates too."""
    outputs = {
        item.alias_or_name.lower(): item.alias_or_name
        for item in tree.expressions
        if not isinstance(item, exp.Star) and item.alias_or_name
    }
    keys: list
    extra: list
    selected, keys, extra = tree, [], []
    for item in order.expressions:
        descending, key = bool(item.args.get("desc")), item.this
        if isinstance(key, exp.Column) and not key.table and key.name.lower() in outputs:
            keys.append((outputs[key.name.lower()], descending))
        elif isinstance(key, exp.Literal) and not key.is_string:
            keys.append((int(key.name) - 1, descending))
        else:
            name = f"_weir_order_{len(extra)}"
            extra.append(exp.alias_(key.copy(), name))
            keys.append((name, descending))
    if extra:
        selected = tree.copy()
        selected.set("expressions", [*selected.expressions, *extra])
    return selected, keys


def _named_windows_inlined(tree):
    """`agg OVER w ... WINDOW w AS (PARTITION BY ... ORDER BY ... frame)`: each OVER w
    given the named window's partition, order and frame."""
    named = {w.name.lower(): w for w in tree.args.get("windows") or ()}
    if not named:
        return tree
    tree = tree.copy()
    for window in tree.find_all(exp.Window):
        alias = window.args.get("alias")
        if alias is None or window.args.get("partition_by") or window.args.get("order"):
            continue
        if alias.name.lower() not in named:
            raise ValueError(f"OVER {alias.name} names no window of the WINDOW clause")
        definition = named[alias.name.lower()]
        for part in ("partition_by", "order", "spec"):
            value = definition.args.get(part)
            window.set(
                part,
                value.copy()
                if hasattr(value, "copy")
                else [v.copy() for v in value]
                if value
                else None,
            )
        window.set("alias", None)
    tree.set("windows", None)
    return tree


def _joined_laterally(planner, table, scope, call, join, alias):
    """(the table with a table function's rows joined laterally: LEFT or inner, as
    `join` says, where its ON condition holds; the scope with its columns, qualified
    by the alias's name)."""
    side = (join.args.get("side") or "").lower()
    joined = table.left_outer_join_lateral(call) if side == "left" else table.join_lateral(call)
    qualifier = alias.name if alias is not None and alias.name else None
    added = joined._node.columns[len(table._node.columns) :]
    scope = Scope(scope.entries + [(qualifier, c.name, c.name) for c in added])
    on = join.args.get("on")
    if on is None or on == exp.true():
        return joined, scope
    condition = planner.convert(on, scope)
    if side == "left":  # (a row joined to nothing that holds keeps its row, with NULLs)
        return table.left_outer_join_lateral(call, condition), scope
    return joined.where(condition), scope


def _legacy_window_of(planner, call, scope):
    from weir.table.sql import interval_millis
    from weir.table.window import GroupWindow

    name = call.name.upper()
    time_field = planner.convert(call.expressions[0], scope)
    sizes = [interval_millis(a) for a in call.expressions[1:]]
    if name == "TUMBLE":
        window = GroupWindow("tumble", sizes[0], None, time_field, "$w")
    elif name == "HOP":  # HOP(ts, slide, size)
        window = GroupWindow("slide", sizes[1], sizes[0], time_field, "$w")
    else:
        window = GroupWindow("session", sizes[0], None, time_field, "$w")
    window.not_null = True  # (SQL's TUMBLE_START and the like are NOT NULL, as Calcite's)
    return window


def _unique_names(items, table):
    """Output names made unique as Calcite makes them (`dateTime`, `dateTime0`)."""
    seen, out = set(), []
    for item in items:
        name = item.args[1][0] if item.op == "alias" else item.args[0] if item.op == "col" else None
        if name is not None and name in seen:
            number = 0
            while f"{name}{number}" in seen:
                number += 1
            inner = item.args[0] if item.op == "alias" else item
            item, name = inner.alias(f"{name}{number}"), f"{name}{number}"
        seen.add(name)
        out.append(item)
    return out


def _renamed_apart(left, right, right_scope):
    """`right` with the columns whose names `left` has renamed name0, name1...; its
    scope pointing at the new names."""
    taken = {c.name for c in left._node.columns}
    renames = {}
    for column in right._node.columns:
        if column.name in taken:
            number = 0
            while f"{column.name}{number}" in taken:
                number += 1
            renames[column.name] = f"{column.name}{number}"
        taken.add(renames.get(column.name, column.name))
    if not renames:
        return right, right_scope
    renamed = right.select(
        *(
            col(c.name).alias(renames[c.name]) if c.name in renames else col(c.name)
            for c in right._node.columns
        )
    )
    entries = [(q, n, renames.get(i, i)) for q, n, i in right_scope.entries]
    return renamed, Scope(entries)
