"""The Table API's operators on weir's DataStream engine: records are (kind, values)
pairs, `kind` a RowKind's value (0 +I, 1 -U, 2 +U, 3 -D), `values` a tuple.

Operators that only look at one row (projection, filter, table functions) pass kinds
through. Operators that keep state (group aggregation, table aggregation, limit, join)
are keyed process functions: their state is weir's keyed state, so checkpoints,
savepoints and rescaling come with them. Their changelogs are Flink's: a group's first
result is +I, a changed result -U (old) then +U (new), an emptied group -D.
"""

import operator
from typing import Any, Callable, Iterable

from weir.common.row import Row
from weir.common.typeinfo import Types
from weir.datastream.functions import (
    FilterFunction,
    FlatMapFunction,
    KeyedCoProcessFunction,
    KeyedProcessFunction,
    MapFunction,
)
from weir.datastream.state import ListStateDescriptor, ValueStateDescriptor

INSERT, UPDATE_BEFORE, UPDATE_AFTER, DELETE = range(4)


def is_accumulate(kind: int) -> bool:
    return kind in (INSERT, UPDATE_AFTER)


class Project(MapFunction):
    """A projection of a row's values (its kind passed on); `indexes`: the projections
    are these columns (taken at C speed)."""

    def __init__(self, projections, indexes=None):
        self.projections = projections
        self.select = None if indexes is None else _selector(indexes)

    def map(self, record):
        kind, values = record
        if self.select is not None:
            return kind, self.select(values)
        return kind, tuple([p(values) for p in self.projections])


class Where(FilterFunction):
    """The rows whose `condition` is TRUE."""

    def __init__(self, condition):
        self.condition = condition

    def filter(self, record):
        return self.condition(record[1]) is True


def _selector(indexes):
    """The tuple of a row's values at `indexes`."""
    if len(indexes) == 1:
        return _One(indexes[0])
    return operator.itemgetter(*indexes)


class _One:
    def __init__(self, index):
        self.index = index

    def __call__(self, values):
        return (values[self.index],)


class CorrelateFunction(FlatMapFunction):
    """A table function on each row: the row's values (unless `replace`) and each row the
    function yields where `condition` holds on them (a left join keeps a row it joins
    nothing to, with NULLs)."""

    def __init__(self, function, args, width, left=False, replace=False, condition=None):
        self.function, self.args, self.width = function, args, width
        self.left, self.replace, self.condition = left, replace, condition

    def open(self, runtime_context):
        self.function.open(None) if hasattr(self.function, "open") else None

    def flat_map(self, record):
        kind, values = record
        produced = False
        evaluate = getattr(self.function, "eval", self.function)
        for result in evaluate(*(a(values) for a in self.args)) or ():
            joined = (() if self.replace else values) + _fields(result, self.width)
            if self.condition is None or self.condition(joined) is True:
                produced = True
                yield kind, joined
        if self.left and not produced:
            yield kind, values + (None,) * self.width


def _fields(result, width: int) -> tuple:
    if isinstance(result, (tuple, list, Row)):
        return tuple(result)
    return (result,) if width == 1 else tuple(result)


def _state(ctx_or_function, name):
    return ValueStateDescriptor(name, Types.PICKLED_BYTE_ARRAY())


class GroupAggregate(KeyedProcessFunction):
    """Flink's GroupAggFunction: per group, the number of rows and each aggregate's
    accumulator; emits the group's new result row (keys then aggregates) when it
    changes."""

    def __init__(self, key_functions, accumulators):
        self.key_functions = key_functions
        self.accumulators = accumulators  # weir.table.aggregates.Accumulator, one per call

    def open(self, runtime_context):
        self.state = runtime_context.get_state(_state(self, "group"))

    def process_element(self, record, ctx):
        kind, values = record
        stored = self.state.value()
        if stored is None:
            if not is_accumulate(kind):
                return  # a retraction of a row this group never counted (Flink drops it)
            stored = (0, [a.create() for a in self.accumulators], None)
        count, accs, previous = stored
        count += 1 if is_accumulate(kind) else -1
        accs = [
            a.accumulate(acc, values) if is_accumulate(kind) else a.retract(acc, values)
            for a, acc in zip(self.accumulators, accs)
        ]
        keys = tuple(f(values) for f in self.key_functions)
        if count <= 0:
            self.state.clear()
            if previous is not None:
                yield DELETE, previous
            return
        result = keys + tuple(a.value(acc) for a, acc in zip(self.accumulators, accs))
        self.state.update((count, accs, result))
        if previous is None:
            yield INSERT, result
        elif previous != result:
            yield UPDATE_BEFORE, previous
            yield UPDATE_AFTER, result


