"""A pattern as an NFA: states with TAKE, IGNORE and PROCEED transitions, built from the
pattern's last part back to its first, as FlinkCEP's compiler builds them (its semantics
are its graph's: contiguity is which IGNORE transitions exist, optional and looping parts
PROCEED transitions, NOT parts transitions to a stop state).

- TAKE: the event joins the partial match under the state's pattern name; the partial
  match moves to the target state (itself, for a loop).
- IGNORE: the event is skipped; the partial match moves to the target state.
- PROCEED: an epsilon move, tried with the event before it is taken or ignored.
A partial match reaching the final state is a match; one reaching a stop state (a NOT
part's event came) is dropped with every branch of that step; one waiting in a pending
state (a `not_followed_by` at the end) is a match when its window passes.
"""

from typing import Dict, List, Optional

from weir.cep.pattern import (
    Consuming,
    GroupPattern,
    MalformedPatternException,
    WithinType,
    all_of,
    always,
    negated,
)

TAKE, IGNORE, PROCEED = "TAKE", "IGNORE", "PROCEED"
START, NORMAL, FINAL, STOP, PENDING = "start", "normal", "final", "stop", "pending"
ENDING_STATE_NAME = "$endState$"


class State:
    """A state of the NFA: `name` unique (the pattern's name, `:n` for copies),
    `pattern` the pattern name its TAKE transitions record events under."""

    def __init__(self, name: str, pattern: str, kind: str):
        self.name, self.pattern, self.kind = name, pattern, kind
        self.index = -1
        self.transitions: List[list] = []  # [action, target, condition (None: any)]

    def add(self, action: str, target: "State", condition) -> None:
        self.transitions.append([action, target, condition])

    def add_take(self, condition, target: Optional["State"] = None) -> None:
        self.add(TAKE, self if target is None else target, condition)

    def add_ignore(self, condition, target: Optional["State"] = None) -> None:
        self.add(IGNORE, self if target is None else target, condition)

    def add_proceed(self, target: "State", condition) -> None:
        self.add(PROCEED, target, condition)

    def __repr__(self):
        return f"State({self.name!r}, {self.kind})"


class CompiledPattern:
    """The NFA of a pattern: `states` (the start state first), `window` (ms, 0: none:
    FIRST_AND_LAST), `window_times` {state name: ms} (PREVIOUS_AND_CURRENT), the skip
    strategy."""

    def __init__(self, states, window, window_times, skip_strategy):
        self.states, self.window = states, window
        self.window_times, self.skip_strategy = window_times, skip_strategy
        self.start = next(s for s in states if s.kind == START)
        for index, state in enumerate(states):
            state.index = index


def compile_pattern(pattern) -> CompiledPattern:
    return _Compiler(pattern).compile()


