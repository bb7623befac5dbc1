"""Runs a logical plan (weir.table.logical) on weir's DataStream engine: each node
becomes DataStream operators over (kind, values) records (weir.table.changelog), so a
Table job is a weir job like any other: on Spark or the local executor, checkpointed,
savepointed and rescaled as one.

Every node is planned in the one StreamExecutionEnvironment of its job; nodes shared by
several sinks (a statement set) are planned once.
"""

import operator

from weir.common.watermark_strategy import TimestampAssigner
from weir.table import changelog
from weir.table.aggregates import accumulators_of
from weir.table.evaluate import compile_expression
from weir.table.expressions import Expression
from weir.table.logical import Aggregate, Calc, Correlate, Join, Limit, Node, Scan, Values, digest
from weir.table.windowing import to_millis
from weir.table.interval_join import IntervalJoin, interval_bounds
from weir.table.window_join import WindowJoin, window_join_ends


class KeyOf:
    """A key selector of (kind, values) records: a tuple of expressions' values."""

    def __init__(self, functions):
        self.functions = functions

    @staticmethod
    def at(indexes) -> "KeyOf":
        """The key of the values at `indexes`."""
        return KeyOf([operator.itemgetter(i) for i in indexes])

    def get_key(self, record):
        values = record[1]
        return tuple([f(values) for f in self.functions])

    __call__ = get_key


class RowtimeAssigner(TimestampAssigner):
    """The timestamp of a (kind, values) record: its time attribute's value."""

    def __init__(self, index):
        self.index = index

    def extract_timestamp(self, record, record_timestamp):
        return to_millis(record[1][self.index])


class Planner:
    def __init__(self, env, mini_batch: bool = False):
        self.env = env
        self.mini_batch = mini_batch  # (TableConfig.mini_batch)
        self._planned: dict = {}
        self._digests: dict = {}

    def stream(self, node: Node):
        """The DataStream of `node`'s (kind, values) records; nodes that compute the same
        rows share one (logical.digest)."""
        key = digest(node, self._digests)
        if key not in self._planned:
            planner = getattr(self, "_" + type(node).__name__.lower())
            self._planned[key] = (node, planner(node))
        return self._planned[key][1]

    def _streamscan(self, node):
        from weir.table.streams import RecordTime, _ToRecord

        if node.record_time is not None:
            stream = node.stream.process(RecordTime(node.record_time)).name("DataStreamScan")
        else:
            stream = node.stream.map(_ToRecord(len(node.columns))).name("DataStreamScan")
        if node.projections is not None:
            stream = _calc_of(stream, node.projections, node.physical)
        return _with_watermarks(stream, node.columns, node.rowtime, node.delay_ms)

    def _windowaggregate(self, node):
        from weir.table import window_tvf, windowing

        if isinstance(node, window_tvf.WindowAggregate):
            return window_tvf.plan_window_aggregate(self, node)
        return windowing.plan_window_aggregate(self, node)

    def _rank(self, node):
        from weir.table.rank import plan_rank

        return plan_rank(self, node)

    def _matchrecognize(self, node):
        from weir.table.match_recognize import plan_match_recognize

        return plan_match_recognize(self, node)

    def _sort(self, node):
        from weir.table.sort import plan_sort

        return plan_sort(self, node)

    def _temporalsort(self, node):
        from weir.table.temporal_sort import plan_temporal_sort

        return plan_temporal_sort(self, node)

    def _lookupjoin(self, node):
        from weir.table.lookup_join import plan_lookup_join

        return plan_lookup_join(self, node)

    def _temporaljoin(self, node):
        from weir.table.temporal_join import plan_temporal_join

        return plan_temporal_join(self, node)

    def _windowtvf(self, node):
        from weir.table.window_tvf import plan_window_tvf

        return plan_window_tvf(self, node)

    def _overaggregate(self, node):
        from weir.table.windowing import plan_over_aggregate

        return plan_over_aggregate(self, node)

    def _values(self, node: Values):
        records = [(changelog.INSERT, tuple(row)) for row in node.rows]
        return self.env.from_collection(records).name("Values")

    def _scan(self, node: Scan):
        physical = node.physical if node.physical is not None else node.columns
        stream = node.connector.source_stream(self.env, node.path, physical)
        if node.projections is not None:
            stream = _calc_of(stream, node.projections, physical)
        return _with_watermarks(stream, node.columns, node.rowtime, node.delay_ms)

    def _calc(self, node: Calc):
        return _calc_of(
            self.stream(node.input), node.projections, node.input.columns, node.condition
        )

    def _aggregate(self, node: Aggregate):
        columns = node.input.columns
        keys = [compile_expression(k, columns).function for k in node.keys]
        stream = self.stream(node.input).key_by(KeyOf(keys))
        if node.table_aggregate is not None:
            function, args = node.table_aggregate
            arguments = [compile_expression(a, columns).function for a in args]
            width = len(node.columns) - len(keys)
            return stream.process(
                changelog.TableAggregate(keys, function.function, arguments, width)
            ).name("GroupTableAggregate")
        accumulators = accumulators_of(node.calls, columns)
        python = any(not isinstance(name, str) for name, _ in node.calls)
        kind = (
            changelog.BundledGroupAggregate
            if python or self.mini_batch
            else changelog.GroupAggregate
        )
        return stream.process(kind(keys, accumulators)).name("GroupAggregate")

    def _limit(self, node: Limit):
        if node.input.changelog:  # (a Top-N without a sort key: the first rows to come)
            if node.offset:
                raise NotImplementedError(
                    "OFFSET over a changelog (an aggregate's updates) "
                    "in a streaming query is not supported by weir's "
                    "Table API yet"
                )
            from weir.table.changelog_rank import ChangelogTopN

            return (
                self.stream(node.input)
                .key_by(KeyOf([]))
                .process(ChangelogTopN([], [], node.fetch, False))
                .name("Limit")
            )
        return (
            self.stream(node.input)
            .key_by(KeyOf([]))
            .process(changelog.Limit(node.fetch, node.offset))
            .name("Limit")
        )

    def _join(self, node: Join):
        left_width = len(node.left.columns)
        left_keys, right_keys = equi_keys(node.condition, node.left.columns, node.right.columns)
        condition = (
            None
            if node.condition is None
            else compile_expression(node.condition, node.columns).function
        )
        left, right = self.stream(node.left), self.stream(node.right)
        widths = (left_width, len(node.right.columns))
        keyed = left.connect(right).key_by(KeyOf(left_keys), KeyOf(right_keys))
        ends = window_join_end(node)
        if ends is not None:
            return keyed.process(
                WindowJoin((left_keys[ends], right_keys[ends]), condition, widths, node.kind)
            ).name("WindowJoin")
        interval = interval_bounds(node)
        if interval is not None:
            return keyed.process(
                IntervalJoin(interval[:2], interval[2:], condition, widths, node.kind)
            ).name("IntervalJoin")
        times = [i for i, c in enumerate(node.columns) if c.time_attribute and not c.proctime]
        return keyed.process(
            changelog.RegularJoin(
                condition, widths, node.kind, times[0] if len(times) == 1 else None
            )
        ).name("Join")

    def _union(self, node):
        first, *others = [self.stream(part) for part in node.parts]
        return first.union(*others)

    def _correlate(self, node: Correlate):
        columns = node.input.columns
        args = [compile_expression(a, columns).function for a in node.args]
        width = len(node.columns) - (0 if node.replace else len(columns))
        condition = (
            None
            if node.condition is None
            else compile_expression(node.condition, node.columns).function
        )
        return (
            self.stream(node.input)
            .flat_map(
                changelog.CorrelateFunction(
                    node.function.function,
                    args,
                    width,
                    node.kind == "left",
                    node.replace,
                    condition,
                )
            )
            .name("Correlate")
        )


