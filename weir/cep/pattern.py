"""FlinkCEP's pattern API in snake_case: a pattern is a chain of named patterns, each with
a condition, a quantifier and how it follows the one before (its contiguity).

    Pattern.begin("small").where(lambda t: t.amount < 1) \\
        .followed_by("large").where(lambda t: t.amount > 500).within(Duration.of_minutes(1))

A condition is a plain callable of the event, a SimpleCondition (`filter(value)`), a
callable of the event and a context, or an IterativeCondition (`filter(value, ctx)`:
`ctx.get_events_for_pattern(name)` are the events the partial match took for `name`,
`ctx.timestamp()` the event's). weir.cep.nfa compiles a pattern into Flink's NFA.
"""

import enum
import inspect
from typing import Optional

from weir.cep.skip import AfterMatchSkipStrategy
from weir.common.errors import WeirError
from weir.common.time import Duration  # noqa: F401 (weir.cep's, as PyFlink's)


class MalformedPatternException(WeirError, ValueError):
    """A pattern Flink's compiler refuses (FlinkCEP's MalformedPatternException)."""


class WithinType(enum.Enum):
    FIRST_AND_LAST = "FIRST_AND_LAST"  # from a match's first event to its last
    PREVIOUS_AND_CURRENT = "PREVIOUS_AND_CURRENT"  # from the event before to this one


def _millis(duration) -> int:
    to_milliseconds = getattr(duration, "to_milliseconds", None)  # (Duration, or Time)
    if callable(to_milliseconds):
        return int(to_milliseconds())
    raise TypeError(f"within expects a Duration (Duration.of_seconds(10)), got {duration!r}")


# -- conditions -----------------------------------------------------------------------
class IterativeCondition:
    """A condition on an event and the partial match so far: override `filter(value,
    ctx)`."""

    def filter(self, value, ctx) -> bool:
        raise NotImplementedError(f"{type(self).__name__} must define filter(value, ctx)")


class SimpleCondition(IterativeCondition):
    """A condition on the event alone: override `filter(value)`."""

    def filter(self, value, ctx=None) -> bool:  # noqa: ARG002 (ctx: as an iterative one)
        raise NotImplementedError(f"{type(self).__name__} must define filter(value)")


def as_condition(condition):
    """A function (event, ctx) -> bool of a user's condition."""
    if isinstance(condition, SimpleCondition):
        return lambda value, ctx: condition.filter(value)
    if isinstance(condition, IterativeCondition):
        return condition.filter
    if not callable(condition):
        raise TypeError(
            "a condition is a callable, a SimpleCondition or an "
            f"IterativeCondition, got {condition!r}"
        )
    if _arity(condition) >= 2:
        return condition
    return lambda value, ctx: condition(value)


def _arity(function) -> int:
    try:
        parameters = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):
        return 1
    return sum(
        p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty
        for p in parameters
    )


def all_of(first, second):
    return lambda value, ctx: first(value, ctx) and second(value, ctx)


def any_of(first, second):
    return lambda value, ctx: first(value, ctx) or second(value, ctx)


def negated(condition):
    return lambda value, ctx: not condition(value, ctx)


def always(value, ctx) -> bool:  # noqa: ARG001
    return True


# -- quantifiers ----------------------------------------------------------------------
class Consuming(enum.Enum):
    """How a pattern's events follow the ones before: contiguity."""

    STRICT = "STRICT"  # next: the very next event
    SKIP_TILL_NEXT = "SKIP_TILL_NEXT"  # followed_by: the next one that matches
    SKIP_TILL_ANY = "SKIP_TILL_ANY"  # followed_by_any: any later one that matches
    NOT_FOLLOW = "NOT_FOLLOW"
    NOT_NEXT = "NOT_NEXT"


class Quantifier:
    """How many events a pattern takes: one, `times` (from, to), or a loop of at least
    `times[0]`; optional, greedy; the contiguity inside a loop (`inner`)."""

    def __init__(self, consuming: Consuming):
        self.consuming = consuming
        self.inner = Consuming.SKIP_TILL_NEXT
        self.looping = self.times_bounded = self.optional = self.greedy = False

    @property
    def single(self) -> bool:
        return not (self.looping or self.times_bounded)


