"""Running a compiled pattern (weir.cep.compiler) over one key's events, in timestamp
order, as FlinkCEP's NFA runs.

A partial match (Flink's computation state) is (state index, path, start timestamp,
start event id, previous event's timestamp); its path is a chain of (earlier path,
pattern name, event, event id) shared by the partial matches that branched from it, so
each event is held once however many partial matches took it (and pickled once with
the key's state). An event id is (timestamp, number among the events of that
timestamp), ordered as Flink orders EventIds.

`process(state, event, timestamp)` gives the matches the event completes;
`advance_time(state, timestamp)` times out partial matches whose window has passed
(their events, for a TimedOutPartialMatchHandler) and gives the matches of pending
`not_followed_by` ends. With a skip strategy, a match waits (in `state.completed`) until
no partial match that started before it is left, then prunes as its strategy says.
"""

from typing import List, Optional

from weir.cep.compiler import FINAL, IGNORE, PENDING, PROCEED, START, STOP

_LAST = (float("inf"), float("inf"))


class NFAState:
    """One key's partial matches (by their start), the matches a skip strategy holds
    back, the numbering of the events of the latest timestamp, and the events waiting
    for the watermark."""

    def __init__(self, start_index: int):
        self.partial = [(start_index, None, None, None, None)]
        self.completed: list = []
        self.last_timestamp: Optional[int] = None
        self.count = 0
        self.waiting: list = []  # (timestamp, event) not yet fed, the operator's
        self.deadline = None  # the earliest end of a partial match's window, if any

    def next_event_id(self, timestamp: int) -> tuple:
        if timestamp != self.last_timestamp:
            self.last_timestamp, self.count = timestamp, 0
        else:
            self.count += 1
        return timestamp, self.count

    def has_partial_matches(self) -> bool:
        return len(self.partial) > 1 or bool(self.completed)


def _order(partial) -> tuple:
    start_id = partial[3]
    return _LAST if start_id is None else start_id


def events_of(path, name=None) -> list:
    """The events of `path`, oldest first (of pattern `name` only, if given)."""
    found = []
    while path is not None:
        path, pattern, event, _ = path
        if name is None or pattern == name:
            found.append(event)
    found.reverse()
    return found


def match_of(path, ids=False) -> dict:
    """pattern name -> its events (or event ids) in order, for the names with events."""
    match: dict = {}
    while path is not None:
        path, pattern, event, event_id = path
        match.setdefault(pattern, []).append(event_id if ids else event)
    for events in match.values():
        events.reverse()
    return dict(reversed(list(match.items())))


class _Context:
    """An IterativeCondition's `ctx`: the partial match before the event."""

    def __init__(self, path, timestamp, processing_time):
        self._path, self._timestamp, self._now = path, timestamp, processing_time

    def get_events_for_pattern(self, name: str) -> list:
        return events_of(self._path, name)

    def timestamp(self) -> int:
        return self._timestamp

    def current_processing_time(self) -> int:
        return self._now()