class Bundled:
    """PyFlink runs Python aggregate functions per bundle: a key's rows of a bundle are
    applied together and the key's result is emitted once for them (weir's bundle: a
    key group's rows of one micro-batch). `_apply(rows, ctx)` does one key's rows."""

    _buffer: dict  # (the subclass's open() sets it)
    _apply: Callable[[Any, Any], Iterable]  # (the subclass's)

    def process_element(self, record, ctx):
        self._buffer.setdefault(ctx.get_current_key(), []).append(record)

    def finish_bundle(self, select_key, ctx):
        buffered, self._buffer = self._buffer, {}
        for key, rows in buffered.items():
            select_key(key)
            yield from self._apply(rows, ctx)


class BundledGroupAggregate(Bundled, GroupAggregate):
    """A group aggregation per bundle (Flink's MiniBatchGroupAggFunction: under
    `table.exec.mini-batch.enabled`, and as PyFlink runs Python aggregate functions): a
    key's rows of a bundle are accumulated with one read and one write of its state, and
    the net change emitted: +I of the first result, -U/+U of a changed one, -D of an
    emptied group."""

    def open(self, runtime_context):
        super().open(runtime_context)
        self._buffer = {}

    def _apply(self, rows, ctx):
        stored = self.state.value()
        count, accs, previous = (0, None, None) if stored is None else stored
        accumulators = self.accumulators
        for kind, values in rows:
            if is_accumulate(kind):
                if accs is None:
                    accs = [a.create() for a in accumulators]
                count += 1
                accs = [a.accumulate(acc, values) for a, acc in zip(accumulators, accs)]
            elif accs is not None:  # (a retraction of a row never counted is dropped)
                count -= 1
                accs = [a.retract(acc, values) for a, acc in zip(accumulators, accs)]
                if count <= 0:
                    count, accs = 0, None
        if accs is None:
            self.state.clear()
            if previous is not None:
                yield DELETE, previous
            return
        result = tuple(f(rows[-1][1]) for f in self.key_functions) + tuple(
            a.value(acc) for a, acc in zip(accumulators, accs)
        )
        self.state.update((count, accs, result))
        if previous is None:
            yield INSERT, result
        elif previous != result:
            yield UPDATE_BEFORE, previous
            yield UPDATE_AFTER, result


class TableAggregate(KeyedProcessFunction):
    """Flink's GroupTableAggFunction: per group, one accumulator of a table aggregate
    function; per key and bundle (as PyFlink runs it) the rows it emitted before are
    retracted (-D) and what it emits now is inserted (+I)."""

    def __init__(self, key_functions, function, args, width):
        self.key_functions, self.function, self.args = key_functions, function, args
        self.width = width

    def open(self, runtime_context):
        self.state = runtime_context.get_state(_state(self, "accumulator"))
        self._buffer = {}

    def process_element(self, record, ctx):
        """(PyFlink runs a table aggregate per bundle: see finish_bundle.)"""
        self._buffer.setdefault(ctx.get_current_key(), []).append(record)

    def finish_bundle(self, select_key, ctx):
        """Per key of the bundle: the rows it emitted before retracted (-D), its rows
        applied, then what it emits now inserted (+I)."""
        buffered, self._buffer = self._buffer, {}
        for key, rows in buffered.items():
            select_key(key)
            yield from self._apply(rows)

    def _apply(self, rows):
        stored = self.state.value()
        accumulator = self.function.create_accumulator() if stored is None else stored
        keys = tuple(f(rows[0][1]) for f in self.key_functions)
        emitted = (
            []
            if stored is None
            else [keys + _fields(row, self.width) for row in self.function.emit_value(stored)]
        )
        for kind, values in rows:
            arguments = [a(values) for a in self.args]
            if is_accumulate(kind):
                self.function.accumulate(accumulator, *arguments)
            else:
                self.function.retract(accumulator, *arguments)
        for row in emitted:
            yield DELETE, row
        self.state.update(accumulator)
        for row in self.function.emit_value(accumulator):
            yield INSERT, keys + _fields(row, self.width)


END_OF_INPUT = 2**63 - 1  # the watermark a bounded input ends with


