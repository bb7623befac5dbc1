"""Flink's lookup join: `JOIN dim FOR SYSTEM_TIME AS OF t.proc_time AS d ON t.k = d.id`,
where `dim` is a `jdbc` table (a lookup source). Each row of the left looks up the rows
of `dim` whose key columns equal its values, at the time it is processed (a PostgreSQL
query per row, or a cache: Flink's `lookup.cache` = `PARTIAL` with
`lookup.partial-cache.max-rows` and `lookup.partial-cache.expire-after-write`); an inner
join drops a row that finds none, a LEFT JOIN pads it with NULLs. The rest of the ON
condition is checked on the joined rows; the left's row kind passes on."""

import collections
import time

from weir.datastream.functions import FlatMapFunction
from weir.table import logical
from weir.table.evaluate import Column, compile_expression, not_supported


class LookupJoin(logical.UnaryNode):
    """The left's columns then the looked-up table's (`columns`); `keys`: pairs of (the
    looked-up table's column index, a left expression)."""

    def __init__(self, columns, input, connector, path, right, keys, condition, kind):
        super().__init__(columns, input)
        self.connector, self.path, self.right = connector, path, right
        self.keys, self.condition, self.kind = keys, condition, kind

    def describe(self):
        return f"LookupJoin(table=[{self.path}], joinType=[{self.kind.capitalize()}Join])"


def is_lookup_table(table) -> bool:
    """Whether `table` reads a lookup source (a jdbc table)."""
    return _scanned(table._node) is not None


def _scanned(node):
    """The Scan of a jdbc table that `node` is (maybe with renamed columns), else None."""
    from weir.table.jdbc_table import JdbcConnector

    if (
        type(node) is logical.Calc
        and node.condition is None
        and all(
            p.op == "alias" and p.args[0].op == "col" or p.op == "col" for p in node.projections
        )
    ):
        node = node.input
    if (
        type(node) is not logical.Scan
        or not isinstance(node.connector, JdbcConnector)
        or node.projections is not None
    ):
        return None
    return node


def lookup_join(left, right, path, condition, kind):
    """The Table of `left` joined with the lookup table `right` (a Table of a jdbc table,
    maybe with renamed columns) on `condition` (over both tables' columns)."""
    node = _scanned(right._node)
    if node is None:
        not_supported(
            "a temporal join (FOR SYSTEM_TIME AS OF) of a table other than a "
            "lookup table: weir looks up jdbc tables"
        )
    if kind not in ("inner", "left"):
        not_supported(f"a {kind.upper()} lookup join (Flink's are inner or LEFT)")
    columns = left._node.columns + right._node.columns
    width = len(left._node.columns)
    right_names = [c.name for c in right._node.columns]
    keys, rest = [], []
    for conjunct in _conjuncts(condition):
        pair = _key_pair(conjunct, right_names, columns, width)
        if pair is None:
            rest.append(conjunct)
        else:
            keys.append(pair)
    if not keys:
        raise ValueError(
            f"a lookup join of '{path}' needs an equality between a column of "
            "it and a value of the other side in its ON condition"
        )
    residual = None
    for conjunct in rest:
        residual = conjunct if residual is None else residual & conjunct
    joined = LookupJoin(
        [Column(c.name, c.data_type) for c in columns],
        left._node,
        node.connector,
        path,
        [Column(c.name, c.data_type) for c in node.columns],
        keys,
        residual,
        kind,
    )
    return left._derive(joined)


def _conjuncts(condition):
    if condition is None:
        return []
    if condition.op == "and":
        return _conjuncts(condition.args[0]) + _conjuncts(condition.args[1])
    return [condition]


def _key_pair(conjunct, right_names, columns, width):
    """(right column index, left expression) of `right_col = left expression`, else None."""
    if conjunct.op != "equals":
        return None
    for this, that in (conjunct.args, conjunct.args[::-1]):
        if this.op == "col" and this.args[0] in right_names and not _names(that) & set(right_names):
            compile_expression(that, columns[:width])  # (a value of the left alone)
            return right_names.index(this.args[0]), that
    return None


def _names(expr) -> set:
    if expr.op == "col":
        return {expr.args[0]}
    found = set()
    for arg in expr.args:
        items = arg if isinstance(arg, tuple) else (arg,)
        for item in items:
            if hasattr(item, "op"):
                found |= _names(item)
    return found


def plan_lookup_join(planner, node: LookupJoin):
    left = node.input.columns
    lookup = node.connector.lookup(node.path, node.right, [i for i, _ in node.keys])
    keys = [compile_expression(e, left).function for _, e in node.keys]
    condition = (
        None
        if node.condition is None
        else compile_expression(node.condition, node.columns).function
    )
    return (
        planner.stream(node.input)
        .flat_map(LookupFunction(lookup, keys, condition, node.kind == "left", len(node.right)))
        .name("LookupJoin")
    )


class LookupFunction(FlatMapFunction):
    def __init__(self, lookup, keys, condition, left_outer, width):
        self.lookup, self.keys, self.condition = lookup, keys, condition
        self.left_outer, self.width = left_outer, width

    def open(self, runtime_context):
        self.lookup.open()

    def close(self):
        self.lookup.close()

    def flat_map(self, record):
        kind, values = record
        key = tuple(f(values) for f in self.keys)
        found = False
        if None not in key:  # (NULL equals nothing)
            for row in self.lookup.rows(key):
                joined = values + row
                if self.condition is None or self.condition(joined) is True:
                    found = True
                    yield kind, joined
        if not found and self.left_outer:
            yield kind, values + (None,) * self.width


class Cache:
    """Flink's PARTIAL lookup cache: at most `max_rows` keys, each kept `ttl_s` seconds
    after it was read (None: forever), the least recently used dropped first."""

    def __init__(self, max_rows, ttl_s):
        self.max_rows, self.ttl_s = max_rows, ttl_s
        self.entries = collections.OrderedDict()

    def get(self, key):
        entry = self.entries.get(key)
        if entry is None or (self.ttl_s is not None and time.monotonic() > entry[0]):
            return None
        self.entries.move_to_end(key)
        return entry[1]

    def put(self, key, rows):
        expires = None if self.ttl_s is None else time.monotonic() + self.ttl_s
        self.entries[key] = (expires, rows)
        self.entries.move_to_end(key)
        while len(self.entries) > self.max_rows:
            self.entries.popitem(last=False)