class NFA:
    """`processing_time`: the clock an IterativeCondition's
    `ctx.current_processing_time()` reads (the operator's timer service's)."""

    def __init__(self, compiled, processing_time=lambda: 0):
        self.states = compiled.states
        self.kinds = [state.kind for state in self.states]
        self.may_end = [_proceeds_to_final(state) for state in self.states]
        self.start = compiled.start.index
        self.window = compiled.window
        self.window_times = compiled.window_times
        self.skip = compiled.skip_strategy
        self.processing_time = processing_time

    def initial_state(self) -> NFAState:
        return NFAState(self.start)

    # -- an event ---------------------------------------------------------------------
    def process(self, nfa_state: NFAState, event, timestamp: int) -> List[dict]:
        event_id = nfa_state.next_event_id(timestamp)
        partial, potential, kinds = [], [], self.kinds
        ctx = _Context(None, timestamp, self.processing_time)  # (its path set per match)
        for current in nfa_state.partial:
            retained, stopped = [], False
            for state in self._next_states(current, event, timestamp, event_id, ctx):
                kind = kinds[state[0]]
                if kind == FINAL:
                    potential.append(state)
                elif kind == STOP:
                    stopped = True
                else:
                    retained.append(state)
            if not stopped:
                partial.extend(retained)
        partial.sort(key=_order)
        potential.sort(key=_order)
        return self._emit(nfa_state, potential, partial)

    def _next_states(self, current, event, timestamp, event_id, ctx) -> list:
        index, path, start_ts, start_id, _ = current
        is_start = self.kinds[index] == START
        ctx._path = path
        found = []
        for action, source, target in self._edges(self.states[index], event, ctx):
            if action == IGNORE:
                if not is_start:
                    found.append((target.index, path, start_ts, start_id, current[4]))
                continue
            taken = (path, source.pattern, event, event_id)
            first_ts, first_id = (timestamp, event_id) if is_start else (start_ts, start_id)
            found.append((target.index, taken, first_ts, first_id, timestamp))
            final = (
                self._final_after_proceed(target, event, ctx)
                if self.may_end[target.index]
                else None
            )
            if final is not None:
                found.append((final.index, taken, first_ts, first_id, timestamp))
        if is_start:
            found.append(current)
        return found

    def _edges(self, state, event, ctx) -> list:
        """The TAKE and IGNORE transitions that `event` takes from `state`, through its
        PROCEED transitions (tried last-added first, as Flink's stack does)."""
        edges, stack = [], [state]
        while stack:
            source = stack.pop()
            for action, target, condition in source.transitions:
                if condition is not None and not condition(event, ctx):
                    continue
                if action == PROCEED:
                    stack.append(target)
                else:
                    edges.append((action, source, target))
        return edges

    def _final_after_proceed(self, state, event, ctx):
        """The final state, where `state` can PROCEED to it on `event`, or None."""
        stack = [state]
        while stack:
            current = stack.pop()
            for action, target, condition in current.transitions:
                if action == PROCEED and (condition is None or condition(event, ctx)):
                    if target.kind == FINAL:
                        return target
                    stack.append(target)
        return None

    # -- time -------------------------------------------------------------------------
    def advance_time(self, nfa_state: NFAState, timestamp: int):
        """(matches of pending ends, timed-out partial matches as (events by pattern
        name, the time their window ended)) at `timestamp`."""
        if nfa_state.deadline is None or timestamp < nfa_state.deadline:
            return [], []  # (nothing ends: nothing changes)
        partial, potential, timed_out = [], [], []
        for current in nfa_state.partial:
            by_previous, by_first = self._window_ends(current)
            if by_previous is not None and timestamp >= by_previous:
                ended = by_previous
            elif by_first is not None and timestamp >= by_first:
                ended = by_first
            else:
                partial.append(current)
                continue
            if self.kinds[current[0]] == PENDING:
                potential.append(current)
            else:
                timed_out.append((match_of(current[1]), ended))
        potential.sort(key=_order)
        return self._emit(nfa_state, potential, partial), timed_out

    # -- matches ----------------------------------------------------------------------
    def _window_ends(self, current) -> tuple:
        """When `current`'s windows end: (from its previous event, PREVIOUS_AND_CURRENT;
        from its first, FIRST_AND_LAST), each None where it has no such window (the
        start state has none)."""
        index, _, start_ts, start_id, previous_ts = current
        if start_id is None:
            return None, None
        gap = self.window_times.get(self.states[index].name) if self.window_times else None
        return (
            None if gap is None else previous_ts + gap,
            start_ts + self.window if self.window > 0 else None,
        )

    def _deadline(self, partial: list):
        """The earliest time a window of `partial` ends, or None."""
        ends = [end for current in partial for end in self._window_ends(current) if end is not None]
        return min(ends) if ends else None

    def _emit(self, nfa_state: NFAState, potential: list, partial: list) -> List[dict]:
        nfa_state.deadline = self._deadline(partial)
        if not self.skip.is_skip_strategy():
            nfa_state.partial = partial
            return [match_of(m[1]) for m in potential]
        completed = sorted(nfa_state.completed + potential, key=_order)
        matches = []
        while completed and (
            _earliest(partial) is None  # (none started before it)
            or _order(completed[0]) <= _earliest(partial)
        ):
            match = completed.pop(0)
            pruning = self.skip.pruning_id(match_of(match[1], ids=True))
            if pruning is not None:
                partial = [p for p in partial if not self._pruned(p, pruning)]
                completed = [c for c in completed if not self._pruned(c, pruning)]
            matches.append(match_of(match[1]))
        nfa_state.partial, nfa_state.completed = partial, completed
        return matches

    def _pruned(self, partial, pruning_id) -> bool:
        return partial[3] is not None and self.skip.should_prune(partial[3], pruning_id)


def _proceeds_to_final(state) -> bool:
    """Whether PROCEED transitions lead from `state` to the final state (whatever
    their conditions)."""
    seen, stack = set(), [state]
    while stack:
        current = stack.pop()
        for action, target, _ in current.transitions:
            if action == PROCEED and target.name not in seen:
                if target.kind == FINAL:
                    return True
                seen.add(target.name)
                stack.append(target)
    return False


def _earliest(partial: list):
    """The start of the earliest partial match that has started, or None."""
    starts = [p[3] for p in partial if p[3] is not None]
    return min(starts) if starts else None