class Materialize(KeyedProcessFunction):
    """BATCH mode: a changelog applied, its final rows emitted as inserts once the input
    has ended (Flink's batch operators produce final results only). Keyed by the row."""

    def open(self, runtime_context):
        self.count = runtime_context.get_state(_state(self, "count"))

    def process_element(self, record, ctx):
        count = self.count.value()
        if count is None:
            ctx.timer_service().register_event_time_timer(END_OF_INPUT)
        self.count.update((count or 0) + (1 if is_accumulate(record[0]) else -1))

    def on_timer(self, timestamp, ctx):
        values = ctx.get_current_key()
        for _ in range(self.count.value() or 0):
            yield INSERT, values


class Limit(KeyedProcessFunction):
    """Flink's streaming LIMIT over an insert-only input: the first `fetch` rows after
    `offset`, all through one key."""

    def __init__(self, fetch: int, offset: int = 0):
        self.fetch, self.offset = fetch, offset

    def open(self, runtime_context):
        self.seen = runtime_context.get_state(_state(self, "seen"))

    def process_element(self, record, ctx):
        seen = self.seen.value() or 0
        self.seen.update(seen + 1)
        if self.offset <= seen < self.offset + self.fetch:
            yield record


class RegularJoin(KeyedCoProcessFunction):
    """Flink's streaming join, both inputs' rows kept in state by join key: a row pairs
    with every kept row of the other side that meets `condition` (+I; a retracted row's
    pairs are retracted with -D). Outer joins pad the side without a match with NULLs
    and retract that padded row once a match comes. `time_index`: the output's event-time
    column, whose value each output record carries as its timestamp (a window after the
    join assigns by it, as Flink's window operators read the row's time field)."""

    def __init__(self, condition, widths, kind="inner", time_index=None):
        self.condition, self.widths, self.kind = condition, widths, kind
        self.time_index = time_index

    def open(self, runtime_context):
        self.sides = [
            runtime_context.get_list_state(ListStateDescriptor(name, Types.PICKLED_BYTE_ARRAY()))
            for name in ("l", "r")
        ]

    def process_element1(self, record, ctx):
        return self._stamped(self._process(0, record), ctx)

    def process_element2(self, record, ctx):
        return self._stamped(self._process(1, record), ctx)

    def _stamped(self, outputs, ctx):
        if self.time_index is None:
            yield from outputs
            return
        from weir.table.windowing import to_millis

        for kind, values in outputs:
            time = values[self.time_index]
            ctx._stamp_outputs(None if time is None else to_millis(time))
            yield kind, values

    def _outer(self, side: int) -> bool:
        return self.kind == "full" or self.kind == ("left", "right")[side]

    def _pair(self, side, mine, other):
        return mine + other if side == 0 else other + mine

    def _padded(self, side, values):
        nulls = (None,) * self.widths[1 - side]
        return values + nulls if side == 0 else nulls + values

    def _process(self, side, record):
        kind, values = record
        mine, others = self.sides[side], self.sides[1 - side]
        kept_others = others.get() or []
        matches = [o for o in kept_others if self._matches(self._pair(side, values, o[0]))]
        if is_accumulate(kind):
            yield from self._accumulate(side, values, matches, mine, others, kept_others)
        else:
            yield from self._retract(side, values, matches, mine, others, kept_others)

    def _matches(self, joined) -> bool:
        return self.condition is None or self.condition(joined) is True

    def _accumulate(self, side, values, matches, mine, others, kept_others):
        mine.add((values, len(matches)))
        if not matches and self._outer(side):
            yield INSERT, self._padded(side, values)
        for other, count in matches:
            if count == 0 and self._outer(1 - side):
                yield DELETE, self._padded(1 - side, other)
            yield INSERT, self._pair(side, values, other)
        if matches:
            others.update([(o, c + 1) if (o, c) in matches else (o, c) for o, c in kept_others])

    def _retract(self, side, values, matches, mine, others, kept_others):
        kept = mine.get() or []
        for index, (row, _) in enumerate(kept):
            if row == values:
                del kept[index]
                break
        else:
            return  # a retraction of a row never seen
        mine.update(kept)
        if not matches and self._outer(side):
            yield DELETE, self._padded(side, values)
        for other, count in matches:
            yield DELETE, self._pair(side, values, other)
            if count == 1 and self._outer(1 - side):
                yield INSERT, self._padded(1 - side, other)
        if matches:
            others.update([(o, c - 1) if (o, c) in matches else (o, c) for o, c in kept_others])
