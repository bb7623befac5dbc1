"""Top-N in Flink SQL: `ROW_NUMBER() OVER (PARTITION BY k ORDER BY x DESC) AS rn` in a
subquery filtered on `rn <= N` (also Flink's deduplication, N = 1).

As Flink's AppendOnlyTopNFunction (an insert-only input): per partition, the best N rows
in order (ties in arrival order). Without the rank in the output a row entering the top N
is inserted (+I) and the row it pushes out deleted (-D); with the rank, ranks are the
update key: each rank whose row changes gets -U (old row) and +U (new row), a rank
filled for the first time +I.
"""

from typing import Any

from weir.common.typeinfo import Types
from weir.datastream.functions import KeyedProcessFunction
from weir.datastream.state import ValueStateDescriptor
from weir.table import logical
from weir.table.changelog import INSERT, UPDATE_AFTER, UPDATE_BEFORE, DELETE
from weir.table.sort import compare


class Rank(logical.UnaryNode):
    """The input's columns (and the rank, if `output_rank`); `order` is [(expression,
    descending)]; ranks 1..rank_end are kept."""

    def __init__(self, columns, input, partition, order, rank_end, output_rank, rank_start=1):
        super().__init__(columns, input)
        self.partition, self.order = partition, order
        self.rank_end, self.output_rank = rank_end, output_rank
        self.rank_start = rank_start  # (ranks rank_start..rank_end are output)

    @property
    def changelog(self):
        from weir.table.deduplicate import deduplication
        from weir.table.window_rank import window_end_of

        if window_end_of(self) is not None:
            return False  # (a window Top-N inserts each window's rows once)
        return deduplication(self) != "first"  # (Flink's first-row deduplication inserts)

    def describe(self):
        from weir.table.deduplicate import deduplication

        keep = deduplication(self)
        if keep is not None:
            return f"Deduplicate(keep=[{keep.capitalize()}Row], order=[ROWTIME])"
        return (
            f"Rank(rankRange=[rankStart={self.rank_start}, rankEnd={self.rank_end}], "
            f"select=[{', '.join(c.name for c in self.columns)}])"
        )


class _SortKey:
    """Sort keys compared in their directions, NULLs first ascending and last descending
    (Flink's defaults: weir.table.sort.compare)."""

    def __init__(self, directions):
        self.directions = directions

    def compare(self, a, b):
        return compare(a, b, self.directions)


class TopN(KeyedProcessFunction):
    """An insert-only input's best rows per partition, ranks rank_start..rank_end out
    (with a start past 1, as Flink's AppendOnlyTopNFunction: each rank's row updated in
    place, with or without its rank number)."""

    def __init__(self, sort_functions, directions, rank_end, output_rank, rank_start=1):
        self.sort_functions, self.sort = sort_functions, _SortKey(directions)
        self.rank_end, self.output_rank = rank_end, output_rank
        self.rank_start = rank_start

    def open(self, runtime_context):
        self.state = runtime_context.get_state(
            ValueStateDescriptor("top", Types.PICKLED_BYTE_ARRAY())
        )

    def process_element(self, record, ctx):
        values = record[1]
        key = tuple(f(values) for f in self.sort_functions)
        buffer = self.state.value() or []  # [[sort key, [rows]]] best first
        if not self._in_range(key, buffer):
            return
        self._put(buffer, key, values)
        if self.rank_start > 1:
            changes = [
                (kind, row if self.output_rank else row[:-1])
                for kind, row in self._with_rank(buffer, key, values)
                if row[-1] >= self.rank_start
            ]
        elif self.output_rank:
            changes = self._with_rank(buffer, key, values)
        else:
            changes = self._without_rank(buffer, values)
        self.state.update(buffer)
        yield from changes

    def _count(self, buffer):
        return sum(len(rows) for _, rows in buffer)

    def _in_range(self, key, buffer):
        if not buffer:
            return True
        if self.sort.compare(key, buffer[-1][0]) < 0:
            return True
        return self._count(buffer) < self.rank_end

    def _put(self, buffer, key, values):
        for index, (existing, rows) in enumerate(buffer):
            order = self.sort.compare(key, existing)
            if order == 0:
                rows.append(values)
                return
            if order < 0:
                buffer.insert(index, [key, [values]])
                return
        buffer.append([key, [values]])

    def _without_rank(self, buffer, values):
        changes: list = []
        if self._count(buffer) > self.rank_end:
            last_key, last_rows = buffer[-1]
            last = last_rows.pop()
            if not last_rows:
                buffer.pop()
            if last == values:
                return changes
            if self.rank_end == 1:  # (a Top-1's partition is its unique key: an update)
                return [(UPDATE_BEFORE, last), (UPDATE_AFTER, values)]
            changes.append((DELETE, last))
        changes.append((INSERT, values))
        return changes

    def _with_rank(self, buffer, key, values):
        changes: list
        current: Any  # the row at `rank`, from the key's (which the buffer holds) on
        changes, rank, found, current = [], 0, False, None
        index = 0
        while index < len(buffer) and rank <= self.rank_end:
            entry_key, rows = buffer[index]
            index += 1
            if not found and self.sort.compare(entry_key, key) == 0:
                rank += len(rows)
                current, found = values, True
            elif found:
                for previous in rows:
                    if rank > self.rank_end:
                        break
                    changes.append((UPDATE_BEFORE, previous + (rank,)))
                    changes.append((UPDATE_AFTER, current + (rank,)))
                    current = previous
                    rank += 1
            else:
                rank += len(rows)
        if rank <= self.rank_end:
            changes.append((INSERT, current + (rank,)))
        del buffer[index:]
        return changes


def plan_rank(planner, node: Rank):
    from weir.table.evaluate import compile_expression
    from weir.table.planner import KeyOf
    from weir.table.window_rank import plan_window_rank, window_end_of

    end_position = window_end_of(node)
    if end_position is not None and not node.input.changelog:
        return plan_window_rank(planner, node, end_position)
    columns = node.input.columns
    partition = [compile_expression(p, columns).function for p in node.partition]
    order = [compile_expression(e, columns).function for e, _ in node.order]
    directions = [descending for _, descending in node.order]
    if node.input.changelog:  # (BATCH mode sorts: weir.table.sort)
        from weir.table.changelog_rank import ChangelogTopN, unique_key

        return (
            planner.stream(node.input)
            .key_by(KeyOf(partition))
            .process(
                ChangelogTopN(
                    order,
                    directions,
                    node.rank_end,
                    node.output_rank,
                    unique_key(node),
                    node.rank_start,
                )
            )
            .name("Rank")
        )
    from weir.table import deduplicate

    keep = deduplicate.deduplication(node)
    stream = planner.stream(node.input).key_by(KeyOf(partition))
    if keep is not None:
        time_index = [c.name for c in columns].index(node.order[0][0].args[0])
        function = deduplicate.KeepLastRow if keep == "last" else deduplicate.KeepFirstRow
        return stream.process(function(time_index, node.output_rank)).name("Deduplicate")
    return stream.process(
        TopN(order, directions, node.rank_end, node.output_rank, node.rank_start)
    ).name("Rank")


__all__ = ["Rank", "TopN", "plan_rank"]
