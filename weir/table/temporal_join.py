"""Flink's event-time temporal join: `JOIN rates FOR SYSTEM_TIME AS OF o.order_time AS r
ON o.currency = r.currency`, where `o.order_time` is the left's event-time attribute and
`rates` a versioned table (a primary key and an event-time attribute; an upsert or
insert-only table, each row a new version of its key; or a versioned view: a
deduplication keeping each key's latest row).

Per join key (the ON condition's equalities, which hold the right's primary key), the
left rows wait until the watermark passes their time; then each joins the right's
version valid at that time: the latest at or before it (a deleted key has none). Where
there is none, or the rest of the ON condition fails on it, an inner join drops the row
and a LEFT join pads it with NULLs. Versions that no waiting or later left row can see
(older than the latest at or before the watermark) are dropped. Insert-only output; the
left's time attribute stays one (the right's does not).
"""

import bisect

from weir.common.typeinfo import Types
from weir.datastream.functions import KeyedCoProcessFunction
from weir.datastream.state import ValueStateDescriptor
from weir.table import logical
from weir.table.changelog import UPDATE_BEFORE, is_accumulate
from weir.table.evaluate import Column, not_supported
from weir.table.windowing import to_millis


class TemporalJoin(logical.Node):
    """The left's columns, then the versioned table's (`kind` inner or left)."""

    def __init__(self, columns, left, right, condition, kind, left_time, right_time):
        super().__init__(columns)
        self.left, self.right, self.condition, self.kind = left, right, condition, kind
        self.left_time, self.right_time = left_time, right_time  # (column indexes)

    @property
    def inputs(self):
        return [self.left, self.right]

    @property
    def changelog(self):
        return self.left.changelog

    def describe(self):
        return f"TemporalJoin(joinType=[{self.kind.capitalize()}Join])"


def temporal_join(left, right, as_of, condition, kind):
    """The Table of `left` joined with the versioned table `right` as of the left's
    column `as_of` (its event-time attribute), on `condition`."""
    left_columns, right_columns = left._node.columns, right._node.columns
    left_time = next((i for i, c in enumerate(left_columns) if c.name == as_of), None)
    if left_time is None or not left_columns[left_time].time_attribute:
        not_supported(
            f"FOR SYSTEM_TIME AS OF '{as_of}', which is not the left table's "
            "event-time attribute (weir joins versioned tables as of it, and "
            "looks up jdbc tables as of a processing-time attribute)"
        )
    right_time = next((i for i, c in enumerate(right_columns) if c.time_attribute), None)
    if right_time is None or not _primary_key(right._node):
        raise ValueError(
            "a temporal join as of an event time needs a versioned table: "
            "the right table needs a PRIMARY KEY and an event-time attribute "
            "(a WATERMARK)"
        )
    if kind not in ("inner", "left"):
        not_supported(f"a {kind.upper()} temporal join (Flink's are inner or LEFT)")
    if condition is None:
        raise ValueError(
            "a temporal join needs an equality on the versioned table's "
            "primary key in its ON condition"
        )
    columns = list(left_columns) + [Column(c.name, c.data_type) for c in right_columns]
    node = TemporalJoin(columns, left._node, right._node, condition, kind, left_time, right_time)
    return left._derive(node)


def _primary_key(node):
    """The primary key of the table a right side reads (through projections): its
    connector's, or a deduplication's partition (a versioned view: Flink's `ROW_NUMBER()
    OVER (PARTITION BY key ORDER BY time DESC) = 1`)."""
    from weir.table.deduplicate import deduplication
    from weir.table.rank import Rank

    while isinstance(node, logical.Calc):
        node = node.input
    if isinstance(node, Rank):
        return list(node.partition) if deduplication(node) == "last" else []
    connector = getattr(node, "connector", None)
    return list(getattr(connector, "primary_key", []) or [])


class VersionedJoin(KeyedCoProcessFunction):
    """One join key's waiting left rows [(time, arrival, values)] and the versioned
    table's versions {time: (kind, values)} (one per time: the last to arrive)."""

    def __init__(self, left_time, right_time, condition, right_width, left_outer):
        self.left_time, self.right_time = left_time, right_time
        self.condition, self.right_width = condition, right_width
        self.left_outer = left_outer

    def open(self, runtime_context):
        self.state = runtime_context.get_state(
            ValueStateDescriptor("temporal", Types.PICKLED_BYTE_ARRAY())
        )

    def process_element1(self, record, ctx):
        kind, values = record
        arrival, lefts, versions = self.state.value() or (0, [], {})
        time = to_millis(values[self.left_time])
        lefts.append((time, arrival, kind, values))  # type: ignore[arg-type]  # (mypy: [] is list[Never])
        self.state.update((arrival + 1, lefts, versions))
        ctx.timer_service().register_event_time_timer(time)
        return ()

    def process_element2(self, record, ctx):
        kind, values = record
        if kind == UPDATE_BEFORE:
            return ()  # (the versions are upserts, as Flink asks of its input: +U is one)
        arrival, lefts, versions = self.state.value() or (0, [], {})
        versions[to_millis(values[self.right_time])] = (kind, values)  # type: ignore[index,assignment]  # (as above)
        self.state.update((arrival, lefts, versions))
        return ()

    def on_timer(self, timestamp, ctx):
        stored = self.state.value()
        if stored is None:
            return
        arrival, lefts, versions = stored
        watermark = max(timestamp, ctx.timer_service().current_watermark())
        due = sorted((row for row in lefts if row[0] <= watermark), key=lambda r: r[:2])
        times = sorted(versions)
        for time, _, kind, values in due:
            yield from self._joined(kind, values, _version_at(versions, times, time))
        waiting = [row for row in lefts if row[0] > watermark]
        kept = _unexpired(versions, times, watermark)
        if waiting or kept:
            self.state.update((arrival, waiting, kept))
        else:
            self.state.clear()

    def _joined(self, kind, values, version):
        if version is not None and is_accumulate(version[0]):
            joined = values + version[1]
            if self.condition is None or self.condition(joined) is True:
                yield kind, joined
                return
        if self.left_outer:
            yield kind, values + (None,) * self.right_width


def _version_at(versions, times, time):
    """The version valid at `time`: the latest at or before it, else None."""
    index = bisect.bisect_right(times, time)
    return versions[times[index - 1]] if index else None


def _unexpired(versions, times, watermark):
    """The versions a left row at or after the watermark may still join: the latest at
    or before it (unless it deletes the key) and every later one."""
    older = [t for t in times if t <= watermark]
    kept = {t: versions[t] for t in times if t > watermark}
    if older and is_accumulate(versions[older[-1]][0]):
        kept[older[-1]] = versions[older[-1]]
    return kept


def plan_temporal_join(planner, node):
    from weir.table.evaluate import compile_expression
    from weir.table.planner import KeyOf, equi_keys

    left_keys, right_keys = equi_keys(node.condition, node.left.columns, node.right.columns)
    if not left_keys:
        raise ValueError(
            "a temporal join needs an equality between the two tables' columns in its ON condition"
        )
    condition = compile_expression(node.condition, node.columns).function
    left, right = planner.stream(node.left), planner.stream(node.right)
    return (
        left.connect(right)
        .key_by(KeyOf(left_keys), KeyOf(right_keys))
        .process(
            VersionedJoin(
                node.left_time,
                node.right_time,
                condition,
                len(node.right.columns),
                node.kind == "left",
            )
        )
        .name("TemporalJoin")
    )
