"""Top-N over a changelog in a streaming query (a Top-N over a group aggregation's
updating rows), as Flink's RetractableTopNFunction and UpdatableTopNFunction emit it.

Per partition, every current row in sort order (ties in arrival order). Each input
change moves the top N from one list to another, and the difference is emitted:
- with the rank in the output, rank by rank from 1: a rank whose row changed -U (old)
  and +U (new), a rank filled +I, a rank emptied -D;
- without it, -D for each row that left the top N, then +I for each that entered.

Where the input is an aggregation (its group key unique per row) and every sort key
only moves a row towards the top (a COUNT or MAX ordered descending, a MIN ascending,
or a group key), Flink reads the input as upserts (its -U are not sent) and a row whose
key was in the top N and still is comes out as -U (old) and +U (new): the
UpdatableTopNFunction.
"""

import bisect
import functools
from typing import Dict, Optional

from weir.common.typeinfo import Types
from weir.datastream.functions import KeyedProcessFunction
from weir.datastream.state import ValueStateDescriptor
from weir.table import logical
from weir.table.changelog import DELETE, INSERT, UPDATE_AFTER, UPDATE_BEFORE, is_accumulate
from weir.table.sort import compare

_UP = {"count": "increasing", "count_star": "increasing", "max": "increasing", "min": "decreasing"}


def unique_key(rank):
    """Where `rank`'s input is a group aggregation's rows and its sort keys only move
    rows up (Flink's update strategy): the input positions of the group key; else
    None."""
    node, names = rank.input, [c.name for c in rank.input.columns]
    origins = {name: name for name in names}  # (input column -> the aggregate's column)
    while isinstance(node, logical.Calc):
        inner = logical.passed_columns(node)
        origins = {n: inner.get(o) if o is not None else None for n, o in origins.items()}
        node = node.input
    if not isinstance(node, logical.Aggregate) or node.table_aggregate is not None or not node.keys:
        return None
    kinds = _column_kinds(node)
    for expr, descending in rank.order:
        origin = origins.get(expr.args[0]) if expr.op == "col" else None
        kind = kinds.get(origin)
        if kind != "key" and kind != ("increasing" if descending else "decreasing"):
            return None
    keys = [c.name for c in node.columns[: len(node.keys)]]
    by_origin: dict = {}
    for name, origin in origins.items():
        if origin is not None:
            by_origin.setdefault(origin, names.index(name))
    if any(k not in by_origin for k in keys):
        return None
    return [by_origin[k] for k in keys]


def _column_kinds(aggregate):
    kinds: Dict[str, Optional[str]] = {
        c.name: "key" for c in aggregate.columns[: len(aggregate.keys)]
    }
    for column, (call, _) in zip(aggregate.columns[len(aggregate.keys) :], aggregate.calls):
        kinds[column.name] = _UP.get(call) if isinstance(call, str) else None
    return kinds


class ChangelogTopN(KeyedProcessFunction):
    """One partition's rows: [(sort key, arrival, values)] in order."""

    def __init__(
        self, sort_functions, directions, rank_end, output_rank, key_indexes=None, rank_start=1
    ):
        self.sort_functions, self.directions = sort_functions, directions
        self.rank_end, self.output_rank = rank_end, output_rank
        self.rank_start = rank_start  # (ranks before it are kept, not output)
        self.key_indexes = key_indexes  # (the update strategy's unique key, or None)

    def open(self, runtime_context):
        self.state = runtime_context.get_state(
            ValueStateDescriptor("rows", Types.PICKLED_BYTE_ARRAY())
        )
        self._order = functools.cmp_to_key(self._compare)

    def _compare(self, a, b):
        return compare(a[0], b[0], self.directions) or (a[1] - b[1])

    def process_element(self, record, ctx):
        kind, values = record
        if self.key_indexes is not None and kind == UPDATE_BEFORE:
            return ()  # (upserts: the +U that follows replaces the key's row)
        arrival, rows = self.state.value() or (0, [])
        before: list = rows[self.rank_start - 1 : self.rank_end]
        replaced = None
        if self.key_indexes is not None:
            replaced = self._remove_key(rows, values)
        if is_accumulate(kind):
            entry = (tuple(f(values) for f in self.sort_functions), arrival, values)
            # (mypy: the empty default [] is list[Never])
            rows.insert(bisect.bisect_right(rows, self._order(entry), key=self._order), entry)  # type: ignore[arg-type]
            arrival += 1
        elif replaced is None:
            _remove_values(rows, values)
        self.state.update((arrival, rows))
        return list(self._changes(before, rows[self.rank_start - 1 : self.rank_end], replaced))

    def _remove_key(self, rows, values):
        key = [values[i] for i in self.key_indexes]
        for index, row in enumerate(rows):
            if [row[2][i] for i in self.key_indexes] == key:
                return rows.pop(index)
        return None

    def _changes(self, before, after, replaced):
        if self.output_rank:
            first = self.rank_start
            for index in range(max(len(before), len(after))):
                old = before[index] if index < len(before) else None
                new = after[index] if index < len(after) else None
                if old is not None and new is not None and old[1] != new[1]:
                    yield UPDATE_BEFORE, old[2] + (index + first,)
                    yield UPDATE_AFTER, new[2] + (index + first,)
                elif old is None and new is not None:
                    yield INSERT, new[2] + (index + first,)
                elif new is None and old is not None:
                    yield DELETE, old[2] + (index + first,)
            return
        kept = {row[1] for row in after}
        gone = [row for row in before if row[1] not in kept]
        came = [row for row in after if row[1] not in {r[1] for r in before}]
        if (
            replaced is not None
            and any(r[1] == replaced[1] for r in gone)
            and any(self._same_key(r, replaced) for r in came)
        ):
            new = next(r for r in came if self._same_key(r, replaced))
            yield UPDATE_BEFORE, replaced[2]
            yield UPDATE_AFTER, new[2]
            gone = [r for r in gone if r[1] != replaced[1]]
            came = [r for r in came if r[1] != new[1]]
        for row in gone:
            yield DELETE, row[2]
        for row in came:
            yield INSERT, row[2]

    def _same_key(self, a, b):
        return all(a[2][i] == b[2][i] for i in self.key_indexes)


def _remove_values(rows, values):
    for index, row in enumerate(rows):
        if row[2] == values:
            del rows[index]
            return