class Pattern:
    """One named pattern of a chain (`previous` the one before it)."""

    def __init__(
        self,
        name: str,
        previous: Optional["Pattern"],
        consuming: Consuming,
        skip_strategy: AfterMatchSkipStrategy,
    ):
        if not isinstance(name, str) or not name:
            raise MalformedPatternException(f"a pattern's name is a non-empty text, got {name!r}")
        self.name, self.previous = name, previous
        self.quantifier = Quantifier(consuming)
        self.skip_strategy = skip_strategy
        self.condition = None
        self.until_condition = None
        self.times_range: Optional[tuple] = None  # (from, to) of a times or looping quantifier
        self.window: dict = {}  # WithinType -> milliseconds

    # -- the chain ------------------------------------------------------------------
    @staticmethod
    def begin(name, skip_strategy: Optional[AfterMatchSkipStrategy] = None) -> "Pattern":
        skip = skip_strategy or AfterMatchSkipStrategy.no_skip()
        if isinstance(name, Pattern):
            return GroupPattern(name, None, Consuming.STRICT, skip)
        return Pattern(name, None, Consuming.STRICT, skip)

    def _then(self, name, consuming: Consuming) -> "Pattern":
        if isinstance(name, Pattern):
            if consuming in (Consuming.NOT_FOLLOW, Consuming.NOT_NEXT):
                raise MalformedPatternException("a group pattern cannot be a NOT pattern")
            return GroupPattern(name, self, consuming, self.skip_strategy)
        return Pattern(name, self, consuming, self.skip_strategy)

    def next(self, name) -> "Pattern":
        return self._then(name, Consuming.STRICT)

    def followed_by(self, name) -> "Pattern":
        return self._then(name, Consuming.SKIP_TILL_NEXT)

    def followed_by_any(self, name) -> "Pattern":
        return self._then(name, Consuming.SKIP_TILL_ANY)

    def not_next(self, name) -> "Pattern":
        if self.quantifier.optional:
            raise MalformedPatternException(
                "an optional pattern cannot be followed by not_next: specify the not pattern "
                "before the optional one"
            )
        return self._then(name, Consuming.NOT_NEXT)

    def not_followed_by(self, name) -> "Pattern":
        if self.quantifier.optional:
            raise MalformedPatternException(
                "an optional pattern cannot be followed by not_followed_by: specify the not "
                "pattern before the optional one"
            )
        return self._then(name, Consuming.NOT_FOLLOW)

    # -- conditions -----------------------------------------------------------------
    def where(self, condition) -> "Pattern":
        condition = as_condition(condition)
        self.condition = condition if self.condition is None else all_of(self.condition, condition)
        return self

    def or_(self, condition) -> "Pattern":
        condition = as_condition(condition)
        self.condition = condition if self.condition is None else any_of(self.condition, condition)
        return self

    def subtype(self, cls) -> "Pattern":
        return self.where(lambda value: isinstance(value, cls))

    def until(self, condition) -> "Pattern":
        if not self.quantifier.looping:
            raise MalformedPatternException(
                "until applies to a looping pattern (one_or_more, times_or_more)"
            )
        if self.until_condition is not None:
            raise MalformedPatternException("only one until condition can be applied")
        self.until_condition = as_condition(condition)
        return self

    def within(self, window, within_type: WithinType = WithinType.FIRST_AND_LAST):
        self.window[within_type] = _millis(window)
        return self

    # -- quantifiers ----------------------------------------------------------------
    def _not_a_not(self, what: str) -> None:
        if self.quantifier.consuming in (Consuming.NOT_FOLLOW, Consuming.NOT_NEXT):
            raise MalformedPatternException(f"a NOT pattern cannot be {what}")

    def _single(self, what: str) -> None:
        self._not_a_not(what)
        if not self.quantifier.single:
            raise MalformedPatternException(f"a pattern's quantifier is set once ({what})")

    def one_or_more(self) -> "Pattern":
        return self.times_or_more(1)

    def times_or_more(self, times: int) -> "Pattern":
        self._single("looping")
        _check_times(times, times)
        self.quantifier.looping, self.times_range = True, (times, times)
        return self

    def times(self, times: int, to: Optional[int] = None) -> "Pattern":
        self._single("repeated")
        to = times if to is None else to
        _check_times(times, to)
        if times == 0:  # (times(0, n) is times(1, n), optional)
            times = 1
            self.quantifier.optional = True
        self.quantifier.times_bounded, self.times_range = True, (times, to)
        return self

    def optional(self) -> "Pattern":
        self._not_a_not("optional")
        self.quantifier.optional = True
        return self

    def greedy(self) -> "Pattern":
        self._not_a_not("greedy")
        if self.quantifier.single:
            raise MalformedPatternException("greedy applies to a looping or times pattern")
        self.quantifier.greedy = True
        return self

    def consecutive(self) -> "Pattern":
        return self._inner(Consuming.STRICT, "consecutive")

    def allow_combinations(self) -> "Pattern":
        return self._inner(Consuming.SKIP_TILL_ANY, "allow_combinations")

    def _inner(self, consuming: Consuming, what: str) -> "Pattern":
        if self.quantifier.single:
            raise MalformedPatternException(f"{what} applies to a looping or times pattern")
        self.quantifier.inner = consuming
        return self

    # -- reading --------------------------------------------------------------------
    def get_name(self) -> str:
        return self.name

    def get_previous(self):
        return self.previous

    def __repr__(self):
        return f"Pattern({self.name!r})"


class GroupPattern(Pattern):
    """A pattern of patterns (`Pattern.begin(pattern)`, `.next(pattern)`, ...): the
    inner chain as one step, which may be quantified as a whole."""

    def __init__(self, raw: Pattern, previous, consuming, skip_strategy):
        super().__init__("GroupPattern", previous, consuming, skip_strategy)
        self.raw = raw

    def where(self, condition):
        raise MalformedPatternException("a group pattern takes no condition")

    or_ = subtype = where


def _check_times(times: int, to: int) -> None:
    if not isinstance(times, int) or not isinstance(to, int) or times < 0 or to < times or to == 0:
        raise MalformedPatternException(
            f"times must be 0 <= from <= to, to > 0; got ({times}, {to})"
        )
