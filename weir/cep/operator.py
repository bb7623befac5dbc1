"""The CEP operator: a keyed function on weir's state and timers (so checkpoints,
savepoints and rescaling need nothing of its own), as Flink's CepOperator.

In event time an event waits (in the key's state, with its partial matches) until the
watermark passes it; then the key's waiting events are fed to the NFA in timestamp
order (ties by the comparator, then arrival), each timestamp's after the partial matches
are timed out to it, and at last the partial matches are timed out to the watermark. An event at or
behind the watermark is late: to the late-data side output, or dropped and counted
(numLateRecordsDropped). A timer just past the watermark while events wait (one per key
and watermark, as Flink's), and one at the earliest end of a partial match's window,
bring the operator back. In processing time an event is fed at
once, at the current processing time; with a comparator (as Flink's) it waits for a
processing-time timer a millisecond later, which feeds the key's waiting events in
arrival time order, events of one time by the comparator (and, at the end of a bounded
input, where Flink's processing-time timers may not fire, the final watermark feeds
them). A match's outputs carry the timestamp of the event that completed it; a
timed-out match's, the end of its window.
"""

import functools

from weir.cep.compiler import compile_pattern
from weir.cep.nfa import NFA
from weir.common.typeinfo import Types
from weir.datastream.functions import KeyedProcessFunction
from weir.datastream.state import ValueStateDescriptor
from weir.runtime.wire import MAX_WATERMARK

_NO_TIMESTAMP = -(2**63)


def _time_of(waiting) -> int:
    return waiting[0]


def _by_time(waiting):
    """(time, [events]) of `waiting` (sorted by time)."""
    group: list
    group, current = [], None
    for stamp, event in waiting:
        if stamp != current and group:
            yield current, group
            group = []
        current = stamp
        group.append(event)
    if group:
        yield current, group


class PatternContext:
    """The `ctx` of process_match and process_timed_out_match."""

    def __init__(self, ctx, timestamp: int):
        self._ctx, self._timestamp = ctx, timestamp

    def timestamp(self) -> int:
        return self._timestamp

    def current_processing_time(self) -> int:
        return self._ctx.timer_service().current_processing_time()

    def output(self, output_tag, value) -> None:
        self._ctx.output(output_tag, value)