def _calc_of(stream, projections, columns, condition=None):
    """`stream` projected and filtered (not at all where the projections are its columns
    as they are)."""
    indexes = _column_indexes(projections, columns)
    if condition is None and indexes == list(range(len(columns))):
        return stream
    if condition is not None:
        stream = stream.filter(
            changelog.Where(compile_expression(condition, columns).function)
        ).name("Calc")
        if indexes == list(range(len(columns))):
            return stream
    compiled = [compile_expression(p, columns).function for p in projections]
    return stream.map(changelog.Project(compiled, indexes)).name("Calc")


def _column_indexes(projections, columns):
    """The columns' indexes where every projection is a column (maybe renamed), else
    None."""
    names = [c.name for c in columns]
    indexes = []
    for expr in projections:
        while expr.op == "alias":
            expr = expr.args[0]
        if expr.op != "col" or expr.args[0] not in names:
            return None
        indexes.append(names.index(expr.args[0]))
    return indexes


def _with_watermarks(stream, columns, rowtime, delay_ms):
    """Timestamps from the time attribute `rowtime` and watermarks `delay_ms` behind."""
    if rowtime is None:
        return stream
    from weir.common.time import Duration
    from weir.common.watermark_strategy import WatermarkStrategy

    index = [c.name for c in columns].index(rowtime)
    # Flink SQL's watermark is `ts - delay`; the bounded out-of-orderness strategy's is
    # `max - delay - 1 ms`
    strategy = WatermarkStrategy.for_bounded_out_of_orderness(
        Duration.of_millis(max(delay_ms - 1, 0))
    ).with_timestamp_assigner(RowtimeAssigner(index))
    return stream.assign_timestamps_and_watermarks(strategy)


def _conjuncts(condition: Expression):
    if condition.op == "and":
        for arg in condition.args:
            yield from _conjuncts(arg)
    else:
        yield condition


def window_join_end(join):
    """Where `join` is a window join (weir.table.window_join), the position of the
    windows' ends among its equality keys, else None."""
    pairs = equi_names(join.condition, join.left.columns, join.right.columns)
    return window_join_ends(join, [a for a, _ in pairs], [b for _, b in pairs])


def equi_keys(condition, left_columns, right_columns):
    """The key functions of each side from the `a = b` conjuncts of a join condition that
    compare a column of one side with a column of the other ([] and []: none, every
    row meets every row of the other side under one key)."""
    pairs = equi_names(condition, left_columns, right_columns)
    return (
        [compile_expression(Expression("col", a), left_columns).function for a, _ in pairs],
        [compile_expression(Expression("col", b), right_columns).function for _, b in pairs],
    )


def equi_names(condition, left_columns, right_columns):
    """[(left column, right column)] of the `a = b` conjuncts of a join condition that
    compare a column of one side with a column of the other."""
    left_names = {c.name for c in left_columns}
    right_names = {c.name for c in right_columns}
    pairs = []
    for conjunct in [] if condition is None else _conjuncts(condition):
        if conjunct.op != "equals" or any(a.op != "col" for a in conjunct.args):
            continue
        a, b = (arg.args[0] for arg in conjunct.args)
        if a in left_names and b in right_names:
            pairs.append((a, b))
        elif b in left_names and a in right_names:
            pairs.append((b, a))
    return pairs
