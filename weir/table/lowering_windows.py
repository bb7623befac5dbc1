"""Window aggregations as Spark SQL (for weir.table.lowering): a GROUP BY window_start,
window_end over `TUMBLE`, `HOP` or `CUMULATE` with built-in aggregates that Spark computes
as Flink does.

A bounded table of files is read in one micro-batch, so weir's operators find no row
late (the watermark passes it only at the batch's end) and close every window at the
end of the input: the windows' rows are a batch aggregation's, which Spark computes. Flink
drops a row its watermark has passed (docs/limitations.md: the watermark advances once
per micro-batch on weir). Window columns are computed on the time column's epoch
milliseconds (its wall clock as UTC, as `weir.table.window_tvf.windows_of`)."""

from weir.table.spark_sql import column_name, select, to_spark_sql

_EPOCH = "TIMESTAMP_NTZ'1970-01-01 00:00:00'"
_INTEGERS = ("TINYINT", "SMALLINT", "INT", "BIGINT")
_ORDERED = _INTEGERS + ("DECIMAL", "STRING", "VARCHAR", "CHAR", "TIMESTAMP", "DATE")


class WindowsOf:
    """The input's columns and window_start, window_end, window_time: a row per window
    of its time column (`time`, its index)."""

    def __init__(self, input, width, time, kind, size, step):
        self.input, self.width, self.time = input, width, time
        self.kind, self.size, self.step = kind, size, step

    def sql(self, views) -> str:
        millis = (
            f"timestampdiff(MILLISECOND, {_EPOCH}, coalesce({column_name(self.time)},"
            " raise_error('a row has a NULL time attribute')))"
        )
        starts, ends = self._windows()
        kept = [column_name(i) for i in range(self.width)]
        text = select([*kept, f"{millis} AS _ms"], self.input.sql(views))
        text = select([*kept, "_ms", f"{starts} AS _ws"], text)
        text = select([*kept, "_ms", "_ws", f"{ends} AS _we"], text)
        if self.kind == "hop":
            text = select(["*"], text, "_ws <= _ms AND _ms < _we")
        return select(
            [
                *kept,
                f"{_timestamp('_ws')} AS {column_name(self.width)}",
                f"{_timestamp('_we')} AS {column_name(self.width + 1)}",
                f"{_timestamp('_we - 1')} AS {column_name(self.width + 2)}",
            ],
            text,
        )

    def _windows(self):
        """(start, end) of a row's windows in epoch ms: SQL over `_ms` (exploded where a
        row has several), as windows_of computes them."""
        size, step = self.size, self.step
        if self.kind == "tumble":
            return f"(_ms - pmod(_ms, {size}))", f"(_ws + {size})"
        if self.kind == "hop":
            last = f"(_ms - pmod(_ms, {step}))"
            first = f"({last} - {((size - 1) // step) * step})"
            return f"explode(sequence({first}, {last}, CAST({step} AS BIGINT)))", f"(_ws + {size})"
        start = f"(_ms - pmod(_ms, {size}))"  # cumulate
        return start, (
            f"explode(sequence(_ws + {step} * (1 + (_ms - _ws) div {step}), "
            f"_ws + {size}, CAST({step} AS BIGINT)))"
        )


class AggregateOf:
    """GROUP BY keys with aggregates (Spark SQL over the input's `_c<i>`): the keys, then
    the aggregates, as `_c0`, `_c1`, ..."""

    def __init__(self, input, keys, aggregates):
        self.input, self.keys, self.aggregates = input, keys, aggregates

    def sql(self, views) -> str:
        named = [f"{e} AS {column_name(i)}" for i, e in enumerate(self.keys + self.aggregates)]
        text = self.input.sql(views)
        if not self.aggregates:
            return f"SELECT DISTINCT {', '.join(named)} FROM ({text}) AS _q"
        return select(named, text) + (f" GROUP BY {', '.join(self.keys)}" if self.keys else "")


def windows_of(node, sources, lowered, steps):
    """A window table function's rows (`node`, a WindowTvf of TUMBLE, HOP or CUMULATE)
    as a `steps(WindowsOf)`, or None; `lowered(node, sources)` lowers its input."""
    if node.kind not in ("tumble", "hop", "cumulate") or node.processing_time:
        return None
    if node.kind != "tumble" and (node.step <= 0 or node.size % node.step):
        return None  # (Flink refuses a size that is no multiple of the step)
    source = lowered(node.input, sources)
    if source is None:
        return None
    names = [c.name for c in node.input.columns]
    return steps(
        WindowsOf(
            source, len(names), names.index(node.time_column), node.kind, node.size, node.step
        ),
        [],
    )


def window_aggregate(node, sources, lowered, steps):
    """`node` (a window_tvf.WindowAggregate: over a window table function, or over a
    window aggregation's rows by their window_start and window_end, as
    weir.table.aggregation._cascaded_end makes it) as a `steps(AggregateOf)`, or None;
    `lowered(node, sources, windows=True)` lowers its input, window rows too."""
    from weir.table.window_tvf import in_processing_time

    if in_processing_time(node):
        return None  # (processing time: weir's operators, by the clock)
    return _grouped(node, lowered(node.input, sources, windows=True), steps)


