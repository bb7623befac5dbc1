"""Sorting in BATCH mode: `ORDER BY` (with or without `LIMIT`/`OFFSET`), the Table API's
`order_by(...)` with `offset`/`fetch`, and a `LIMIT` or a Top-N over a changelog (an
aggregate's updates), which BATCH mode takes as the aggregate's final rows.

The input's changes are applied per partition (`+I`/`+U` add a row, `-U`/`-D` take one
back) until the end of the input; then its rows come out in order, `offset` skipped and
at most `fetch` of them, as inserts (with their row number where a Top-N outputs the
rank). Ties keep arrival order. SQL's ORDER BY puts NULLs first ascending and last
descending; the Table API's order_by takes NULL as the largest value (last ascending,
first descending), as Flink's do.
A streaming query takes `ORDER BY` only with a `LIMIT` (a Top-N: weir.table.rank), as
Flink does on a column that is not a time attribute."""

import functools

from weir.common.typeinfo import Types
from weir.datastream.functions import KeyedProcessFunction
from weir.datastream.state import ListStateDescriptor
from weir.runtime.wire import MAX_WATERMARK
from weir.table import logical
from weir.table.changelog import INSERT, is_accumulate

STREAMING_SORT = "Sort on a non-time-attribute field is not supported."


class Sort(logical.UnaryNode):
    """The input's final rows per partition in `order` ([(expression, descending)]),
    from `offset` on, at most `fetch` (None: all), and their row number where
    `output_rank` (a Top-N's rank column)."""

    def __init__(
        self,
        columns,
        input,
        order,
        offset=0,
        fetch=None,
        partition=(),
        output_rank=False,
        nulls_high=False,
    ):
        super().__init__(columns, input)
        self.order, self.offset, self.fetch = list(order), offset, fetch
        self.partition, self.output_rank = list(partition), output_rank
        self.nulls_high = nulls_high  # (the Table API's order_by: NULL the largest)

    @property
    def changelog(self):
        return False

    def describe(self):
        keys = ", ".join(f"{e!r} {'DESC' if d else 'ASC'}" for e, d in self.order)
        return f"Sort(orderBy=[{keys}], offset=[{self.offset}], fetch=[{self.fetch}])"

    def limited(self, fetch, offset=0) -> "Sort":
        """This sort's rows after `offset` more, at most `fetch` (the Table API's
        `offset` and `fetch` after `order_by`)."""
        start = self.offset + offset
        if self.fetch is not None:
            fetch = (
                max(0, min(fetch, self.fetch - offset))
                if fetch is not None
                else max(0, self.fetch - offset)
            )
        return Sort(
            self.columns,
            self.input,
            self.order,
            start,
            fetch,
            self.partition,
            self.output_rank,
            self.nulls_high,
        )


class FinalRows(KeyedProcessFunction):
    """Per partition: the input's rows, changes applied, then sorted at the end."""

    def __init__(self, sort_functions, directions, offset, fetch, output_rank, nulls_high=False):
        self.sort_functions, self.directions = sort_functions, directions
        self.nulls_high = nulls_high
        self.offset, self.fetch, self.output_rank = offset, fetch, output_rank

    def open(self, runtime_context):
        self.rows = runtime_context.get_list_state(
            ListStateDescriptor("rows", Types.PICKLED_BYTE_ARRAY())
        )

    def process_element(self, record, ctx):
        kind, values = record
        if is_accumulate(kind):
            self.rows.add(values)
            ctx.timer_service().register_event_time_timer(MAX_WATERMARK)
            return
        rows = list(self.rows.get() or [])
        for index in range(len(rows) - 1, -1, -1):
            if rows[index] == values:
                del rows[index]
                self.rows.update(rows)
                return

    def on_timer(self, timestamp, ctx):
        rows = in_order(
            list(self.rows.get() or []), self.sort_functions, self.directions, self.nulls_high
        )
        self.rows.clear()
        end = None if self.fetch is None else self.offset + self.fetch
        for number, values in enumerate(rows[self.offset : end], self.offset + 1):
            yield INSERT, (values + (number,) if self.output_rank else values)


def in_order(rows, sort_functions, directions, nulls_high=False) -> list:
    """`rows` sorted by their keys (`sort_functions` of a row), each in its direction;
    ties keep their order."""
    keyed = [(tuple(f(values) for f in sort_functions), values) for values in rows]
    keyed.sort(
        key=functools.cmp_to_key(
            lambda a, b: compare(
                a[0],  # type: ignore[index]
                b[0],  # type: ignore[index]
                directions,
                nulls_high,
            )
        )
    )  # (keys first)
    return [values for _, values in keyed]


def compare(a, b, directions, nulls_high=False) -> int:
    """Sort keys `a` and `b` compared, each in its direction (True: descending); a NULL
    is the smallest value (`nulls_high`: the largest)."""
    for x, y, descending in zip(a, b, directions):
        if x is None or y is None:
            if x is None and y is None:
                continue
            nulls_first = (not descending) != nulls_high
            return -1 if (x is None) == nulls_first else 1
        result = (x > y) - (x < y)
        if result:
            return -result if descending else result
    return 0


def plan_sort(planner, node: Sort):
    from weir.table.evaluate import compile_expression
    from weir.table.planner import KeyOf

    columns = node.input.columns
    partition = [compile_expression(p, columns).function for p in node.partition]
    order = [compile_expression(e, columns).function for e, _ in node.order]
    directions = [descending for _, descending in node.order]
    return (
        planner.stream(node.input)
        .key_by(KeyOf(partition))
        .process(
            FinalRows(order, directions, node.offset, node.fetch, node.output_rank, node.nulls_high)
        )
        .name("Sort")
    )
