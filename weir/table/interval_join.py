"""Flink's interval join: a join of two insert-only tables whose condition bounds the
right's event time by the left's from both sides (`r.t BETWEEN l.t - INTERVAL '1' MINUTE
AND l.t + INTERVAL '5' MINUTE`, or `>=`/`>` and `<=`/`<` conjuncts, any of them on
either side). A pair is inserted as soon as both rows are there, as in a regular join;
but a row is kept only until the watermark passes the last time a row of the other side
could pair with it, and an outer join's row that paired with none comes out then, once,
padded with NULLs (insert-only, where a regular outer join inserts the padded row at once
and retracts it on a match, and keeps every row forever).

With the bounds lower <= r.t - l.t <= upper: a left row at t expires when the watermark
reaches t + upper, a right row at t when it reaches t - lower. A row that arrives already
expired pairs with the rows still kept (an outer one is padded at once if it pairs with
none) and is not kept.
"""

import datetime
from typing import Tuple

from weir.common.typeinfo import Types
from weir.datastream.functions import KeyedCoProcessFunction
from weir.datastream.state import ValueStateDescriptor
from weir.table.changelog import INSERT
from weir.table.windowing import to_millis

_LOWER = {"greater_than_or_equal": 0, "greater_than": 1}  # (strict: one ms further)
_UPPER = {"less_than_or_equal": 0, "less_than": -1}
_FLIPPED = {
    "greater_than_or_equal": "less_than_or_equal",
    "greater_than": "less_than",
    "less_than_or_equal": "greater_than_or_equal",
    "less_than": "greater_than",
}


def interval_bounds(join):
    """(left time index, right time index, lower, upper): the bounds in ms of the right
    row's time minus the left's where `join`'s condition sets both, between the two
    inputs' event-time attributes, and both inputs are insert-only; else None."""
    from weir.table.planner import _conjuncts

    if join.condition is None or join.left.changelog or join.right.changelog:
        return None
    left = {c.name: i for i, c in enumerate(join.left.columns) if c.time_attribute}
    right = {c.name: i for i, c in enumerate(join.right.columns) if c.time_attribute}
    found: dict = {}  # (left index, right index) -> [lower, upper]
    for conjunct in _conjuncts(join.condition):
        bound = _bound_of(conjunct, left, right)
        if bound is not None:
            pair, side, value = bound
            bounds = found.setdefault(pair, [None, None])
            index = 0 if side == "lower" else 1
            better = max if side == "lower" else min
            bounds[index] = value if bounds[index] is None else better(bounds[index], value)
    for pair, (lower, upper) in found.items():
        if lower is not None and upper is not None:
            return pair + (lower, upper)
    return None


def _bound_of(conjunct, left, right):
    """((left index, right index), 'lower' or 'upper', ms) where `conjunct` bounds the
    right time minus the left time, else None."""
    if conjunct.op not in _FLIPPED:
        return None
    a, b = (_time_plus(arg) for arg in conjunct.args)
    if a is None or b is None:
        return None
    op = conjunct.op
    if a[0] in left and b[0] in right:  # l + da OP r + db: r - l FLIPPED(OP) da - db
        pair, op, value = (left[a[0]], right[b[0]]), _FLIPPED[op], a[1] - b[1]
    elif a[0] in right and b[0] in left:  # r + da OP l + db: r - l OP db - da
        pair, value = (left[b[0]], right[a[0]]), b[1] - a[1]
    else:
        return None
    if op in _LOWER:
        return pair, "lower", value + _LOWER[op]
    return pair, "upper", value + _UPPER[op]


def _time_plus(expr):
    """(column name, ms) of `col`, `col + INTERVAL` or `col - INTERVAL`, else None."""
    if expr.op == "col":
        return expr.args[0], 0
    if (
        expr.op in ("plus", "minus")
        and expr.args[0].op == "col"
        and expr.args[1].op == "lit"
        and isinstance(expr.args[1].args[0], datetime.timedelta)
    ):
        millis = int(expr.args[1].args[0].total_seconds() * 1000)
        return expr.args[0].args[0], millis if expr.op == "plus" else -millis
    return None


class IntervalJoin(KeyedCoProcessFunction):
    """One join key's kept rows of each side: [[time, values, paired]]."""

    def __init__(self, times, bounds, condition, widths, kind="inner"):
        self.times, self.condition, self.widths = times, condition, widths
        self.lower, self.upper = bounds
        self.outer = (kind in ("left", "full"), kind in ("right", "full"))

    def open(self, runtime_context):
        self.state = runtime_context.get_state(
            ValueStateDescriptor("interval-rows", Types.PICKLED_BYTE_ARRAY())
        )

    def process_element1(self, record, ctx):
        return self._process(0, record[1], ctx)

    def process_element2(self, record, ctx):
        return self._process(1, record[1], ctx)

    def _expiry(self, side, time):
        return time + self.upper if side == 0 else time - self.lower

    def _process(self, side, values, ctx):
        sides: Tuple[list, list] = self.state.value() or ([], [])
        time = to_millis(values[self.times[side]])
        paired, out = False, []
        for other in sides[1 - side]:
            joined = values + other[1] if side == 0 else other[1] + values
            if self.condition(joined) is True:
                paired = other[2] = True
                out.append((INSERT, joined))
        expiry = self._expiry(side, time)
        if expiry > ctx.timer_service().current_watermark():
            sides[side].append([time, values, paired])
            ctx.timer_service().register_event_time_timer(expiry)
        elif self.outer[side] and not paired:
            out.append((INSERT, self._padded(side, values)))
        self.state.update(sides)
        return out

    def _padded(self, side, values):
        nulls = (None,) * self.widths[1 - side]
        return values + nulls if side == 0 else nulls + values

    def on_timer(self, timestamp, ctx):
        sides = self.state.value()
        if sides is None:
            return
        watermark = max(timestamp, ctx.timer_service().current_watermark())
        kept: Tuple[list, list] = ([], [])
        for side in (0, 1):
            for row in sides[side]:
                if self._expiry(side, row[0]) > watermark:
                    kept[side].append(row)
                elif self.outer[side] and not row[2]:
                    yield INSERT, self._padded(side, row[1])
        if kept[0] or kept[1]:
            self.state.update(kept)
        else:
            self.state.clear()