def group_aggregate(node, sources, lowered, steps):
    """A group aggregation (a logical.Aggregate with keys and built-in aggregates) as a
    `steps(AggregateOf)`, or None: its final rows, which are what weir's operators give
    for a bounded table read in one micro-batch in BATCH mode or under mini-batch (one
    change per key and micro-batch: its +I); over other aggregations' final rows too.
    Not without keys: over no rows, Flink's streaming aggregation gives no row where
    Spark's gives one."""
    if node.table_aggregate is not None or not node.keys:
        return None
    return _grouped(node, lowered(node.input, sources, groups=True), steps)


def group_window_aggregate(node, sources, lowered, steps):
    """A group window aggregation (weir.table.windowing.WindowAggregate: the Table API's
    Tumble, Slide and Session, SQL's GROUP BY TUMBLE/HOP/SESSION) as steps: its keys, its
    aggregates, then the window's start, end and rowtime (end - 1 ms), or None. A tumbling
    or sliding window's rows are WindowsOf's; a session is Spark's `session_window`,
    whose sessions are Flink's (a row within the gap of a session's last row, the end
    included, joins it; checked with both)."""
    window, columns = node.window, node.input.columns
    if any(c.proctime for c in columns if c.name == window.time_field.args[0]):
        return None  # (processing time: weir's operators, by the clock)
    source = lowered(node.input, sources)
    if source is None or window.kind not in ("tumble", "slide", "session"):
        return None
    width, names = len(columns), [c.name for c in columns]
    time = names.index(window.time_field.args[0])
    keys = [to_spark_sql(k, columns) for k in node.keys]
    aggregates = [_aggregate(call, columns) for call in node.calls]
    if None in keys or None in aggregates or window.size <= 0:
        return None
    at = len(keys)  # (the window's columns in the grouping, after the keys)
    grouping = list(keys)
    if window.kind == "session":
        stamp = f"coalesce({column_name(time)}, raise_error('a row has a NULL time attribute'))"
        grouping.append(f"session_window({stamp}, '{window.size} milliseconds')")
        start, end = f"{column_name(at)}.start", f"{column_name(at)}.end"
    else:
        step = window.size if window.kind == "tumble" else window.slide
        if step is None or step <= 0:
            return None
        source = steps(
            WindowsOf(
                source,
                width,
                time,
                "tumble" if window.kind == "tumble" else "hop",
                window.size,
                step,
            ),
            [],
        )
        grouping += [column_name(width), column_name(width + 1)]
        start, end = column_name(at), column_name(at + 1)
    first = len(grouping)
    grouped = AggregateOf(source, grouping, aggregates)
    output = (
        [column_name(i) for i in range(at)]
        + [column_name(first + i) for i in range(len(aggregates))]
        + [start, end, f"{end} - INTERVAL 1 MILLISECOND"]
    )
    return steps(grouped, [("select", [f"{e} AS {column_name(i)}" for i, e in enumerate(output)])])


def _grouped(node, source, steps):
    columns = node.input.columns
    keys = [to_spark_sql(k, columns) for k in node.keys]
    aggregates = [_aggregate(call, columns) for call in node.calls]
    if source is None or None in keys or None in aggregates:
        return None
    return steps(AggregateOf(source, keys, aggregates), [])


def _aggregate(call, columns, where=None):
    """A built-in aggregate call as Spark SQL whose value is Flink's, or None; `where`:
    its FILTER condition (Spark SQL), which goes right after each aggregate function."""
    from weir.table.evaluate import compile_expression

    name, args = call
    if name == "agg_filter":
        inner_call, condition = args
        condition = to_spark_sql(condition, columns)
        return (
            None
            if condition is None or where is not None
            else _aggregate(inner_call, columns, condition)
        )
    if not isinstance(name, str) or len(args) > 1:
        return None
    only = "" if where is None else f" FILTER (WHERE {where})"
    if name == "count_star" or (name == "count" and not args):
        return f"count(1){only}"
    arg = to_spark_sql(args[0], columns)
    data_type = compile_expression(args[0], columns).data_type
    if arg is None:
        return None
    if name == "count":
        return f"count({arg}){only}"
    if name == "count_distinct":
        return f"count(DISTINCT {arg}){only}"
    if name in ("max", "min"):
        return f"{name}({arg}){only}" if data_type.name in _ORDERED else None
    return _sum_or_average(name, arg, data_type, only)


def _sum_or_average(name, arg, data_type, only=""):
    """SUM, SUM0 and AVG of integers (in their own type, wrapping as Java's; AVG's
    quotient truncated) or of DECIMALs (SUM: DECIMAL(38, s)); not of FLOAT or DOUBLE,
    whose sums depend on the order of the rows. `only`: a FILTER clause."""
    if data_type.name in _INTEGERS:
        if name == "avg":
            return (
                f"CAST(sum(CAST({arg} AS BIGINT)){only} div count({arg}){only} AS {data_type.name})"
            )
        total = f"CAST(sum({arg}){only} AS {data_type.name})"
    elif data_type.name == "DECIMAL" and name != "avg":
        total = f"CAST(sum({arg}){only} AS DECIMAL(38, {data_type.scale}))"
    else:
        return None
    if name == "sum0":
        return f"coalesce({total}, CAST(0 AS {_spark_name(data_type)}))"
    return total if name == "sum" else None


def _spark_name(data_type):
    if data_type.name == "DECIMAL":
        return f"DECIMAL(38, {data_type.scale})"
    return data_type.name


def _timestamp(millis: str) -> str:
    return f"timestampadd(MILLISECOND, {millis}, {_EPOCH})"