class CepOperator(KeyedProcessFunction):
    """`function`: a PatternProcessFunction (with process_match(match, ctx), and
    process_timed_out_match(match, ctx) if it is a TimedOutPartialMatchHandler)."""

    def __init__(
        self, pattern, function, comparator=None, late_tag=None, processing_time: bool = False
    ):
        self.pattern, self.function, self.comparator = pattern, function, comparator
        self.late_tag, self.processing_time = late_tag, processing_time
        compile_pattern(pattern)  # (a malformed pattern fails when the job is built)

    def open(self, runtime_context):
        self.nfa = NFA(compile_pattern(self.pattern))
        self.nfa_state = runtime_context.get_state(  # (with the events waiting)
            ValueStateDescriptor("cep-nfa-state", Types.PICKLED_BYTE_ARRAY())
        )
        self.late_dropped = runtime_context.get_metrics_group().counter("numLateRecordsDropped")
        self.timed_out = getattr(self.function, "process_timed_out_match", None)
        opening = getattr(self.function, "open", None)
        if callable(opening):
            opening(runtime_context)

    def close(self):
        closing = getattr(self.function, "close", None)
        if callable(closing):
            closing()

    # -- events -----------------------------------------------------------------------
    def process_element(self, value, ctx):
        self.nfa.processing_time = ctx.timer_service().current_processing_time
        if self.processing_time and self.comparator is None:
            yield from self._at_once(value, ctx)
            return
        if self.processing_time:
            self._wait(value, ctx)
            return
        timestamp = ctx.timestamp()
        if timestamp == _NO_TIMESTAMP:
            raise ValueError(
                "CEP in event time needs each event's timestamp: assign them "
                "(assign_timestamps_and_watermarks) or use in_processing_time()"
            )
        watermark = ctx.timer_service().current_watermark()
        if timestamp > watermark:
            state = self._state()
            if not state.waiting:  # (else the timer is set)
                ctx.timer_service().register_event_time_timer(watermark + 1)
            state.waiting.append((timestamp, value))
            self.nfa_state.update(state)
        elif self.late_tag is not None:
            ctx.output(self.late_tag, value)
        else:
            self.late_dropped.inc()

    def _at_once(self, value, ctx):
        now = ctx.timer_service().current_processing_time()
        state = self._state()
        yield from self._advance(state, now, ctx)
        yield from self._matches(self.nfa.process(state, value, now), now, ctx)
        self._save(state, ctx, now)

    def _wait(self, value, ctx):
        """Processing time with a comparator: the event waits for the timer a
        millisecond later (and for the final watermark, should the input end first)."""
        timers = ctx.timer_service()
        now = timers.current_processing_time()
        state = self._state()
        if not state.waiting:
            timers.register_event_time_timer(MAX_WATERMARK)
        state.waiting.append((now, value))
        timers.register_processing_time_timer(now + 1)
        self.nfa_state.update(state)

    def on_timer(self, timestamp, ctx):
        self.nfa.processing_time = ctx.timer_service().current_processing_time
        if self.processing_time:
            now = ctx.timer_service().current_processing_time()
            state = self._state()
            if state.waiting:
                if timestamp != MAX_WATERMARK:
                    ctx.timer_service().delete_event_time_timer(MAX_WATERMARK)
                yield from self._feed(state, state.waiting, ctx)
                state.waiting = []
            yield from self._advance(state, now, ctx)
            self._save(state, ctx, now)
            return
        watermark = ctx.timer_service().current_watermark()
        state = self._state()
        due = [w for w in state.waiting if w[0] <= watermark]
        if due:
            state.waiting = [w for w in state.waiting if w[0] > watermark]
            yield from self._feed(state, due, ctx)
        yield from self._advance(state, watermark, ctx)
        self._save(state, ctx, watermark)
        if state.waiting:  # (events the watermark has not passed yet: at the next one)
            ctx.timer_service().register_event_time_timer(watermark + 1)

    def _feed(self, state, waiting, ctx):
        """The NFA fed `waiting` (time, event) in time order, events of one time by the
        comparator, then in arrival order; partial matches timed out before each time."""
        waiting = sorted(waiting, key=_time_of)  # (stable: arrival order kept)
        for stamp, events in _by_time(waiting):
            yield from self._advance(state, stamp, ctx)
            for event in self._in_order(events):
                yield from self._matches(self.nfa.process(state, event, stamp), stamp, ctx)

    def _in_order(self, events: list) -> list:
        if self.comparator is None or len(events) < 2:
            return events
        compare = getattr(self.comparator, "compare", self.comparator)
        return sorted(events, key=functools.cmp_to_key(compare))

    # -- the NFA's state --------------------------------------------------------------
    def _state(self):
        state = self.nfa_state.value()
        return self.nfa.initial_state() if state is None else state

    def _save(self, state, ctx, now: int) -> None:
        if state.has_partial_matches() or state.waiting:
            self.nfa_state.update(state)
            deadline = state.deadline
            if deadline is not None:
                service = ctx.timer_service()
                if self.processing_time:
                    service.register_processing_time_timer(max(deadline, now + 1))
                else:
                    service.register_event_time_timer(max(deadline, now + 1))
        else:
            self.nfa_state.clear()

    # -- outputs ----------------------------------------------------------------------
    def _advance(self, state, timestamp: int, ctx):
        matches, timed_out = self.nfa.advance_time(state, timestamp)
        yield from self._matches(matches, timestamp, ctx)
        if self.timed_out is None:
            return
        for match, ended in timed_out:
            ctx._stamp_outputs(ended)
            result = self.timed_out(match, PatternContext(ctx, ended))
            if result is not None:
                yield from result

    def _matches(self, matches, timestamp: int, ctx):
        if not matches:
            return
        ctx._stamp_outputs(timestamp)
        for match in matches:
            result = self.function.process_match(match, PatternContext(ctx, timestamp))
            if result is not None:
                yield from result