class _Compiler:
    def __init__(self, pattern):
        self.current = pattern
        self.following = None  # the pattern after `current` (compiling backwards)
        self.group = None  # the group pattern being compiled, if any
        self.first_of_loop = {}  # group pattern -> whether it is its loop's head
        self.states: List[State] = []
        self.names: Dict[str, int] = {}
        self.stop_states: Dict[str, State] = {}
        self.window_times: Dict[str, int] = {}
        self.copies: Dict[str, State] = {}  # (a greedy loop's sink before its change)
        self.window = 0

    # -- the whole pattern ----------------------------------------------------------
    def compile(self) -> CompiledPattern:
        last = self.current
        self._check_names()
        self._check_skip_strategy()
        sink = self._ending_state()
        sink = self._middle_states(sink)
        start = self._convert(sink)
        start.kind = START
        if (
            last.quantifier.consuming == Consuming.NOT_FOLLOW
            and self.window <= 0
            and not last.window.get(WithinType.PREVIOUS_AND_CURRENT)
        ):
            raise MalformedPatternException(
                "not_followed_by is not supported as the last part of a pattern without within(...)"
            )
        self._check_windows(last)
        return CompiledPattern(self.states, self.window, self.window_times, last.skip_strategy)

    def _check_names(self) -> None:
        seen = {ENDING_STATE_NAME}

        def visit(pattern):
            while pattern is not None:
                if isinstance(pattern, GroupPattern):
                    visit(pattern.raw)
                elif pattern.name in seen:
                    raise MalformedPatternException(
                        f"duplicate pattern name: {pattern.name}; names must be unique"
                    )
                else:
                    seen.add(pattern.name)
                pattern = pattern.previous

        visit(self.current)
        if self.current.previous is None and self.current.quantifier.consuming in (
            Consuming.NOT_FOLLOW,
            Consuming.NOT_NEXT,
        ):
            raise MalformedPatternException("a pattern cannot begin with a NOT part")

    def _check_skip_strategy(self) -> None:
        name = self.current.skip_strategy.pattern_name
        if name is None:
            return
        pattern = self.current
        while pattern is not None and pattern.name != name:
            pattern = pattern.previous
        if pattern is None:
            raise MalformedPatternException(
                f"the skip strategy's pattern name '{name}' is not a name of the pattern"
            )

    def _check_windows(self, last) -> None:
        pattern = last
        while pattern is not None:
            between = pattern.window.get(WithinType.PREVIOUS_AND_CURRENT)
            if between and self.window and between > self.window:
                raise MalformedPatternException(
                    "the window between the previous and the current event cannot be longer "
                    "than the window between the first and the last event of a pattern"
                )
            pattern = pattern.previous

    # -- states -----------------------------------------------------------------------
    def _state(self, name: str, kind: str, takes: bool = False) -> State:
        count = self.names.get(name)
        self.names[name] = 0 if count is None else count + 1
        unique = name if count is None else f"{name}:{count + 1}"
        state = State(unique, name, kind)
        self.states.append(state)
        between = self.current.window.get(WithinType.PREVIOUS_AND_CURRENT)
        if takes and between:
            self.window_times[unique] = between
        return state

    def _ending_state(self) -> State:
        self.window = self.current.window.get(WithinType.FIRST_AND_LAST) or 0
        return self._state(ENDING_STATE_NAME, FINAL)

    def _stop_state(self, condition, name: str) -> State:
        stop = self.stop_states.get(name)
        if stop is None:
            stop = self.stop_states[name] = self._state(name, STOP)
            stop.add_take(condition)
        return stop

    def _middle_states(self, sink: State) -> State:
        while self.current.previous is not None:
            consuming = self.current.quantifier.consuming
            if consuming == Consuming.NOT_FOLLOW:
                if sink.kind == FINAL and (
                    self.window > 0 or self.current.window.get(WithinType.PREVIOUS_AND_CURRENT)
                ):
                    sink = self._pending_not_followed(sink)
            elif consuming == Consuming.NOT_NEXT:
                sink = self._not_next(sink)
            else:
                sink = self._convert(sink)
            self.following, self.current = self.current, self.current.previous
            window = self.current.window.get(WithinType.FIRST_AND_LAST)
            if window is not None and (self.window <= 0 or window < self.window):
                self.window = window  # (the smallest of the parts' windows)
        return sink

    def _pending_not_followed(self, sink: State) -> State:
        """A `not_followed_by` at the end: the partial match waits in a pending state
        and is a match when its window passes without the NOT part's event."""
        pending = self._state(self.current.name, PENDING, takes=True)
        condition = self._take_condition(self.current)
        pending.add_proceed(self._stop_state(condition, self.current.name), condition)
        pending.add_ignore(negated(condition))
        return pending

    def _not_next(self, sink: State) -> State:
        state = self._state(self.current.name, NORMAL)
        condition = self._take_condition(self.current)
        stop = self._stop_state(condition, self.current.name)
        if sink.kind == FINAL:  # (so that the PROCEED to the end is not taken at once)
            state.add_ignore(negated(condition), sink)
        else:
            state.add_proceed(sink, negated(condition))
        state.add_proceed(stop, condition)
        return state

    def _convert(self, sink: State) -> State:
        quantifier = self.current.quantifier
        if quantifier.looping:
            self._set_first_of_loop(False)
            looping = self._looping(self._without_transitive_nots(sink))
            self._set_first_of_loop(True)
            state = self._times(looping, sink, self.current.times_range)
        elif quantifier.times_bounded:
            state = self._times(sink, sink, self.current.times_range)
        else:
            state = self._singleton(
                sink,
                sink,
                self._take_condition(self.current),
                self._ignore_condition(self.current),
                self._is_optional(self.current),
            )
        self._add_stop_states(state)
        return state

    # -- NOT parts --------------------------------------------------------------------
    def _current_not_conditions(self):
        """(condition, name) of the `not_followed_by` parts before the current one, up to
        the first part that is neither optional nor such a NOT part."""
        found, pattern = [], self.current
        while pattern.previous is not None and (
            pattern.previous.quantifier.optional
            or pattern.previous.quantifier.consuming == Consuming.NOT_FOLLOW
        ):
            pattern = pattern.previous
            if pattern.quantifier.consuming == Consuming.NOT_FOLLOW:
                found.append((self._take_condition(pattern), pattern.name))
        return found

    def _add_stop_states(self, state: State) -> None:
        for condition, name in self._current_not_conditions():
            state.add_proceed(self._stop_state(condition, name), condition)

    def _add_stop_state_to_looping(self, state: State) -> None:
        following = self.following
        if following is not None and following.quantifier.consuming == Consuming.NOT_FOLLOW:
            condition = self._take_condition(following)
            state.add_proceed(self._stop_state(condition, following.name), condition)

    def _without_transitive_nots(self, sink: State) -> State:
        """`sink` without the PROCEEDs to the stop states of the NOT parts before an
        optional current part: once it takes an event, those NOT parts no longer apply."""
        nots = self._current_not_conditions()
        if not nots or not self.current.quantifier.optional:
            return sink
        copy = self._state(sink.pattern, sink.kind)
        names = {name for _, name in nots}
        for action, target, condition in sink.transitions:
            if action == PROCEED:
                if target.kind == STOP and target.pattern in names:
                    continue
                if target.kind != STOP:
                    target = self._without_transitive_nots(target)
                copy.add(action, target, condition)
            else:
                copy.add(action, copy if target is sink else target, condition)
        return copy

    def _copy(self, state: State) -> State:
        copy = self._state(state.pattern, state.kind)
        for action, target, condition in state.transitions:
            copy.add(action, copy if target is state else target, condition)
        return copy

    # -- quantified parts ---------------------------------------------------------------
    def _times(self, sink: State, proceed: State, times) -> State:
        low, high = times
        self._set_first_of_loop(False)
        until = self.current.until_condition
        inner_ignore = _with_until(self._inner_ignore_condition(self.current), until, False)
        take = _with_until(self._take_condition(self.current), until, True)
        if self.current.quantifier.greedy and low != high:
            if until is not None:
                self.copies[sink.name] = self._copy(sink)
            _require_not(sink, take)
        state = sink
        for _ in range(low, high):
            state = self._singleton(state, proceed, take, inner_ignore, True)
            self._add_stop_state_to_looping(state)
        for _ in range(low - 1):
            state = self._singleton(state, None, take, inner_ignore, False)
            self._add_stop_state_to_looping(state)
        self._set_first_of_loop(True)
        return self._singleton(
            state,
            proceed,
            take,
            self._ignore_condition(self.current),
            self.current.quantifier.optional,
        )

    def _singleton(
        self, sink: State, proceed: Optional[State], take, ignore, optional: bool
    ) -> State:
        if isinstance(self.current, GroupPattern):
            return self._group(self.current, sink, proceed, optional)
        state = self._state(self.current.name, NORMAL, takes=True)
        taken = self._without_transitive_nots(sink)
        state.add_take(take, taken)
        anyway = self._true()
        if optional and (
            not self._head_of_group(self.current)  # (a group's own
            or self.current.quantifier.optional
        ):  # PROCEED: _group's)
            assert proceed is not None  # (None only where not optional: _times)
            if self.current.quantifier.greedy:
                until = self.current.until_condition
                if until is not None:
                    state.add_proceed(self.copies[proceed.name], all_of(anyway, until))
                state.add_proceed(proceed, all_of(anyway, negated(take)))
            else:
                state.add_proceed(proceed, anyway)
        if ignore is not None:
            if optional:
                ignoring = self._state(self.current.name, NORMAL)
                ignoring.add_take(take, taken)
                ignoring.add_ignore(ignore)
                self._add_stop_states(ignoring)
            else:
                ignoring = state
            state.add_ignore(ignore, ignoring)
        return state

    def _looping(self, sink: State) -> State:
        if isinstance(self.current, GroupPattern):
            return self._looping_group(self.current, sink)
        until = self.current.until_condition
        ignore = _with_until(self._inner_ignore_condition(self.current), until, False)
        take = _with_until(self._take_condition(self.current), until, True)
        anyway = self._true()
        state = self._state(self.current.name, NORMAL, takes=True)
        if self.current.quantifier.greedy:
            if until is not None:
                copy = self._copy(sink)
                state.add_proceed(copy, all_of(anyway, until))
                self.copies[sink.name] = copy
            state.add_proceed(sink, anyway if until is None else all_of(anyway, negated(until)))
            _require_not(sink, self._take_condition(self.current))
        else:
            state.add_proceed(sink, anyway)
        state.add_take(take)
        self._add_stop_state_to_looping(state)
        if ignore is not None:
            ignoring = self._state(self.current.name, NORMAL)
            ignoring.add_take(take, state)
            ignoring.add_ignore(ignore)
            state.add_ignore(ignore, ignoring)
            self._add_stop_state_to_looping(ignoring)
        return state

    # -- group patterns -----------------------------------------------------------------
    def _enter_group(self, group):
        saved = (self.current, self.following, self.group)
        self.group, self.current, self.following = group, group.raw, None
        return saved

    def _leave_group(self, saved) -> None:
        self.current, self.following, self.group = saved

    def _group(self, group, sink: State, proceed: Optional[State], optional: bool) -> State:
        anyway = self._true()  # (the enclosing group's until, not this one's)
        saved = self._enter_group(group)
        state = self._convert(self._middle_states(sink))
        if optional:
            assert proceed is not None  # (None only where not optional: _times)
            state.add_proceed(proceed, anyway)
        self._leave_group(saved)
        return state

    def _looping_group(self, group, sink: State) -> State:
        anyway = self._true()
        dummy = self._state(self.current.name, NORMAL)
        saved = self._enter_group(group)
        state = self._convert(self._middle_states(dummy))
        state.add_proceed(sink, anyway)
        dummy.add_proceed(state, anyway)
        self._leave_group(saved)
        return state

    def _set_first_of_loop(self, first: bool) -> None:
        if isinstance(self.current, GroupPattern):
            self.first_of_loop[id(self.current)] = first

    def _group_first_of_loop(self) -> bool:
        return self.first_of_loop.get(id(self.group), True)

    def _head_of_group(self, pattern) -> bool:
        return self.group is not None and pattern.previous is None

    def _is_optional(self, pattern) -> bool:
        if self._head_of_group(pattern):  # (the group's optional, or its own)
            assert self.group is not None  # (_head_of_group)
            return (
                self._group_first_of_loop() and self.group.quantifier.optional
            ) or pattern.quantifier.optional
        return pattern.quantifier.optional

    # -- conditions ---------------------------------------------------------------------
    def _group_until(self):
        return None if self.group is None else self.group.until_condition

    def _take_condition(self, pattern):
        return _with_until(pattern.condition or always, self._group_until(), True)

    def _true(self):
        return _with_until(always, self._group_until(), True)

    def _ignore_condition(self, pattern):
        consuming = pattern.quantifier.consuming
        if self._head_of_group(pattern):
            assert self.group is not None  # (_head_of_group)
            consuming = (
                self.group.quantifier.consuming
                if self._group_first_of_loop()
                else self.group.quantifier.inner
            )
        return _with_until(_ignore_of(consuming, pattern), self._group_until(), False)

    def _inner_ignore_condition(self, pattern):
        consuming = pattern.quantifier.inner
        if self._head_of_group(pattern):
            assert self.group is not None  # (_head_of_group)
            consuming = self.group.quantifier.inner
        return _with_until(_ignore_of(consuming, pattern), self._group_until(), False)


def _ignore_of(consuming: Consuming, pattern):
    """The IGNORE condition of a contiguity: none (strict), the events the pattern does
    not take (skip till next), any event (skip till any)."""
    if consuming == Consuming.SKIP_TILL_NEXT:
        return negated(pattern.condition or always)
    if consuming == Consuming.SKIP_TILL_ANY:
        return always
    return None


def _with_until(condition, until, is_take: bool):
    """`condition` AND NOT `until` (where both are set), or NOT `until` for a TAKE
    without a condition."""
    if until is not None and condition is not None:
        return all_of(negated(until), condition)
    if until is not None and is_take:
        return negated(until)
    return condition


def _require_not(state: State, take) -> None:
    """A greedy part before `state`: `state`'s transitions only where the greedy part
    would not take the event."""
    for transition in state.transitions:
        transition[2] = all_of(transition[2] or always, negated(take))


__all__ = [
    "compile_pattern",
    "CompiledPattern",
    "State",
    "TAKE",
    "IGNORE",
    "PROCEED",
    "START",
    "NORMAL",
    "FINAL",
    "STOP",
    "PENDING",
]
