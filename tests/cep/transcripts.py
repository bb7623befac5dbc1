"""Transcripts of FlinkCEP's semantics: each a pattern, timestamped events, and the
matches (and timed-out partial matches) Flink gives, from the scenarios of Flink's own
CEP tests (flink-libraries/flink-cep: nfa/*ITCase, CEPITCase, operator/CEPOperatorTest),
written in weir's words and weir's API. Nothing here is Flink's code; each scenario was
read from a Flink test and restated: its events, its pattern, and the result that test
asserts, mapped to {pattern name: [event ids]}.

How a transcript is run (tests/cep/runner.py): every event goes to one key of a CEP
operator in ARRIVAL order; the operator buffers it and, as the watermark passes it, feeds
the NFA in event-time order (ties: arrival order). An event whose timestamp is not above
the current watermark when it arrives is late: dropped (to the late side output) and
listed in `late`. `watermarks` puts watermarks between arrivals; at the end the input
closes with `watermark_at_end` (None: +infinity, so every buffered event is processed and
every `within` window closes).

Most Flink NFA tests feed the NFA directly, in list order, without watermarks. Their
timestamps are kept here as given (they are non-decreasing wherever the order matters,
and ties keep arrival order); where a Flink test gave no timestamps (AfterMatchSkipITCase,
some CEPITCase tests) events are stamped 1, 2, 3, ... in arrival order. Event ids are ours
(unique within a transcript, numbered in arrival order); Flink's tests often reuse ids or
even feed one event object twice.

Conventions: a match lists only the pattern names that took events; a name's events are
in the order taken. Group patterns report events under the inner pattern names (a group
has no name of its own in a match). `matches` is compared as a multiset unless `ordered`.
`timeouts` is compared only where given (only where the Flink test checks them), and then
it is the whole multiset of timed-out partial matches reported up to the end watermark.
"""

from dataclasses import dataclass, field
from typing import Callable, List, Optional


@dataclass(frozen=True)
class Event:
    id: int
    name: str
    price: float = 0.0


@dataclass(frozen=True)
class SubEvent(Event):
    """A subtype of Event, for `subtype(SubEvent)` scenarios."""

    volume: float = 0.0


@dataclass
class Transcript:
    name: str  # snake_case, unique, says what it shows
    source: str  # Flink test class and the idea (no code)
    pattern: Callable  # a function (cep) -> Pattern, `cep` being weir.cep
    events: List[tuple]  # (Event, timestamp ms) in ARRIVAL order
    matches: List[dict]  # each match: {pattern_name: [event ids in order]}
    ordered: bool = False  # True only where Flink's test asserts the order of matches
    timeouts: List[dict] = field(default_factory=list)  # timed-out partial matches
    watermark_at_end: Optional[int] = None  # None: a final +infinity watermark
    late: List[int] = field(default_factory=list)  # ids of events dropped as late
    notes: str = ""
    # (after_arrival_index, watermark_ms): the watermark arrives right after the event at
    # that 0-based index of `events`; at most one per index (the runner keys them by index).
    watermarks: List[tuple] = field(default_factory=list)


# --- condition helpers (plain callables; weir.cep is only touched inside `pattern`) ----


def _is(name):
    """The event's name is exactly `name`."""
    return lambda e: e.name == name


def _has(part):
    """The event's name contains `part`."""
    return lambda e: part in e.name


def _price_is(value):
    return lambda e: e.price == value


def _ms(cep, n):
    return cep.Duration.of_millis(n)


def _sum_prices(ctx, name):
    return sum(e.price for e in ctx.get_events_for_pattern(name))


E = Event
S = SubEvent


TRANSCRIPTS: List[Transcript] = []


def _t(**kwargs):
    TRANSCRIPTS.append(Transcript(**kwargs))


# =====================================================================================
# Contiguity: next (strict), followed_by (relaxed), followed_by_any (non-deterministic)
# =====================================================================================

_t(
    name="followed_by_without_conditions_takes_the_next_event",
    source="NFAITCase: pattern of two parts with no conditions, relaxed contiguity",
    pattern=lambda cep: cep.Pattern.begin("start").followed_by("end"),
    events=[
        (E(1, "a", 1.0), 1),
        (E(2, "b", 2.0), 2),
        (E(3, "c", 3.0), 3),
        (E(4, "d", 4.0), 4),
        (E(5, "e", 5.0), 5),
    ],
    matches=[
        {"start": [1], "end": [2]},
        {"start": [2], "end": [3]},
        {"start": [3], "end": [4]},
        {"start": [4], "end": [5]},
    ],
    notes="A part without where() accepts every event; followed_by takes the first event "
    "that matches, so each start pairs with the event right after it.",
)

_t(
    name="followed_by_any_without_conditions_pairs_every_later_event",
    source="NFAITCase: two unconditioned parts joined by non-deterministic relaxed contiguity",
    pattern=lambda cep: cep.Pattern.begin("start").followed_by_any("end"),
    events=[
        (E(1, "a", 1.0), 1),
        (E(2, "b", 2.0), 2),
        (E(3, "c", 3.0), 3),
        (E(4, "d", 4.0), 4),
        (E(5, "e", 5.0), 5),
    ],
    matches=[{"start": [i], "end": [j]} for i in range(1, 6) for j in range(i + 1, 6)],
)

_t(
    name="unconditioned_one_or_more_after_start_gives_every_run",
    source="NFAITCase: unconditioned looping end part",
    pattern=lambda cep: cep.Pattern.begin("start").followed_by("end").one_or_more(),
    events=[
        (E(1, "a", 1.0), 1),
        (E(2, "b", 2.0), 2),
        (E(3, "c", 3.0), 3),
        (E(4, "d", 4.0), 4),
        (E(5, "e", 5.0), 5),
    ],
    matches=[
        {"start": [i], "end": list(range(i + 1, k + 1))}
        for i in range(1, 5)
        for k in range(i + 1, 6)
    ],
    notes="A looping last part emits a match on every event it takes.",
)

_t(
    name="subtype_restricts_middle_to_sub_events",
    source="NFAITCase: start, a SubEvent middle with a volume condition, end",
    pattern=lambda cep: (
        cep.Pattern.begin("start")
        .where(_is("start"))
        .followed_by("middle")
        .subtype(SubEvent)
        .where(lambda e: e.volume > 5.0)
        .followed_by("end")
        .where(_is("end"))
    ),
    events=[
        (E(1, "start", 1.0), 1),
        (E(2, "foobar", 1.0), 2),
        (S(3, "barfoo", 1.0, 5.0), 3),
        (S(4, "foo", 1.0, 10.0), 3),
        (E(5, "start", 1.0), 4),
        (E(6, "end", 1.0), 5),
    ],
    matches=[{"start": [1], "middle": [4], "end": [6]}],
    notes="The SubEvent of volume 5 fails the condition and is skipped (relaxed); the "
    "second start has no SubEvent after it.",
)

_t(
    name="subtype_ignores_plain_event_of_matching_name",
    source="CEPITCase: simple pattern over a bounded stream with a SubEvent middle",
    pattern=lambda cep: (
        cep.Pattern.begin("start")
        .where(_is("start"))
        .followed_by_any("middle")
        .subtype(SubEvent)
        .where(_is("middle"))
        .followed_by_any("end")
        .where(_is("end"))
    ),
    events=[
        (E(1, "barfoo", 1.0), 1),
        (E(2, "start", 2.0), 2),
        (E(3, "foobar", 3.0), 3),
        (S(4, "foo", 4.0, 1.0), 4),
        (E(5, "middle", 5.0), 5),
        (S(6, "middle", 6.0, 2.0), 6),
        (S(7, "bar", 3.0, 3.0), 7),
        (E(8, "42", 42.0), 8),
        (E(9, "end", 1.0), 9),
    ],
    matches=[{"start": [2], "middle": [6], "end": [9]}],
    notes="Event 5 is named 'middle' but is not a SubEvent, so subtype() rejects it.",
)

_t(
    name="next_matches_adjacent_events",
    source="NFAITCase: strict contiguity with results",
    pattern=lambda cep: cep.Pattern.begin("middle").where(_is("a")).next("end").where(_is("b")),
    events=[(E(1, "a", 2.0), 3), (E(2, "b", 4.0), 5)],
    matches=[{"middle": [1], "end": [2]}],
)

_t(
    name="next_fails_when_another_event_intervenes",
    source="NFAITCase: strict contiguity without results",
    pattern=lambda cep: cep.Pattern.begin("middle").where(_is("a")).next("end").where(_is("b")),
    events=[(E(1, "a", 2.0), 3), (E(2, "c", 3.0), 4), (E(3, "b", 4.0), 5)],
    matches=[],
)

_t(
    name="followed_by_any_branches_on_every_candidate",
    source="NFAITCase: branching pattern, all parts followed_by_any",
    pattern=lambda cep: (
        cep.Pattern.begin("start")
        .where(_is("start"))
        .followed_by_any("middle-first")
        .subtype(SubEvent)
        .where(lambda e: e.volume > 5.0)
        .followed_by_any("middle-second")
        .subtype(SubEvent)
        .where(_is("next-one"))
        .followed_by_any("end")
        .where(_is("end"))
    ),
    events=[
        (E(1, "start", 1.0), 1),
        (S(2, "foo1", 1.0, 10.0), 3),
        (S(3, "foo2", 1.0, 10.0), 4),
        (S(4, "foo3", 1.0, 10.0), 5),
        (S(5, "next-one", 1.0, 2.0), 6),
        (S(6, "next-one", 1.0, 2.0), 7),
        (E(7, "end", 1.0), 8),
    ],
    matches=[
        {"start": [1], "middle-first": [m], "middle-second": [n], "end": [7]}
        for m in (2, 3, 4)
        for n in (5, 6)
    ],
)

_t(
    name="followed_by_takes_only_the_first_candidate",
    source="NFAITCase: branching pattern with skip-till-next (followed_by) middles",
    pattern=lambda cep: (
        cep.Pattern.begin("start")
        .where(_is("start"))
        .followed_by("middle-first")
        .subtype(SubEvent)
        .where(lambda e: e.volume > 5.0)
        .followed_by("middle-second")
        .subtype(SubEvent)
        .where(_is("next-one"))
        .followed_by_any("end")
        .where(_is("end"))
    ),
    events=[
        (E(1, "start", 1.0), 1),
        (S(2, "foo1", 1.0, 10.0), 3),
        (S(3, "foo2", 1.0, 10.0), 4),
        (S(4, "foo3", 1.0, 10.0), 5),
        (S(5, "next-one", 1.0, 2.0), 6),
        (S(6, "next-one", 1.0, 2.0), 7),
        (E(7, "end", 1.0), 8),
    ],
    matches=[{"start": [1], "middle-first": [2], "middle-second": [5], "end": [7]}],
)

_t(
    name="mixed_contiguity_branches_only_where_any",
    source="NFAITCase: branching pattern mixing followed_by_any and followed_by",
    pattern=lambda cep: (
        cep.Pattern.begin("start")
        .where(_is("start"))
        .followed_by_any("middle-first")
        .subtype(SubEvent)
        .where(lambda e: e.volume > 5.0)
        .followed_by("middle-second")
        .subtype(SubEvent)
        .where(_is("next-one"))
        .followed_by_any("end")
        .where(_is("end"))
    ),
    events=[
        (E(1, "start", 1.0), 1),
        (S(2, "foo1", 1.0, 10.0), 3),
        (S(3, "foo2", 1.0, 10.0), 4),
        (S(4, "foo3", 1.0, 10.0), 5),
        (S(5, "next-one", 1.0, 2.0), 6),
        (S(6, "next-one", 1.0, 2.0), 7),
        (E(7, "end", 1.0), 8),
    ],
    matches=[
        {"start": [1], "middle-first": [m], "middle-second": [5], "end": [7]} for m in (2, 3, 4)
    ],
)

_t(
    name="or_condition_accepts_either_alternative",
    source="CEPITCase: middle part with where(...).or(...)",
    pattern=lambda cep: (
        cep.Pattern.begin("start")
        .where(_is("start"))
        .followed_by_any("middle")
        .where(_price_is(2.0))
        .or_(_price_is(5.0))
        .followed_by_any("end")
        .where(_is("end"))
    ),
    events=[
        (E(1, "start", 1.0), 1),
        (E(2, "middle", 2.0), 2),
        (E(3, "end", 3.0), 3),
        (E(4, "start", 4.0), 4),
        (E(5, "middle", 5.0), 5),
        (E(6, "end", 6.0), 6),
    ],
    matches=[
        {"start": [1], "middle": [5], "end": [6]},
        {"start": [1], "middle": [2], "end": [3]},
        {"start": [4], "middle": [5], "end": [6]},
        {"start": [1], "middle": [2], "end": [6]},
    ],
    notes="Flink's test gave no timestamps; stamped 1..6 here.",
)

# =====================================================================================
# Looping parts: one_or_more / optional loops, and contiguity inside the loop
# (default relaxed, consecutive(), allow_combinations())
# =====================================================================================

_LOOP_EVENTS = [
    (E(1, "c", 1.0), 1),
    (E(2, "d", 6.0), 2),
    (E(3, "a", 2.0), 3),
    (E(4, "a", 3.0), 4),
    (E(5, "a", 4.0), 4),
    (E(6, "d", 6.0), 5),
    (E(7, "a", 5.0), 6),
    (E(8, "b", 5.0), 7),
]


def _loop(inner, optional=False):
    def build(cep):
        p = (
            cep.Pattern.begin("start")
            .where(_is("c"))
            .followed_by("middle")
            .where(_is("a"))
            .one_or_more()
        )
        if optional:
            p = p.optional()
        p = inner(p)
        return p.followed_by("end1").where(_is("b"))

    return build


_t(
    name="one_or_more_consecutive_stops_at_first_gap",
    source="NFAITCase: one_or_more with consecutive() (strict inside the loop)",
    pattern=_loop(lambda p: p.consecutive()),
    events=list(_LOOP_EVENTS),
    matches=[{"start": [1], "middle": m, "end1": [8]} for m in ([3, 4, 5], [3, 4], [3])],
    notes="The loop must start at the first 'a' (followed_by) and cannot cross the 'd' "
    "at ts 5; the end part (followed_by) may skip the rest.",
)

_t(
    name="one_or_more_relaxed_skips_non_matching_events",
    source="NFAITCase: one_or_more with the default (skip till next) loop contiguity",
    pattern=_loop(lambda p: p),
    events=list(_LOOP_EVENTS),
    matches=[
        {"start": [1], "middle": m, "end1": [8]} for m in ([3, 4, 5, 7], [3, 4, 5], [3, 4], [3])
    ],
    notes="Inside a relaxed loop non-matching events are skipped but a matching one "
    "cannot be: no [3, 5] or [3, 7].",
)

_t(
    name="one_or_more_allow_combinations_takes_any_subsequence",
    source="NFAITCase: one_or_more with allow_combinations() (skip till any in the loop)",
    pattern=_loop(lambda p: p.allow_combinations()),
    events=list(_LOOP_EVENTS),
    matches=[
        {"start": [1], "middle": m, "end1": [8]}
        for m in ([3, 4, 5, 7], [3, 5, 7], [3, 4, 5], [3, 4, 7], [3, 4], [3, 5], [3, 7], [3])
    ],
    notes="The first element is still the first 'a' after start (followed_by); after "
    "it, any subsequence.",
)

_t(
    name="optional_relaxed_loop_adds_the_empty_case",
    source="NFAITCase: one_or_more().optional() with default loop contiguity",
    pattern=_loop(lambda p: p, optional=True),
    events=list(_LOOP_EVENTS),
    matches=[
        {"start": [1], "middle": m, "end1": [8]} for m in ([3, 4, 5, 7], [3, 4, 5], [3, 4], [3])
    ]
    + [{"start": [1], "end1": [8]}],
)

_t(
    name="begin_with_optional_loop",
    source="NFAITCase: pattern beginning with one_or_more().optional()",
    pattern=lambda cep: (
        cep.Pattern.begin("middle")
        .where(_is("a"))
        .one_or_more()
        .optional()
        .followed_by("end")
        .where(_is("b"))
    ),
    events=[(E(1, "a", 2.0), 3), (E(2, "a", 3.0), 4), (E(3, "a", 3.0), 5), (E(4, "b", 4.0), 6)],
    matches=[
        {"middle": [1, 2, 3], "end": [4]},
        {"middle": [1, 2], "end": [4]},
        {"middle": [2, 3], "end": [4]},
        {"middle": [1], "end": [4]},
        {"middle": [2], "end": [4]},
        {"middle": [3], "end": [4]},
        {"end": [4]},
    ],
    notes="Every 'a' may start a loop; a loop may stop early because the followed_by end "
    "skips later 'a's, but it cannot skip an 'a' inside (no [1, 3]).",
)

_t(
    name="begin_with_one_or_more_allow_combinations",
    source="NFAITCase: pattern beginning with one_or_more().allow_combinations()",
    pattern=lambda cep: (
        cep.Pattern.begin("start")
        .where(_is("a"))
        .one_or_more()
        .allow_combinations()
        .followed_by("end")
        .where(_is("b"))
    ),
    events=[(E(1, "a", 2.0), 3), (E(2, "a", 3.0), 4), (E(3, "a", 4.0), 5), (E(4, "b", 5.0), 6)],
    matches=[{"start": s, "end": [4]} for s in ([1, 2, 3], [1, 2], [1, 3], [2, 3], [1], [2], [3])],
)

_t(
    name="begin_with_consecutive_loop_and_no_end",
    source="NFAITCase: pattern that is only a consecutive one_or_more",
    pattern=lambda cep: cep.Pattern.begin("start").where(_is("a")).one_or_more().consecutive(),
    events=[
        (E(1, "c", 1.0), 1),
        (E(2, "a", 2.0), 3),
        (E(3, "c", 1.0), 4),
        (E(4, "a", 3.0), 5),
        (E(5, "a", 4.0), 6),
    ],
    matches=[{"start": [2]}, {"start": [4, 5]}, {"start": [4]}, {"start": [5]}],
    notes="Flink's test gives the same result for one_or_more().optional().consecutive() "
    "(an optional first part never yields an empty match).",
)

_t(
    name="end_with_optional_loop_emits_each_prefix",
    source="NFAITCase: pattern ending with one_or_more().optional()",
    pattern=lambda cep: (
        cep.Pattern.begin("start")
        .where(_is("c"))
        .followed_by("middle")
        .where(_is("a"))
        .one_or_more()
        .optional()
    ),
    events=[(E(1, "c", 1.0), 1), (E(2, "a", 2.0), 3), (E(3, "a", 3.0), 4), (E(4, "a", 4.0), 5)],
    matches=[
        {"start": [1], "middle": [2, 3, 4]},
        {"start": [1], "middle": [2, 3]},
        {"start": [1], "middle": [2]},
        {"start": [1]},
    ],
    notes="{'start': [1]} is emitted at once when the 'c' arrives.",
)

_t(
    name="whole_pattern_is_an_optional_loop",
    source="NFAITCase: pattern that is only one_or_more().optional()",
    pattern=lambda cep: cep.Pattern.begin("start").where(_is("a")).one_or_more().optional(),
    events=[
        (E(1, "c", 1.0), 1),
        (E(2, "a", 2.0), 3),
        (E(3, "a", 3.0), 4),
        (E(4, "a", 4.0), 5),
        (E(5, "d", 5.0), 6),
        (E(6, "d", 5.0), 6),
        (E(7, "d", 5.0), 6),
    ],
    matches=[{"start": s} for s in ([2, 3, 4], [2, 3], [2], [3, 4], [3], [4])],
    notes="No empty match is ever emitted.",
)

_t(
    name="next_then_optional_consecutive_loop_then_followed_by",
    source="NFAITCase: next into an optional consecutive loop",
    pattern=lambda cep: (
        cep.Pattern.begin("start")
        .where(_is("start"))
        .next("middle")
        .where(_is("middle"))
        .one_or_more()
        .optional()
        .consecutive()
        .followed_by("end")
        .where(_is("end"))
    ),
    events=[
        (E(1, "start", 1.0), 1),
        (E(2, "event", 1.0), 2),
        (E(3, "middle", 2.0), 3),
        (E(4, "middle", 3.0), 4),
        (E(5, "middle", 4.0), 5),
        (E(6, "end", 1.0), 6),
    ],
    matches=[{"start": [1], "end": [6]}],
    notes="The loop had to begin right after start; the intervening event rules it out, "
    "so only the match without middles remains.",
)

_t(
    name="next_after_optional_loop_is_strict_against_the_loop",
    source="NFAITCase: strict continuity after zero-or-more, no results",
    pattern=lambda cep: (
        cep.Pattern.begin("start")
        .where(_is("d"))
        .followed_by("middle")
        .where(_is("a"))
        .one_or_more()
        .optional()
        .next("end")
        .where(_is("b"))
    ),
    events=[
        (E(1, "d", 2.0), 1),
        (E(2, "a", 2.0), 2),
        (E(3, "a", 2.0), 3),
        (E(4, "c", 3.0), 4),
        (E(5, "b", 4.0), 5),
    ],
    matches=[],
)

_t(
    name="followed_by_into_second_optional_loop_takes_first_candidate",
    source="NFAITCase: zero-or-more after zero-or-more",
    pattern=lambda cep: (
        cep.Pattern.begin("start")
        .where(_is("c"))
        .followed_by_any("middle-first")
        .where(_is("a"))
        .one_or_more()
        .allow_combinations()
        .optional()
        .followed_by("middle-second")
        .where(_is("d"))
        .one_or_more()
        .allow_combinations()
        .optional()
        .followed_by("end")
        .where(_is("e"))
    ),
    events=[
        (E(1, "c", 1.0), 1),
        (E(2, "a", 2.0), 3),
        (E(3, "d", 3.0), 4),
        (E(4, "d", 4.0), 5),
        (E(5, "e", 4.0), 6),
    ],
    matches=[
        {"start": [1], "middle-first": [2], "middle-second": [3, 4], "end": [5]},
        {"start": [1], "middle-first": [2], "middle-second": [3], "end": [5]},
        {"start": [1], "middle-second": [3, 4], "end": [5]},
        {"start": [1], "middle-second": [3], "end": [5]},
        {"start": [1], "middle-first": [2], "end": [5]},
        {"start": [1], "end": [5]},
    ],
    notes="middle-second is followed_by, so it must begin with the first 'd' (3); no "
    "match has middle-second [4] alone.",
)

_t(
    name="two_combination_loops_back_to_back",
    source="NFAITCase: two allow_combinations loops of the same condition in a row",
    pattern=lambda cep: (
        cep.Pattern.begin("start")
        .where(_is("c"))
        .followed_by("middle1")
        .where(_is("a"))
        .one_or_more()
        .allow_combinations()
        .followed_by("middle2")
        .where(_is("a"))
        .one_or_more()
        .allow_combinations()
        .followed_by("end")
        .where(_is("b"))
    ),
    events=[
        (E(1, "c", 1.0), 1),
        (E(2, "a", 2.0), 3),
        (E(3, "a", 3.0), 4),
        (E(4, "a", 4.0), 5),
        (E(5, "a", 5.0), 6),
        (E(6, "a", 6.0), 7),
        (E(7, "b", 5.0), 10),
    ],
    matches=[
        {"start": [1], "middle1": [2], "middle2": m2, "end": [7]}
        for m2 in ([3], [3, 4], [3, 5], [3, 6], [3, 4, 5], [3, 4, 6], [3, 5, 6], [3, 4, 5, 6])
    ]
    + [
        {"start": [1], "middle1": [2, 3], "middle2": m2, "end": [7]}
        for m2 in ([4], [4, 5], [4, 6], [4, 5, 6])
    ]
    + [
        {"start": [1], "middle1": m1, "middle2": m2, "end": [7]}
        for m1 in ([2, 4], [2, 3, 4])
        for m2 in ([5], [5, 6])
    ]
    + [
        {"start": [1], "middle1": m1, "middle2": [6], "end": [7]}
        for m1 in ([2, 5], [2, 3, 5], [2, 4, 5], [2, 3, 4, 5])
    ],
    notes="20 matches. Each loop may skip 'a's inside itself, but middle2 (followed_by) "
    "must begin with the 'a' right after middle1's last one. Flink's test lists "
    "flattened event lists (with repeats); this is the name split consistent with "
    "all 20 of them.",
)

_t(
    name="match_lists_keep_the_order_events_were_taken",
    source="NFAITCase: result ordering within a match",
    pattern=lambda cep: (
        cep.Pattern.begin("start")
        .where(lambda e: e.name.startswith("a-"))
        .times(4)
        .allow_combinations()
        .followed_by_any("middle")
        .where(lambda e: e.name.startswith("b-"))
        .times(3)
        .consecutive()
    ),
    events=[
        (E(1, "a-1", 2.0), 1),
        (E(2, "a-2", 3.0), 3),
        (E(3, "a-3", 4.0), 4),
        (E(4, "a-4", 5.0), 5),
        (E(5, "b-1", 6.0), 6),
        (E(6, "b-2", 7.0), 7),
        (E(7, "b-3", 8.0), 10),
    ],
    matches=[{"start": [1, 2, 3, 4], "middle": [5, 6, 7]}],
)

_t(
    name="same_looking_events_each_count_once",
    source="SameElementITCase: equal events with equal timestamps in a relaxed optional loop",
    pattern=lambda cep: (
        cep.Pattern.begin("start")
        .where(_is("c"))
        .followed_by("middle")
        .where(_is("a"))
        .one_or_more()
        .optional()
        .followed_by("end1")
        .where(_is("b"))
    ),
    events=[
        (E(1, "c", 1.0), 1),
        (E(2, "a", 2.0), 3),
        (E(3, "a", 2.0), 3),
        (E(4, "a", 2.0), 3),
        (E(5, "a", 3.0), 4),
        (E(6, "d", 6.0), 5),
        (E(7, "a", 4.0), 6),
        (E(8, "a", 4.0), 6),
        (E(9, "b", 5.0), 7),
    ],
    matches=[
        {"start": [1], "middle": m, "end1": [9]}
        for m in ([2, 3, 4, 5, 7, 8], [2, 3, 4, 5, 7], [2, 3, 4, 5], [2, 3, 4], [2, 3], [2])
    ]
    + [{"start": [1], "end1": [9]}],
    notes="Flink's test fed the same event object several times; each arrival is a "
    "distinct event here.",
)

# =====================================================================================
# optional, times(n), times(from, to), times_or_more(n)
# =====================================================================================

_t(
    name="optional_middle_gives_with_and_without",
    source="NFAITCase: optional middle part",
    pattern=lambda cep: (
        cep.Pattern.begin("start")
        .where(_is("c"))
        .followed_by("middle")
        .where(_is("a"))
        .optional()
        .followed_by("end1")
        .where(_is("b"))
    ),
    events=[(E(1, "c", 1.0), 1), (E(2, "a", 4.0), 5), (E(3, "b", 5.0), 6)],
    matches=[{"start": [1], "middle": [2], "end1": [3]}, {"start": [1], "end1": [3]}],
)

_t(
    name="optional_first_part",
    source="NFAITCase: pattern starting with an optional part",
    pattern=lambda cep: (
        cep.Pattern.begin("start").where(_is("c")).optional().followed_by("end1").where(_is("b"))
    ),
    events=[(E(1, "c", 1.0), 1), (E(2, "b", 5.0), 6)],
    matches=[{"start": [1], "end1": [2]}, {"end1": [2]}],
)

_t(
    name="optional_last_part",
    source="NFAITCase: pattern ending with an optional part",
    pattern=lambda cep: (
        cep.Pattern.begin("start").where(_is("c")).followed_by("middle").where(_is("a")).optional()
    ),
    events=[(E(1, "c", 1.0), 1), (E(2, "a", 2.0), 3)],
    matches=[{"start": [1], "middle": [2]}, {"start": [1]}],
)

_t(
    name="times_after_next_with_combinations",
    source="NFAITCase: next into times(2).allow_combinations()",
    pattern=lambda cep: (
        cep.Pattern.begin("start")
        .where(_is("c"))
        .next("middle")
        .where(_is("a"))
        .times(2)
        .allow_combinations()
        .followed_by("end1")
        .where(_is("b"))
    ),
    events=[
        (E(1, "c", 1.0), 1),
        (E(2, "a", 2.0), 2),
        (E(3, "a", 3.0), 3),
        (E(4, "a", 4.0), 4),
        (E(5, "b", 5.0), 6),
    ],
    matches=[
        {"start": [1], "middle": [2, 3], "end1": [5]},
        {"start": [1], "middle": [2, 4], "end1": [5]},
    ],
    notes="next binds only the first 'a'; the later ones combine freely.",
)

_t(
    name="times_combinations_after_next_skip_noise",
    source="NFAITCase: times(2).allow_combinations() after next, with noise events",
    pattern=lambda cep: (
        cep.Pattern.begin("start")
        .where(_is("c"))
        .next("middle")
        .where(_is("a"))
        .times(2)
        .allow_combinations()
        .followed_by("end1")
        .where(_is("b"))
    ),
    events=[
        (E(1, "c", 1.0), 1),
        (E(2, "a", 2.0), 2),
        (E(3, "f", 1.0), 3),
        (E(4, "a", 3.0), 4),
        (E(5, "f", 1.0), 5),
        (E(6, "a", 4.0), 6),
        (E(7, "b", 5.0), 7),
    ],
    matches=[
        {"start": [1], "middle": [2, 4], "end1": [7]},
        {"start": [1], "middle": [2, 6], "end1": [7]},
    ],
)

_t(
    name="begin_with_times_consecutive",
    source="NFAITCase: pattern beginning with times(2).consecutive()",
    pattern=lambda cep: (
        cep.Pattern.begin("middle")
        .where(_is("a"))
        .times(2)
        .consecutive()
        .followed_by("end1")
        .where(_is("b"))
    ),
    events=[(E(1, "a", 2.0), 2), (E(2, "a", 3.0), 3), (E(3, "a", 4.0), 4), (E(4, "b", 5.0), 6)],
    matches=[{"middle": [1, 2], "end1": [4]}, {"middle": [2, 3], "end1": [4]}],
)

_t(
    name="times_relaxed_takes_first_two",
    source="NFAITCase: followed_by into times(2) with default loop contiguity",
    pattern=lambda cep: (
        cep.Pattern.begin("start")
        .where(_is("c"))
        .followed_by("middle")
        .where(_is("a"))
        .times(2)
        .followed_by("end1")
        .where(_is("b"))
    ),
    events=[
        (E(1, "c", 1.0), 1),
        (E(2, "a", 2.0), 2),
        (E(3, "a", 3.0), 4),
        (E(4, "a", 4.0), 6),
        (E(5, "b", 5.0), 7),
    ],
    matches=[{"start": [1], "middle": [2, 3], "end1": [5]}],
)

_t(
    name="times_consecutive_after_followed_by_any",
    source="NFAITCase: followed_by_any into times(2).consecutive()",
    pattern=lambda cep: (
        cep.Pattern.begin("start")
        .where(_is("c"))
        .followed_by_any("middle")
        .where(_is("a"))
        .times(2)
        .consecutive()
        .followed_by("end1")
        .where(_is("b"))
    ),
    events=[
        (E(1, "c", 1.0), 1),
        (E(2, "f", 1.0), 2),
        (E(3, "a", 2.0), 3),
        (E(4, "f", 1.0), 4),
        (E(5, "a", 3.0), 5),
        (E(6, "a", 4.0), 6),
        (E(7, "b", 5.0), 7),
    ],
    matches=[{"start": [1], "middle": [5, 6], "end1": [7]}],
)

_t(
    name="times_consecutive_after_next_broken",
    source="NFAITCase: next into times(2).consecutive() with a gap",
    pattern=lambda cep: (
        cep.Pattern.begin("start")
        .where(_is("c"))
        .next("middle")
        .where(_is("a"))
        .times(2)
        .consecutive()
        .followed_by("end1")
        .where(_is("b"))
    ),
    events=[
        (E(1, "c", 1.0), 1),
        (E(2, "a", 2.0), 2),
        (E(3, "f", 1.0), 3),
        (E(4, "a", 3.0), 4),
        (E(5, "a", 4.0), 6),
        (E(6, "b", 5.0), 7),
    ],
    matches=[],
)

_t(
    name="optional_times_absent",
    source="NFAITCase: times(3).optional() with no candidates",
    pattern=lambda cep: (
        cep.Pattern.begin("start")
        .where(_is("c"))
        .followed_by("middle")
        .where(_is("a"))
        .times(3)
        .optional()
        .followed_by("end1")
        .where(_is("b"))
    ),
    events=[(E(1, "c", 1.0), 1), (E(2, "f", 1.0), 2), (E(3, "b", 5.0), 7)],
    matches=[{"start": [1], "end1": [3]}],
)

_t(
    name="optional_times_after_followed_by_any",
    source="NFAITCase: followed_by_any into times(2).optional() (relaxed loop)",
    pattern=lambda cep: (
        cep.Pattern.begin("start")
        .where(_is("c"))
        .followed_by_any("middle")
        .where(_is("a"))
        .times(2)
        .optional()
        .followed_by("end1")
        .where(_is("b"))
    ),
    events=[
        (E(1, "c", 1.0), 1),
        (E(2, "f", 1.0), 2),
        (E(3, "a", 2.0), 3),
        (E(4, "f", 1.0), 4),
        (E(5, "a", 3.0), 5),
        (E(6, "a", 4.0), 6),
        (E(7, "b", 5.0), 7),
    ],
    matches=[
        {"start": [1], "middle": [3, 5], "end1": [7]},
        {"start": [1], "middle": [5, 6], "end1": [7]},
        {"start": [1], "end1": [7]},
    ],
)

_t(
    name="optional_one_or_more_consecutive_after_followed_by_any",
    source="NFAITCase: followed_by_any into one_or_more().consecutive().optional()",
    pattern=lambda cep: (
        cep.Pattern.begin("start")
        .where(_is("c"))
        .followed_by_any("middle")
        .where(_is("a"))
        .one_or_more()
        .consecutive()
        .optional()
        .followed_by("end1")
        .where(_is("b"))
    ),
    events=[
        (E(1, "c", 1.0), 1),
        (E(2, "f", 1.0), 2),
        (E(3, "a", 2.0), 3),
        (E(4, "f", 1.0), 4),
        (E(5, "a", 3.0), 5),
        (E(6, "a", 4.0), 6),
        (E(7, "b", 5.0), 7),
    ],
    matches=[{"start": [1], "middle": m, "end1": [7]} for m in ([5, 6], [3], [5], [6])]
    + [{"start": [1], "end1": [7]}],
)

_t(
    name="times_range_after_next_with_combinations",
    source="TimesRangeITCase: next into times(1, 3).allow_combinations()",
    pattern=lambda cep: (
        cep.Pattern.begin("start")
        .where(_is("c"))
        .next("middle")
        .where(_is("a"))
        .times(1, 3)
        .allow_combinations()
        .followed_by("end1")
        .where(_is("b"))
    ),
    events=[
        (E(1, "c", 1.0), 1),
        (E(2, "a", 2.0), 2),
        (E(3, "a", 3.0), 3),
        (E(4, "a", 4.0), 4),
        (E(5, "b", 5.0), 6),
    ],
    matches=[{"start": [1], "middle": m, "end1": [5]} for m in ([2, 3, 4], [2, 3], [2, 4], [2])],
)

_t(
    name="times_range_from_zero_is_optional",
    source="TimesRangeITCase: times(0, 2).allow_combinations()",
    pattern=lambda cep: (
        cep.Pattern.begin("start")
        .where(_is("c"))
        .next("middle")
        .where(_is("a"))
        .times(0, 2)
        .allow_combinations()
        .followed_by("end1")
        .where(_is("b"))
    ),
    events=[
        (E(1, "c", 1.0), 1),
        (E(2, "a", 2.0), 2),
        (E(3, "a", 3.0), 3),
        (E(4, "a", 4.0), 4),
        (E(5, "b", 5.0), 6),
    ],
    matches=[{"start": [1], "middle": m, "end1": [5]} for m in ([2, 3], [2, 4], [2])]
    + [{"start": [1], "end1": [5]}],
    notes="times(0, n) behaves as times(1, n).optional().",
)

_t(
    name="times_range_after_followed_by_any_with_combinations",
    source="TimesRangeITCase: followed_by_any into times(1, 3).allow_combinations()",
    pattern=lambda cep: (
        cep.Pattern.begin("start")
        .where(_is("c"))
        .followed_by_any("middle")
        .where(_is("a"))
        .times(1, 3)
        .allow_combinations()
        .followed_by("end1")
        .where(_is("b"))
    ),
    events=[
        (E(1, "c", 1.0), 1),
        (E(2, "f", 1.0), 2),
        (E(3, "a", 2.0), 3),
        (E(4, "f", 1.0), 4),
        (E(5, "a", 3.0), 5),
        (E(6, "a", 4.0), 6),
        (E(7, "b", 5.0), 7),
    ],
    matches=[
        {"start": [1], "middle": m, "end1": [7]}
        for m in ([3, 5, 6], [3, 5], [3, 6], [5, 6], [3], [5], [6])
    ],
)

_t(
    name="times_range_from_zero_consecutive_after_followed_by_any",
    source="TimesRangeITCase: followed_by_any into times(0, 3).consecutive()",
    pattern=lambda cep: (
        cep.Pattern.begin("start")
        .where(_is("c"))
        .followed_by_any("middle")
        .where(_is("a"))
        .times(0, 3)
        .consecutive()
        .followed_by("end1")
        .where(_is("b"))
    ),
    events=[
        (E(1, "c", 1.0), 1),
        (E(2, "f", 1.0), 2),
        (E(3, "a", 2.0), 3),
        (E(4, "f", 1.0), 4),
        (E(5, "a", 3.0), 5),
        (E(6, "a", 4.0), 6),
        (E(7, "b", 5.0), 7),
    ],
    matches=[{"start": [1], "middle": m, "end1": [7]} for m in ([5, 6], [3], [5], [6])]
    + [{"start": [1], "end1": [7]}],
)

_t(
    name="optional_times_range_relaxed_after_followed_by_any",
    source="TimesRangeITCase: followed_by_any into times(2, 3).optional()",
    pattern=lambda cep: (
        cep.Pattern.begin("start")
        .where(_is("c"))
        .followed_by_any("middle")
        .where(_is("a"))
        .times(2, 3)
        .optional()
        .followed_by("end1")
        .where(_is("b"))
    ),
    events=[
        (E(1, "c", 1.0), 1),
        (E(2, "f", 1.0), 2),
        (E(3, "a", 2.0), 3),
        (E(4, "f", 1.0), 4),
        (E(5, "a", 3.0), 5),
        (E(6, "a", 4.0), 6),
        (E(7, "b", 5.0), 7),
    ],
    matches=[{"start": [1], "middle": m, "end1": [7]} for m in ([3, 5, 6], [3, 5], [5, 6])]
    + [{"start": [1], "end1": [7]}],
)

_t(
    name="times_or_more_with_combinations",
    source="TimesOrMoreITCase: times_or_more(2).allow_combinations()",
    pattern=lambda cep: (
        cep.Pattern.begin("start")
        .where(_is("c"))
        .followed_by("middle")
        .where(_is("a"))
        .times_or_more(2)
        .allow_combinations()
        .followed_by("end1")
        .where(_is("b"))
    ),
    events=[
        (E(1, "c", 1.0), 1),
        (E(2, "a", 2.0), 2),
        (E(3, "a", 3.0), 3),
        (E(4, "a", 4.0), 4),
        (E(5, "b", 5.0), 6),
    ],
    matches=[{"start": [1], "middle": m, "end1": [5]} for m in ([2, 3, 4], [2, 3], [2, 4])],
)

_t(
    name="times_or_more_after_followed_by_any_with_combinations",
    source="TimesOrMoreITCase: followed_by_any into times_or_more(2).allow_combinations()",
    pattern=lambda cep: (
        cep.Pattern.begin("start")
        .where(_is("c"))
        .followed_by_any("middle")
        .where(_is("a"))
        .times_or_more(2)
        .allow_combinations()
        .followed_by("end1")
        .where(_is("b"))
    ),
    events=[
        (E(1, "c", 1.0), 1),
        (E(2, "f", 1.0), 2),
        (E(3, "a", 2.0), 3),
        (E(4, "f", 1.0), 4),
        (E(5, "a", 3.0), 5),
        (E(6, "a", 4.0), 6),
        (E(7, "b", 5.0), 7),
    ],
    matches=[{"start": [1], "middle": m, "end1": [7]} for m in ([3, 5, 6], [3, 5], [3, 6], [5, 6])],
)

_t(
    name="times_or_more_consecutive_optional_after_next",
    source="TimesOrMoreITCase: next into times_or_more(2).consecutive().optional()",
    pattern=lambda cep: (
        cep.Pattern.begin("start")
        .where(_is("c"))
        .next("middle")
        .where(_is("a"))
        .times_or_more(2)
        .consecutive()
        .optional()
        .followed_by("end1")
        .where(_is("b"))
    ),
    events=[
        (E(1, "c", 1.0), 1),
        (E(2, "a", 2.0), 3),
        (E(3, "a", 3.0), 5),
        (E(4, "a", 4.0), 6),
        (E(5, "b", 5.0), 7),
    ],
    matches=[
        {"start": [1], "middle": [2, 3, 4], "end1": [5]},
        {"start": [1], "middle": [2, 3], "end1": [5]},
        {"start": [1], "end1": [5]},
    ],
)

# =====================================================================================
# greedy
# =====================================================================================


def _greedy_cad(optional=True, extra=None):
    def build(cep):
        p = (
            cep.Pattern.begin("start")
            .where(_is("c"))
            .followed_by("middle")
            .where(_is("a"))
            .one_or_more()
        )
        if optional:
            p = p.optional()
        p = p.greedy()
        if extra is not None:
            p = extra(p)
        return p.followed_by("end").where(_is("d"))

    return build


_t(
    name="greedy_optional_loop_keeps_only_the_longest",
    source="GreedyITCase: greedy zero-or-more before the end part",
    pattern=_greedy_cad(),
    events=[
        (E(1, "c", 1.0), 1),
        (E(2, "a", 2.0), 2),
        (E(3, "a", 2.0), 3),
        (E(4, "a", 2.0), 4),
        (E(5, "d", 3.0), 5),
    ],
    matches=[{"start": [1], "middle": [2, 3, 4], "end": [5]}],
    notes="Greedy: while the loop's condition holds the NFA does not branch to the next "
    "part, so neither the shorter loops nor the loop-less match appear.",
)

_t(
    name="greedy_optional_loop_skips_noise_between",
    source="GreedyITCase: greedy zero-or-more with unrelated events interleaved",
    pattern=_greedy_cad(),
    events=[
        (E(1, "c", 1.0), 1),
        (E(2, "dummy", 1111.0), 2),
        (E(3, "a", 2.0), 3),
        (E(4, "dummy", 1111.0), 4),
        (E(5, "a", 2.0), 5),
        (E(6, "dummy", 1111.0), 6),
        (E(7, "a", 2.0), 7),
        (E(8, "d", 3.0), 8),
    ],
    matches=[{"start": [1], "middle": [3, 5, 7], "end": [8]}],
)

_t(
    name="greedy_optional_loop_then_noise_before_end",
    source="GreedyITCase: greedy zero-or-more, unrelated event after the loop",
    pattern=_greedy_cad(),
    events=[
        (E(1, "c", 1.0), 1),
        (E(2, "a", 2.0), 2),
        (E(3, "a", 2.0), 3),
        (E(4, "dummy", 2.0), 4),
        (E(5, "d", 3.0), 5),
    ],
    matches=[{"start": [1], "middle": [2, 3], "end": [5]}],
)

_t(
    name="greedy_optional_loop_with_no_candidates",
    source="GreedyITCase: greedy zero-or-more with no looping events",
    pattern=_greedy_cad(),
    events=[(E(1, "c", 1.0), 1), (E(2, "dummy", 2.0), 2), (E(3, "d", 3.0), 5)],
    matches=[{"start": [1], "end": [3]}],
)

_t(
    name="greedy_one_or_more_with_no_candidates",
    source="GreedyITCase: greedy one-or-more with no looping events",
    pattern=_greedy_cad(optional=False),
    events=[(E(1, "c", 1.0), 1), (E(2, "dummy", 2.0), 2), (E(3, "d", 3.0), 5)],
    matches=[],
)

_t(
    name="greedy_loop_ended_by_until",
    source="GreedyITCase: greedy zero-or-more with an until condition",
    pattern=_greedy_cad(extra=lambda p: p.until(lambda e: e.price > 3.0)),
    events=[
        (E(1, "c", 1.0), 1),
        (E(2, "a", 2.0), 2),
        (E(3, "a", 3.0), 3),
        (E(4, "a", 3.0), 4),
        (E(5, "a", 4.0), 5),
        (E(6, "d", 3.0), 6),
    ],
    matches=[{"start": [1], "middle": [2, 3, 4], "end": [6]}],
)

_t(
    name="greedy_until_on_first_candidate_empties_the_loop",
    source="GreedyITCase: until fires on the first looping candidate",
    pattern=_greedy_cad(extra=lambda p: p.until(lambda e: e.price > 3.0)),
    events=[
        (E(1, "c", 1.0), 1),
        (E(2, "a", 4.0), 2),
        (E(3, "a", 2.0), 3),
        (E(4, "a", 3.0), 4),
        (E(5, "a", 3.0), 5),
        (E(6, "d", 3.0), 6),
    ],
    matches=[{"start": [1], "end": [6]}],
    notes="The first 'a' satisfies until, so the loop never starts; the later 'a's "
    "cannot start it either (followed_by). With one_or_more (not optional) Flink "
    "gives no match at all.",
)

_t(
    name="greedy_loop_before_group",
    source="GreedyITCase: greedy zero-or-more followed by a group times(2)",
    pattern=lambda cep: (
        cep.Pattern.begin("start")
        .where(_is("c"))
        .followed_by("middle")
        .where(_is("a"))
        .one_or_more()
        .optional()
        .greedy()
        .followed_by(
            cep.Pattern.begin("middle1").where(_is("d")).followed_by("middle2").where(_is("e"))
        )
        .times(2)
        .followed_by("end")
        .where(_is("f"))
    ),
    events=[
        (E(1, "c", 1.0), 1),
        (E(2, "a", 1.0), 2),
        (E(3, "a", 1.0), 3),
        (E(4, "dummy", 2.0), 4),
        (E(5, "a", 1.0), 5),
        (E(6, "d", 1.0), 6),
        (E(7, "e", 1.0), 7),
        (E(8, "d", 1.0), 8),
        (E(9, "e", 1.0), 9),
        (E(10, "f", 3.0), 10),
    ],
    matches=[
        {"start": [1], "middle": [2, 3, 5], "middle1": [6, 8], "middle2": [7, 9], "end": [10]}
    ],
)

_t(
    name="greedy_loop_at_end_still_emits_each_prefix",
    source="GreedyITCase: pattern ending with a greedy zero-or-more",
    pattern=lambda cep: (
        cep.Pattern.begin("start")
        .where(_is("c"))
        .followed_by("end")
        .where(_is("a"))
        .one_or_more()
        .optional()
        .greedy()
    ),
    events=[
        (E(1, "c", 1.0), 1),
        (E(2, "a", 2.0), 2),
        (E(3, "a", 2.0), 3),
        (E(4, "dummy", 2.0), 4),
        (E(5, "a", 2.0), 5),
    ],
    matches=[
        {"start": [1]},
        {"start": [1], "end": [2]},
        {"start": [1], "end": [2, 3]},
        {"start": [1], "end": [2, 3, 5]},
    ],
    notes="At the end of the pattern greediness cannot suppress anything: each take "
    "completes a match.",
)

_t(
    name="greedy_consecutive_loop_at_end",
    source="GreedyITCase: pattern ending with a greedy consecutive zero-or-more",
    pattern=lambda cep: (
        cep.Pattern.begin("start")
        .where(_is("c"))
        .followed_by("end")
        .where(_is("a"))
        .one_or_more()
        .optional()
        .consecutive()
        .greedy()
    ),
    events=[
        (E(1, "c", 1.0), 1),
        (E(2, "a", 2.0), 2),
        (E(3, "a", 2.0), 3),
        (E(4, "dummy", 2.0), 4),
        (E(5, "a", 2.0), 5),
    ],
    matches=[{"start": [1]}, {"start": [1], "end": [2]}, {"start": [1], "end": [2, 3]}],
)

_t(
    name="greedy_times_range",
    source="GreedyITCase: times(2, 5).greedy() before the end part",
    pattern=lambda cep: (
        cep.Pattern.begin("start")
        .where(_is("c"))
        .followed_by("middle")
        .where(_is("a"))
        .times(2, 5)
        .greedy()
        .followed_by("end")
        .where(_is("d"))
    ),
    events=[
        (E(1, "c", 1.0), 1),
        (E(2, "a", 2.0), 2),
        (E(3, "a", 2.0), 3),
        (E(4, "a", 2.0), 4),
        (E(5, "a", 2.0), 5),
        (E(6, "d", 2.0), 6),
    ],
    matches=[{"start": [1], "middle": [2, 3, 4, 5], "end": [6]}],
)

# =====================================================================================
# until
# =====================================================================================


def _until_pattern(modifier, optional=False):
    def build(cep):
        p = (
            cep.Pattern.begin("start")
            .where(_is("c"))
            .followed_by("middle")
            .where(_is("a"))
            .one_or_more()
        )
        if optional:
            p = p.optional()
        p = modifier(p).until(_price_is(5.0))
        return p.followed_by("end").where(_price_is(5.0))

    return build


_UNTIL_EVENTS = [
    (E(1, "c", 1.0), 1),
    (E(2, "a", 2.0), 3),
    (E(3, "a", 3.0), 4),
    (E(4, "a", 5.0), 6),
    (E(5, "a", 6.0), 7),
]

_t(
    name="until_closes_the_loop",
    source="UntilConditionITCase: followed_by one_or_more().until(...)",
    pattern=_until_pattern(lambda p: p),
    events=list(_UNTIL_EVENTS),
    matches=[
        {"start": [1], "middle": [2, 3], "end": [4]},
        {"start": [1], "middle": [2], "end": [4]},
    ],
    notes="The until event is not taken by the loop (the end part takes it here); "
    "nothing after it joins the loop.",
)

_t(
    name="until_with_combinations",
    source="UntilConditionITCase: one_or_more().allow_combinations().until(...)",
    pattern=_until_pattern(lambda p: p.allow_combinations()),
    events=[
        (E(1, "c", 1.0), 1),
        (E(2, "a", 2.0), 3),
        (E(3, "a", 3.0), 4),
        (E(4, "a", 4.0), 5),
        (E(5, "a", 5.0), 6),
        (E(6, "a", 6.0), 7),
    ],
    matches=[{"start": [1], "middle": m, "end": [5]} for m in ([2, 3, 4], [2, 3], [2, 4], [2])],
)

_t(
    name="until_with_consecutive_loop_broken_early",
    source="UntilConditionITCase: one_or_more().consecutive().until(...), gap in the loop",
    pattern=_until_pattern(lambda p: p.consecutive()),
    events=[
        (E(1, "c", 1.0), 1),
        (E(2, "a", 2.0), 3),
        (E(3, "b", 3.0), 4),
        (E(4, "a", 4.0), 5),
        (E(5, "a", 5.0), 7),
        (E(6, "a", 6.0), 8),
    ],
    matches=[{"start": [1], "middle": [2], "end": [5]}],
)

_t(
    name="until_on_optional_loop",
    source="UntilConditionITCase: one_or_more().optional().until(...)",
    pattern=_until_pattern(lambda p: p, optional=True),
    events=list(_UNTIL_EVENTS),
    matches=[
        {"start": [1], "middle": [2, 3], "end": [4]},
        {"start": [1], "middle": [2], "end": [4]},
        {"start": [1], "end": [4]},
    ],
)

_t(
    name="until_on_loop_at_end_after_followed_by_any",
    source="UntilConditionITCase: followed_by_any one_or_more().until(...) as last part",
    pattern=lambda cep: (
        cep.Pattern.begin("start")
        .where(_is("c"))
        .followed_by_any("middle")
        .where(_is("a"))
        .one_or_more()
        .until(_price_is(5.0))
    ),
    events=list(_UNTIL_EVENTS),
    matches=[
        {"start": [1], "middle": [2, 3]},
        {"start": [1], "middle": [2]},
        {"start": [1], "middle": [3]},
        {"start": [1], "middle": [5]},
    ],
    notes="The until event closes the running loops, but followed_by_any lets the 'a' "
    "after it start a new one.",
)

_t(
    name="until_on_unconditioned_loop",
    source="UntilConditionITCase: loop with no where(), only until(...)",
    pattern=lambda cep: (
        cep.Pattern.begin("start")
        .where(_is("c"))
        .followed_by("middle")
        .one_or_more()
        .until(_price_is(5.0))
    ),
    events=[
        (E(1, "c", 1.0), 1),
        (E(2, "a", 2.0), 3),
        (E(3, "a", 3.0), 4),
        (E(4, "d", 1.0), 5),
        (E(5, "a", 5.0), 6),
        (E(6, "a", 6.0), 7),
    ],
    matches=[
        {"start": [1], "middle": [2, 3, 4]},
        {"start": [1], "middle": [2, 3]},
        {"start": [1], "middle": [2]},
    ],
)

_t(
    name="until_iterative_on_running_sum",
    source="UntilConditionITCase: iterative until over the prices taken so far",
    pattern=lambda cep: (
        cep.Pattern.begin("start")
        .where(_is("c"))
        .followed_by("middle")
        .one_or_more()
        .until(lambda e, ctx: _sum_prices(ctx, "middle") == 6.0)
    ),
    events=[
        (E(1, "c", 1.0), 1),
        (E(2, "a", 2.0), 3),
        (E(3, "a", 3.0), 4),
        (E(4, "d", 1.0), 5),
        (E(5, "a", 5.0), 6),
        (E(6, "a", 6.0), 7),
    ],
    matches=[
        {"start": [1], "middle": [2, 3, 4]},
        {"start": [1], "middle": [2, 3]},
        {"start": [1], "middle": [2]},
    ],
    notes="until sees the events already taken: once they sum to 6 the next event ends the loop.",
)

_t(
    name="until_counts_events_taken",
    source="SameElementITCase: until on the number of events the loop took",
    pattern=lambda cep: (
        cep.Pattern.begin("a")
        .where(_is("a"))
        .followed_by("d")
        .where(_is("d"))
        .one_or_more()
        .until(lambda e, ctx: len(list(ctx.get_events_for_pattern("d"))) == 3)
    ),
    events=[
        (E(1, "a", 1.0), 1),
        (E(2, "d", 2.0), 2),
        (E(3, "d", 2.0), 2),
        (E(4, "d", 2.0), 2),
        (E(5, "d", 2.0), 4),
    ],
    matches=[{"a": [1], "d": [2, 3, 4]}, {"a": [1], "d": [2, 3]}, {"a": [1], "d": [2]}],
)

# =====================================================================================
# Iterative conditions
# =====================================================================================


def _foo_sum_below_5(e, ctx):
    return e.name.startswith("foo") and _sum_prices(ctx, "middle") + e.price < 5.0


_ITER_EVENTS = [
    (E(1, "start", 1.0), 1),
    (S(2, "foo1", 1.0, 10.0), 2),
    (S(3, "foo2", 2.0, 10.0), 3),
    (E(4, "start", 2.0), 4),
    (S(5, "foo3", 3.0, 10.0), 5),
    (S(6, "foo4", 1.0, 10.0), 5),
    (E(7, "next-one", 1.0), 6),
    (E(8, "end", 1.0), 8),
]

_t(
    name="iterative_running_sum_in_relaxed_loop",
    source="IterativeConditionsITCase: loop of SubEvents whose prices must stay below 5",
    pattern=lambda cep: (
        cep.Pattern.begin("start")
        .where(_is("start"))
        .followed_by("middle")
        .subtype(SubEvent)
        .where(_foo_sum_below_5)
        .one_or_more()
        .followed_by("end")
        .where(_is("end"))
    ),
    events=list(_ITER_EVENTS),
    matches=[
        {"start": [1], "middle": [2, 3, 6], "end": [8]},
        {"start": [1], "middle": [2, 3], "end": [8]},
        {"start": [1], "middle": [2], "end": [8]},
        {"start": [4], "middle": [5, 6], "end": [8]},
        {"start": [4], "middle": [5], "end": [8]},
    ],
    notes="foo3 (price 3) fails the running-sum condition after foo1+foo2, so the "
    "relaxed loop skips it and takes foo4.",
)

_t(
    name="iterative_running_sum_in_combinations_loop",
    source="IterativeConditionsITCase: same, with allow_combinations()",
    pattern=lambda cep: (
        cep.Pattern.begin("start")
        .where(_is("start"))
        .followed_by("middle")
        .subtype(SubEvent)
        .where(_foo_sum_below_5)
        .one_or_more()
        .allow_combinations()
        .followed_by("end")
        .where(_is("end"))
    ),
    events=list(_ITER_EVENTS),
    matches=[
        {"start": [1], "middle": [2, 3, 6], "end": [8]},
        {"start": [1], "middle": [2, 3], "end": [8]},
        {"start": [1], "middle": [2, 5], "end": [8]},
        {"start": [4], "middle": [5, 6], "end": [8]},
        {"start": [1], "middle": [2, 6], "end": [8]},
        {"start": [1], "middle": [2], "end": [8]},
        {"start": [4], "middle": [5], "end": [8]},
    ],
)

_t(
    name="iterative_condition_on_looping_first_part",
    source="IterativeConditionsITCase: looping first part with a running-sum condition",
    pattern=lambda cep: (
        cep.Pattern.begin("start")
        .where(lambda e, ctx: e.name == "start" and _sum_prices(ctx, "start") + e.price < 5.0)
        .one_or_more()
        .allow_combinations()
        .optional()
        .followed_by("end")
        .where(_is("end"))
    ),
    events=[
        (E(1, "start", 1.0), 1),
        (E(2, "start", 2.0), 2),
        (E(3, "start", 3.0), 3),
        (E(4, "end", 1.0), 4),
    ],
    matches=[{"start": s, "end": [4]} for s in ([1, 2], [1, 3], [1], [2], [3])] + [{"end": [4]}],
)

_t(
    name="iterative_condition_reads_an_earlier_part",
    source="IterativeConditionsITCase: end condition on the sum of the start loop",
    pattern=lambda cep: (
        cep.Pattern.begin("start")
        .where(_is("start"))
        .one_or_more()
        .followed_by("end")
        .where(lambda e, ctx: e.name == "end" and _sum_prices(ctx, "start") >= 2.0)
    ),
    events=[(E(1, "start", 1.0), 1), (E(2, "start", 2.0), 2), (E(3, "end", 1.0), 4)],
    matches=[{"start": [1, 2], "end": [3]}, {"start": [2], "end": [3]}],
)

_t(
    name="iterative_abac",
    source="IterativeConditionsITCase: start, SubEvent, loop of starts bounded by a sum",
    pattern=lambda cep: (
        cep.Pattern.begin("start")
        .where(_is("start"))
        .followed_by_any("middle1")
        .subtype(SubEvent)
        .where(lambda e: e.name.startswith("foo"))
        .followed_by("middle2")
        .where(lambda e, ctx: e.name == "start" and _sum_prices(ctx, "middle2") + e.price <= 5.0)
        .one_or_more()
        .followed_by("end")
        .where(_is("end"))
    ),
    events=[
        (E(1, "start", 1.0), 1),
        (S(2, "foo1", 1.0, 10.0), 2),
        (E(3, "start", 2.0), 2),
        (E(4, "start", 3.0), 2),
        (S(5, "foo2", 2.0, 10.0), 2),
        (E(6, "start", 4.0), 2),
        (S(7, "foo3", 3.0, 10.0), 2),
        (S(8, "foo4", 1.0, 10.0), 2),
        (E(9, "end", 1.0), 4),
    ],
    matches=[
        {"start": [1], "middle1": [2], "middle2": [3, 4], "end": [9]},
        {"start": [1], "middle1": [2], "middle2": [3], "end": [9]},
        {"start": [1], "middle1": [5], "middle2": [6], "end": [9]},
        {"start": [3], "middle1": [5], "middle2": [6], "end": [9]},
        {"start": [4], "middle1": [5], "middle2": [6], "end": [9]},
    ],
)

# =====================================================================================
# Group patterns
# =====================================================================================


def _ab(cep):
    return cep.Pattern.begin("middle1").where(_is("a")).followed_by("middle2").where(_is("b"))


_CABABD = [
    (E(1, "c", 1.0), 1),
    (E(2, "a", 2.0), 2),
    (E(3, "b", 3.0), 3),
    (E(4, "a", 4.0), 4),
    (E(5, "b", 5.0), 5),
    (E(6, "d", 6.0), 6),
]

_CABABABD = [
    (E(1, "c", 1.0), 1),
    (E(2, "a", 2.0), 2),
    (E(3, "b", 3.0), 3),
    (E(4, "a", 4.0), 4),
    (E(5, "b", 5.0), 5),
    (E(6, "a", 4.0), 6),
    (E(7, "b", 5.0), 7),
    (E(8, "d", 6.0), 8),
]

_t(
    name="group_times_two",
    source="GroupITCase: c (a b){2} d",
    pattern=lambda cep: (
        cep.Pattern.begin("start")
        .where(_is("c"))
        .followed_by(_ab(cep))
        .times(2)
        .followed_by("end")
        .where(_is("d"))
    ),
    events=list(_CABABD),
    matches=[{"start": [1], "middle1": [2, 4], "middle2": [3, 5], "end": [6]}],
    notes="A group reports its events under its inner part names.",
)

_t(
    name="group_optional",
    source="GroupITCase: c (a b)? d",
    pattern=lambda cep: (
        cep.Pattern.begin("start")
        .where(_is("c"))
        .followed_by(_ab(cep))
        .optional()
        .followed_by("end")
        .where(_is("d"))
    ),
    events=[
        (E(1, "c", 1.0), 1),
        (E(2, "a", 2.0), 2),
        (E(3, "a", 2.0), 3),
        (E(4, "b", 3.0), 4),
        (E(5, "d", 4.0), 5),
    ],
    matches=[
        {"start": [1], "end": [5]},
        {"start": [1], "middle1": [2], "middle2": [4], "end": [5]},
    ],
)

_t(
    name="group_times_optional_not_met",
    source="GroupITCase: c (a b){2}? d with too few events for the group",
    pattern=lambda cep: (
        cep.Pattern.begin("start")
        .where(_is("c"))
        .followed_by(_ab(cep))
        .times(2)
        .optional()
        .followed_by("end")
        .where(_is("d"))
    ),
    events=[(E(1, "c", 1.0), 1), (E(2, "a", 2.0), 2), (E(3, "d", 3.0), 3)],
    matches=[{"start": [1], "end": [3]}],
)

_t(
    name="group_zero_or_more",
    source="GroupITCase: c (a b)* d",
    pattern=lambda cep: (
        cep.Pattern.begin("start")
        .where(_is("c"))
        .followed_by(_ab(cep))
        .one_or_more()
        .optional()
        .followed_by("end")
        .where(_is("d"))
    ),
    events=list(_CABABD),
    matches=[
        {"start": [1], "end": [6]},
        {"start": [1], "middle1": [2], "middle2": [3], "end": [6]},
        {"start": [1], "middle1": [2, 4], "middle2": [3, 5], "end": [6]},
    ],
)

_t(
    name="group_after_followed_by_any_times_with_combinations",
    source="GroupITCase: c any (a b){2} with allow_combinations, then d",
    pattern=lambda cep: (
        cep.Pattern.begin("start")
        .where(_is("c"))
        .followed_by_any(_ab(cep))
        .times(2)
        .allow_combinations()
        .followed_by("end")
        .where(_is("d"))
    ),
    events=list(_CABABABD),
    matches=[
        {"start": [1], "middle1": [2, 4], "middle2": [3, 5], "end": [8]},
        {"start": [1], "middle1": [2, 6], "middle2": [3, 7], "end": [8]},
        {"start": [1], "middle1": [4, 6], "middle2": [5, 7], "end": [8]},
    ],
)

_t(
    name="group_after_followed_by_any_optional_times",
    source="GroupITCase: c any (a b){2}? d (default loop contiguity)",
    pattern=lambda cep: (
        cep.Pattern.begin("start")
        .where(_is("c"))
        .followed_by_any(_ab(cep))
        .times(2)
        .optional()
        .followed_by("end")
        .where(_is("d"))
    ),
    events=list(_CABABABD),
    matches=[
        {"start": [1], "end": [8]},
        {"start": [1], "middle1": [2, 4], "middle2": [3, 5], "end": [8]},
        {"start": [1], "middle1": [4, 6], "middle2": [5, 7], "end": [8]},
    ],
)

_t(
    name="group_after_followed_by_any_one_or_more",
    source="GroupITCase: c any (a b)+ d",
    pattern=lambda cep: (
        cep.Pattern.begin("start")
        .where(_is("c"))
        .followed_by_any(_ab(cep))
        .one_or_more()
        .followed_by("end")
        .where(_is("d"))
    ),
    events=list(_CABABABD),
    matches=[
        {"start": [1], "middle1": m1, "middle2": m2, "end": [8]}
        for m1, m2 in (
            ([2], [3]),
            ([4], [5]),
            ([6], [7]),
            ([2, 4], [3, 5]),
            ([4, 6], [5, 7]),
            ([2, 4, 6], [3, 5, 7]),
        )
    ],
)

_t(
    name="group_after_next_consecutive_zero_or_more",
    source="GroupITCase: c next (a b)* consecutive, then d",
    pattern=lambda cep: (
        cep.Pattern.begin("start")
        .where(_is("c"))
        .next(_ab(cep))
        .one_or_more()
        .optional()
        .consecutive()
        .followed_by("end")
        .where(_is("d"))
    ),
    events=[
        (E(1, "c", 1.0), 1),
        (E(2, "a", 2.0), 3),
        (E(3, "b", 3.0), 4),
        (E(4, "a", 3.0), 5),
        (E(5, "b", 3.0), 6),
        (E(6, "a", 4.0), 7),
        (E(7, "b", 3.0), 8),
        (E(8, "d", 1.0), 9),
    ],
    matches=[
        {"start": [1], "end": [8]},
        {"start": [1], "middle1": [2], "middle2": [3], "end": [8]},
        {"start": [1], "middle1": [2, 4], "middle2": [3, 5], "end": [8]},
        {"start": [1], "middle1": [2, 4, 6], "middle2": [3, 5, 7], "end": [8]},
    ],
)

_t(
    name="group_then_not_followed_by",
    source="GroupITCase: c (a b) then not_followed_by d, then e",
    pattern=lambda cep: (
        cep.Pattern.begin("start")
        .where(_is("c"))
        .followed_by_any(_ab(cep))
        .not_followed_by("notPattern")
        .where(_is("d"))
        .followed_by("end")
        .where(_is("e"))
    ),
    events=[
        (E(1, "c", 1.0), 1),
        (E(2, "a", 2.0), 2),
        (E(3, "b", 3.0), 3),
        (E(4, "d", 3.0), 4),
        (E(5, "a", 4.0), 5),
        (E(6, "b", 5.0), 6),
        (E(7, "e", 6.0), 7),
    ],
    matches=[{"start": [1], "middle1": [5], "middle2": [6], "end": [7]}],
)

_t(
    name="group_then_not_next",
    source="GroupITCase: c (a b) then not_next d, then e",
    pattern=lambda cep: (
        cep.Pattern.begin("start")
        .where(_is("c"))
        .followed_by_any(_ab(cep))
        .not_next("notPattern")
        .where(_is("d"))
        .followed_by("end")
        .where(_is("e"))
    ),
    events=[
        (E(1, "c", 1.0), 1),
        (E(2, "a", 2.0), 2),
        (E(3, "b", 3.0), 3),
        (E(4, "d", 3.0), 4),
        (E(5, "a", 4.0), 5),
        (E(6, "b", 5.0), 6),
        (E(7, "e", 6.0), 7),
    ],
    matches=[{"start": [1], "middle1": [5], "middle2": [6], "end": [7]}],
)

_t(
    name="nested_groups_optional_and_looping",
    source="GroupITCase: d (a (b c)*)? e",
    pattern=lambda cep: (
        cep.Pattern.begin("start")
        .where(_is("d"))
        .followed_by(
            cep.Pattern.begin("middle1")
            .where(_is("a"))
            .followed_by(
                cep.Pattern.begin("middle2").where(_is("b")).followed_by("middle3").where(_is("c"))
            )
            .one_or_more()
            .optional()
        )
        .optional()
        .followed_by("end")
        .where(_is("e"))
    ),
    events=[
        (E(1, "d", 1.0), 1),
        (E(2, "a", 2.0), 2),
        (E(3, "b", 3.0), 3),
        (E(4, "c", 4.0), 4),
        (E(5, "b", 5.0), 5),
        (E(6, "c", 4.0), 6),
        (E(7, "e", 6.0), 7),
    ],
    matches=[
        {"start": [1], "end": [7]},
        {"start": [1], "middle1": [2], "end": [7]},
        {"start": [1], "middle1": [2], "middle2": [3], "middle3": [4], "end": [7]},
        {"start": [1], "middle1": [2], "middle2": [3, 5], "middle3": [4, 6], "end": [7]},
    ],
)


def _nested_times(consecutive):
    def build(cep):
        inner = cep.Pattern.begin("middle2").where(_is("b")).followed_by("middle3").where(_is("c"))
        group = cep.Pattern.begin("middle1").where(_is("a")).followed_by(inner).times(3)
        if consecutive:
            group = group.consecutive()
        p = cep.Pattern.begin("start").where(_is("d")).followed_by_any(group).times(0, 2)
        if consecutive:
            p = p.consecutive()
        return p.followed_by("end").where(_is("e"))

    return build


_t(
    name="nested_group_times_range_from_zero",
    source="GroupITCase: d any (a (b c){3}){0,2} e",
    pattern=_nested_times(False),
    events=[
        (E(1, "d", 1.0), 1),
        (E(2, "a", 2.0), 2),
        (E(3, "b", 3.0), 3),
        (E(4, "c", 4.0), 4),
        (E(5, "b", 5.0), 5),
        (E(6, "c", 4.0), 6),
        (E(7, "b", 5.0), 7),
        (E(8, "c", 4.0), 8),
        (E(9, "a", 2.0), 9),
        (E(10, "b", 3.0), 10),
        (E(11, "c", 4.0), 11),
        (E(12, "b", 5.0), 12),
        (E(13, "c", 4.0), 13),
        (E(14, "b", 5.0), 14),
        (E(15, "c", 4.0), 15),
        (E(16, "e", 6.0), 16),
    ],
    matches=[
        {"start": [1], "end": [16]},
        {"start": [1], "middle1": [2], "middle2": [3, 5, 7], "middle3": [4, 6, 8], "end": [16]},
        {
            "start": [1],
            "middle1": [9],
            "middle2": [10, 12, 14],
            "middle3": [11, 13, 15],
            "end": [16],
        },
        {
            "start": [1],
            "middle1": [2, 9],
            "middle2": [3, 5, 7, 10, 12, 14],
            "middle3": [4, 6, 8, 11, 13, 15],
            "end": [16],
        },
    ],
)

_t(
    name="nested_group_consecutive_broken_by_intruder",
    source="GroupITCase: d any (a (b c){3} consecutive){0,2} consecutive, then e",
    pattern=_nested_times(True),
    events=[
        (E(1, "d", 1.0), 1),
        (E(2, "a", 2.0), 2),
        (E(3, "b", 3.0), 3),
        (E(4, "c", 4.0), 4),
        (E(5, "b", 5.0), 5),
        (E(6, "c", 4.0), 6),
        (E(7, "b", 5.0), 7),
        (E(8, "c", 4.0), 8),
        (E(9, "a", 2.0), 9),
        (E(10, "b", 3.0), 10),
        (E(11, "c", 4.0), 11),
        (E(12, "breaking", 99.0), 12),
        (E(13, "b", 5.0), 13),
        (E(14, "c", 4.0), 14),
        (E(15, "b", 5.0), 15),
        (E(16, "c", 4.0), 16),
        (E(17, "e", 6.0), 17),
    ],
    matches=[
        {"start": [1], "end": [17]},
        {"start": [1], "middle1": [2], "middle2": [3, 5, 7], "middle3": [4, 6, 8], "end": [17]},
    ],
)

_t(
    name="group_as_first_part",
    source="GroupITCase: (a b){1,2} d",
    pattern=lambda cep: cep.Pattern.begin(_ab(cep)).times(1, 2).followed_by("end").where(_is("d")),
    events=[
        (E(1, "a", 2.0), 1),
        (E(2, "b", 3.0), 2),
        (E(3, "a", 4.0), 3),
        (E(4, "b", 5.0), 4),
        (E(5, "d", 6.0), 5),
    ],
    matches=[
        {"middle1": [1], "middle2": [2], "end": [5]},
        {"middle1": [3], "middle2": [4], "end": [5]},
        {"middle1": [1, 3], "middle2": [2, 4], "end": [5]},
    ],
)

_t(
    name="group_one_or_more_until",
    source="GroupITCase: c (a b)+ until d, then d",
    pattern=lambda cep: (
        cep.Pattern.begin("start")
        .where(_is("c"))
        .followed_by(_ab(cep))
        .one_or_more()
        .until(_is("d"))
        .followed_by("end")
        .where(_is("d"))
    ),
    events=list(_CABABD),
    matches=[
        {"start": [1], "middle1": [2], "middle2": [3], "end": [6]},
        {"start": [1], "middle1": [2, 4], "middle2": [3, 5], "end": [6]},
    ],
)

_t(
    name="group_starting_with_optional_part",
    source="GroupITCase: a next (b? next c) next d",
    pattern=lambda cep: (
        cep.Pattern.begin("start")
        .where(_is("a"))
        .next(
            cep.Pattern.begin("middle1").where(_is("b")).optional().next("middle2").where(_is("c"))
        )
        .next("d")
        .where(_is("d"))
    ),
    events=[(E(1, "a", 1.0), 1), (E(2, "c", 2.0), 2), (E(3, "d", 3.0), 3)],
    matches=[{"start": [1], "middle2": [2], "d": [3]}],
)

_t(
    name="optional_group_then_next_is_strict_against_what_precedes",
    source="GroupITCase: a followed_by (b next c)? next d",
    pattern=lambda cep: (
        cep.Pattern.begin("start")
        .where(_is("a"))
        .followed_by(cep.Pattern.begin("middle1").where(_is("b")).next("middle2").where(_is("c")))
        .optional()
        .next("d")
        .where(_is("d"))
    ),
    events=[(E(1, "a", 1.0), 1), (E(2, "d", 2.0), 2), (E(3, "d", 3.0), 3)],
    matches=[{"start": [1], "d": [2]}],
    notes="With the group skipped, 'd' must come right after 'a': the second 'd' does not match.",
)

# =====================================================================================
# not_next / not_followed_by
# =====================================================================================

_t(
    name="not_next_in_the_middle",
    source="NotPatternITCase: a not_next b, then any c, then d",
    pattern=lambda cep: (
        cep.Pattern.begin("start")
        .where(_is("a"))
        .not_next("notPattern")
        .where(_is("b"))
        .followed_by_any("middle")
        .where(_is("c"))
        .followed_by("end")
        .where(_is("d"))
    ),
    events=[
        (E(1, "a", 1.0), 1),
        (E(2, "c", 2.0), 2),
        (E(3, "b", 3.0), 3),
        (E(4, "c", 4.0), 4),
        (E(5, "d", 4.0), 5),
    ],
    matches=[{"start": [1], "middle": [2], "end": [5]}, {"start": [1], "middle": [4], "end": [5]}],
    notes="Only the event right after 'a' is checked against 'b'.",
)

_t(
    name="not_next_kills_the_partial_match",
    source="NotPatternITCase: not_next with the forbidden event right after start",
    pattern=lambda cep: (
        cep.Pattern.begin("start")
        .where(_is("a"))
        .not_next("notPattern")
        .where(_is("b"))
        .followed_by("middle")
        .where(_is("c"))
        .followed_by("end")
        .where(_is("d"))
    ),
    events=[
        (E(1, "a", 1.0), 1),
        (E(2, "b", 3.0), 2),
        (E(3, "c", 2.0), 3),
        (E(4, "c", 4.0), 4),
        (E(5, "d", 4.0), 5),
    ],
    matches=[],
)

_t(
    name="not_next_as_last_part_needs_the_next_event",
    source="NotPatternITCase: not_next at the end, forbidden event arrives",
    pattern=lambda cep: (
        cep.Pattern.begin("start")
        .where(_is("a"))
        .followed_by_any("middle")
        .where(_is("c"))
        .followed_by_any("end")
        .where(_is("d"))
        .not_next("notPattern")
        .where(_is("b"))
    ),
    events=[
        (E(1, "a", 1.0), 1),
        (E(2, "c", 2.0), 2),
        (E(3, "c", 4.0), 3),
        (E(4, "d", 4.0), 4),
        (E(5, "b", 3.0), 5),
    ],
    matches=[],
)

_t(
    name="not_followed_by_in_the_middle",
    source="NotPatternITCase: a not_followed_by b, then any c, then d",
    pattern=lambda cep: (
        cep.Pattern.begin("start")
        .where(_is("a"))
        .not_followed_by("notPattern")
        .where(_is("b"))
        .followed_by_any("middle")
        .where(_is("c"))
        .followed_by("end")
        .where(_is("d"))
    ),
    events=[
        (E(1, "a", 1.0), 1),
        (E(2, "c", 2.0), 2),
        (E(3, "b", 3.0), 3),
        (E(4, "c", 4.0), 4),
        (E(5, "d", 4.0), 5),
    ],
    matches=[{"start": [1], "middle": [2], "end": [5]}],
    notes="The 'b' only forbids a middle taken after it.",
)

_t(
    name="not_followed_by_then_optional_times",
    source="NotPatternITCase: not_followed_by before an optional times(2)",
    pattern=lambda cep: (
        cep.Pattern.begin("start")
        .where(_is("a"))
        .not_followed_by("notPattern")
        .where(_is("b"))
        .followed_by_any("middle")
        .where(_is("c"))
        .times(2)
        .optional()
        .followed_by("end")
        .where(_is("d"))
    ),
    events=[
        (E(1, "a", 1.0), 1),
        (E(2, "c", 2.0), 2),
        (E(3, "b", 3.0), 3),
        (E(4, "c", 4.0), 4),
        (E(5, "d", 4.0), 5),
    ],
    matches=[{"start": [1], "middle": [2, 4], "end": [5]}],
    notes="Once the first middle is taken the 'b' no longer matters; skipping the "
    "middle would put the 'b' between start and end, so no {start, end} match.",
)

_t(
    name="times_then_not_followed_by",
    source="NotPatternITCase: times(2) then not_followed_by c",
    pattern=lambda cep: (
        cep.Pattern.begin("start")
        .where(_is("a"))
        .followed_by_any("middle")
        .where(_is("b"))
        .times(2)
        .not_followed_by("notPattern")
        .where(_is("c"))
        .followed_by("end")
        .where(_is("d"))
    ),
    events=[
        (E(1, "a", 1.0), 1),
        (E(2, "b", 2.0), 2),
        (E(3, "c", 3.0), 3),
        (E(4, "b", 4.0), 4),
        (E(5, "d", 4.0), 5),
    ],
    matches=[],
)

_t(
    name="not_followed_by_with_branching_at_start",
    source="NotPatternITCase: two starts, the first one followed by the forbidden event",
    pattern=lambda cep: (
        cep.Pattern.begin("start")
        .where(_is("a"))
        .not_followed_by("notPattern")
        .where(_is("b"))
        .followed_by("middle")
        .where(_is("c"))
        .followed_by("end")
        .where(_is("d"))
    ),
    events=[
        (E(1, "a", 1.0), 1),
        (E(2, "b", 3.0), 2),
        (E(3, "c", 2.0), 3),
        (E(4, "a", 4.0), 4),
        (E(5, "c", 5.0), 5),
        (E(6, "d", 6.0), 6),
    ],
    matches=[{"start": [4], "middle": [5], "end": [6]}],
)

_t(
    name="not_followed_by_then_optional_last_part",
    source="NotPatternITCase: not_followed_by before an optional last part",
    pattern=lambda cep: (
        cep.Pattern.begin("start")
        .where(_is("a"))
        .not_followed_by("notPattern")
        .where(_is("b"))
        .followed_by_any("end")
        .where(_is("c"))
        .optional()
    ),
    events=[(E(1, "a", 1.0), 1), (E(2, "c", 2.0), 2), (E(3, "b", 3.0), 3), (E(4, "c", 4.0), 4)],
    matches=[{"start": [1], "end": [2]}, {"start": [1]}],
    notes="{'start': [1]} is emitted as soon as 'a' arrives (the optional end can be "
    "skipped); the 'b' then stops any later end.",
)


def _not_loop(loop_first, any_loop, combinations, not_kind):
    """a [not c] then 'b*' loop [not c] then d (NotPatternITCase's NotFollowByData)."""

    def build(cep):
        p = cep.Pattern.begin("a").where(_is("a"))
        if loop_first == "before":
            p = p.not_followed_by("not c").where(_is("c"))
        p = (
            (p.followed_by_any("b*") if any_loop else p.followed_by("b*"))
            .where(_is("b"))
            .one_or_more()
        )
        if combinations:
            p = p.allow_combinations()
        if loop_first == "after":
            p = (p.not_next("not c") if not_kind == "next" else p.not_followed_by("not c")).where(
                _is("c")
            )
        return p.followed_by("d").where(_is("d"))

    return build


_A_B_C_B_D = [
    (E(1, "a", 1.0), 0),
    (E(2, "b", 2.0), 1),
    (E(3, "c", 5.0), 2),
    (E(4, "b", 3.0), 3),
    (E(5, "d", 9.0), 4),
]

_t(
    name="not_next_after_relaxed_loop_discards_the_whole_branch",
    source="NotPatternITCase: b+ not_next c, skip-till-next into the loop",
    pattern=_not_loop("after", any_loop=False, combinations=False, not_kind="next"),
    events=list(_A_B_C_B_D),
    matches=[],
    notes="When the 'c' arrives the branch reaching the not_next part dies, and Flink "
    "discards every branch grown from that partial match (also the loop that "
    "could have skipped 'c'); the loop cannot start later either (followed_by).",
)

_t(
    name="not_next_after_loop_started_by_followed_by_any",
    source="NotPatternITCase: b+ not_next c, skip-till-any into the loop",
    pattern=_not_loop("after", any_loop=True, combinations=False, not_kind="next"),
    events=list(_A_B_C_B_D),
    matches=[{"a": [1], "b*": [4], "d": [5]}],
)

_A_BBB_C_BBB_D = [
    (E(1, "a", 1.0), 0),
    (E(2, "b", 2.0), 1),
    (E(3, "b", 3.0), 2),
    (E(4, "b", 4.0), 3),
    (E(5, "c", 5.0), 4),
    (E(6, "b", 6.0), 5),
    (E(7, "b", 7.0), 6),
    (E(8, "b", 8.0), 7),
    (E(9, "d", 9.0), 8),
]

_t(
    name="not_followed_by_after_relaxed_loop_no_match",
    source="NotPatternITCase: b+ not_followed_by c, skip-till-next into the loop",
    pattern=_not_loop("after", any_loop=False, combinations=False, not_kind="followed"),
    events=list(_A_BBB_C_BBB_D),
    matches=[],
)

_t(
    name="not_followed_by_after_loop_started_by_followed_by_any",
    source="NotPatternITCase: b+ not_followed_by c, skip-till-any into the loop",
    pattern=_not_loop("after", any_loop=True, combinations=False, not_kind="followed"),
    events=list(_A_BBB_C_BBB_D),
    matches=[{"a": [1], "b*": b, "d": [9]} for b in ([6, 7, 8], [6, 7], [6], [7, 8], [7], [8])],
)

_t(
    name="not_followed_by_after_combinations_loop_started_by_followed_by_any",
    source="NotPatternITCase: b+ allow_combinations not_followed_by c, skip-till-any",
    pattern=_not_loop("after", any_loop=True, combinations=True, not_kind="followed"),
    events=list(_A_BBB_C_BBB_D),
    matches=[
        {"a": [1], "b*": b, "d": [9]} for b in ([6, 7, 8], [6, 7], [6, 8], [6], [7, 8], [7], [8])
    ],
)

_A_B_C_BBB_D = [
    (E(1, "a", 1.0), 0),
    (E(2, "b", 2.0), 1),
    (E(3, "c", 5.0), 2),
    (E(4, "b", 6.0), 3),
    (E(5, "b", 7.0), 4),
    (E(6, "b", 8.0), 5),
    (E(7, "d", 9.0), 6),
]

_t(
    name="not_followed_by_before_loop_started_by_followed_by_any",
    source="NotPatternITCase: a not_followed_by c, then any b+, then d",
    pattern=_not_loop("before", any_loop=True, combinations=False, not_kind="followed"),
    events=list(_A_B_C_BBB_D),
    matches=[{"a": [1], "b*": b, "d": [7]} for b in ([2, 4, 5, 6], [2, 4, 5], [2, 4], [2])],
    notes="A loop begun before the 'c' survives it; loops that would begin after the "
    "'c' are forbidden, even under followed_by_any.",
)

_t(
    name="not_followed_by_before_combinations_loop",
    source="NotPatternITCase: a not_followed_by c, then b+ allow_combinations, then d",
    pattern=_not_loop("before", any_loop=False, combinations=True, not_kind="followed"),
    events=list(_A_B_C_BBB_D),
    matches=[
        {"a": [1], "b*": b, "d": [7]}
        for b in ([2, 4, 5, 6], [2, 4, 6], [2, 4, 5], [2, 4], [2, 5, 6], [2, 5], [2, 6], [2])
    ],
)

_t(
    name="not_followed_by_at_end_with_within",
    source="NotPatternITCase: a not_followed_by b as the last part, within 3 ms",
    pattern=lambda cep: (
        cep.Pattern.begin("a")
        .where(_is("a"))
        .not_followed_by("b")
        .where(_is("b"))
        .within(_ms(cep, 3))
    ),
    events=[
        (E(1, "a", 1.0), 1),
        (E(2, "b", 2.0), 2),
        (E(3, "a", 3.0), 4),
        (E(4, "c", 4.0), 5),
        (E(5, "b", 5.0), 10),
        (E(6, "a", 7.0), 11),
        (E(7, "b", 8.0), 13),
    ],
    matches=[{"a": [3]}],
    notes="not_followed_by may end a pattern only with a within(); the match is emitted "
    "when the window closes without a 'b'. Flink's test gives the same for "
    "WithinType.PREVIOUS_AND_CURRENT.",
)

_t(
    name="not_followed_by_before_optional_times_within",
    source="NotPatternITCase: a not_followed_by b, then c times(0, 2), within 3 ms",
    pattern=lambda cep: (
        cep.Pattern.begin("a")
        .where(_is("a"))
        .not_followed_by("b")
        .where(_is("b"))
        .followed_by("c")
        .where(_is("c"))
        .times(0, 2)
        .within(_ms(cep, 3))
    ),
    events=[
        (E(1, "a", 1.0), 1),
        (E(2, "b", 2.0), 2),
        (E(3, "a", 3.0), 10),
        (E(4, "c", 4.0), 11),
        (E(5, "c", 5.0), 12),
        (E(6, "a", 7.0), 20),
        (E(7, "c", 8.0), 21),
        (E(8, "c", 8.0), 24),
    ],
    matches=[
        {"a": [1]},
        {"a": [3]},
        {"a": [3], "c": [4]},
        {"a": [3], "c": [4, 5]},
        {"a": [6]},
        {"a": [6], "c": [7]},
    ],
    notes="{'a': [1]} is emitted on arrival (the c part is optional) although a 'b' "
    "follows; the last 'c' is 4 ms after its 'a', outside the window.",
)

_t(
    name="not_followed_by_at_end_after_combinations_loop_skip_past_last",
    source="NotPatternITCase: a+ allow_combinations, c, not_followed_by b at the end, "
    "within 5 ms, skip past last event",
    pattern=lambda cep: (
        cep.Pattern.begin("a", cep.AfterMatchSkipStrategy.skip_past_last_event())
        .where(_is("a"))
        .one_or_more()
        .allow_combinations()
        .followed_by("c")
        .where(_is("c"))
        .not_followed_by("b")
        .where(_is("b"))
        .within(_ms(cep, 5))
    ),
    events=[
        (E(1, "a", 1.0), 1),
        (E(2, "a", 2.0), 2),
        (E(3, "a", 3.0), 3),
        (E(4, "c", 4.0), 4),
        (E(5, "c", 5.0), 10),
    ],
    matches=[{"a": [1, 2, 3], "c": [4]}],
    notes="All candidate matches are pending until their windows close; of those, Flink "
    "emits the one with all three 'a's, and skip-past-last discards the rest.",
)

# =====================================================================================
# within (both WithinTypes) and timed-out partial matches
# =====================================================================================

_WINDOW_EVENTS = [
    (E(1, "start", 1.0), 1),
    (E(2, "start", 1.0), 2),
    (E(3, "middle", 1.0), 3),
    (E(4, "foobar", 1.0), 4),
    (E(5, "end", 1.0), 11),
    (E(6, "end", 1.0), 13),
]

_t(
    name="within_first_and_last_drops_old_starts",
    source="NFAITCase: time window between first and last event",
    pattern=lambda cep: (
        cep.Pattern.begin("start")
        .where(_is("start"))
        .followed_by("middle")
        .where(_is("middle"))
        .followed_by("end")
        .where(_is("end"))
        .within(_ms(cep, 10))
    ),
    events=list(_WINDOW_EVENTS),
    matches=[{"start": [2], "middle": [3], "end": [5]}],
    notes="The first start is exactly 10 ms before the end: a span equal to the window "
    "is already outside it.",
)

_t(
    name="within_previous_and_current_bounds_each_gap",
    source="NFAITCase: time window between previous and current event",
    pattern=lambda cep: (
        cep.Pattern.begin("start")
        .where(_is("start"))
        .followed_by("middle")
        .where(_is("middle"))
        .followed_by("end")
        .where(_is("end"))
        .within(_ms(cep, 9), cep.WithinType.PREVIOUS_AND_CURRENT)
    ),
    events=list(_WINDOW_EVENTS),
    matches=[{"start": [1], "middle": [3], "end": [5]}, {"start": [2], "middle": [3], "end": [5]}],
)

_t(
    name="timeouts_within_first_and_last",
    source="NFAITCase: timed-out partial matches, window between first and last event",
    pattern=lambda cep: (
        cep.Pattern.begin("start")
        .where(_is("start"))
        .followed_by_any("middle")
        .where(_is("middle"))
        .followed_by_any("end")
        .where(_is("end"))
        .within(_ms(cep, 10))
    ),
    events=list(_WINDOW_EVENTS),
    matches=[{"start": [2], "middle": [3], "end": [5]}],
    timeouts=[
        {"start": [1], "middle": [3]},
        {"start": [2], "middle": [3]},
        {"start": [1]},
        {"start": [2]},
    ],
    watermark_at_end=13,
    notes="Flink stamps these timeouts at start + 10 (11 and 12). A partial match that "
    "already produced a match (start 2, middle 3, still open under "
    "followed_by_any) times out too.",
)

_t(
    name="timeouts_within_previous_and_current",
    source="NFAITCase: timed-out partial matches, window between previous and current",
    pattern=lambda cep: (
        cep.Pattern.begin("start")
        .where(_is("start"))
        .followed_by_any("middle")
        .where(_is("middle"))
        .followed_by_any("end")
        .where(_is("end"))
        .within(_ms(cep, 10), cep.WithinType.PREVIOUS_AND_CURRENT)
    ),
    events=list(_WINDOW_EVENTS),
    matches=[{"start": [1], "middle": [3], "end": [5]}, {"start": [2], "middle": [3], "end": [5]}],
    timeouts=[{"start": [1], "middle": [3]}, {"start": [2], "middle": [3]}],
    watermark_at_end=13,
    notes="A PREVIOUS_AND_CURRENT within() bounds only the part it is called on (here "
    "'end', measured from the event before it); partial matches still waiting for "
    "'middle' have no window and never time out. Both time out at 13 (middle + 10), "
    "before the second end is processed.",
)

_t(
    name="not_followed_by_at_end_emits_when_window_closes",
    source="NFAITCase: pending matches of a trailing not_followed_by",
    pattern=lambda cep: (
        cep.Pattern.begin("start")
        .where(_is("start"))
        .not_followed_by("middle")
        .where(_is("middle"))
        .within(_ms(cep, 5))
    ),
    events=[
        (E(1, "start", 1.0), 1),
        (E(2, "middle", 1.0), 4),
        (E(3, "start", 1.0), 5),
        (E(4, "start", 1.0), 11),
        (E(5, "middle", 1.0), 18),
    ],
    matches=[{"start": [3]}, {"start": [4]}],
    notes="The last start's window (11..16) closes before the middle at 18.",
)

_t(
    name="not_followed_by_at_end_previous_and_current",
    source="NFAITCase: pending matches of a trailing not_followed_by, PREVIOUS_AND_CURRENT window",
    pattern=lambda cep: (
        cep.Pattern.begin("start")
        .where(_is("start"))
        .not_followed_by("middle")
        .where(_is("middle"))
        .within(_ms(cep, 5), cep.WithinType.PREVIOUS_AND_CURRENT)
    ),
    events=[
        (E(1, "start", 1.0), 1),
        (E(2, "middle", 1.0), 4),
        (E(3, "start", 1.0), 5),
        (E(4, "start", 1.0), 11),
        (E(5, "middle", 1.0), 18),
    ],
    matches=[{"start": [3]}, {"start": [4]}],
)

_t(
    name="timeouts_in_event_time_with_out_of_order_arrival",
    source="CEPITCase: timeout handling in event time (punctuated watermarks ts - 5)",
    pattern=lambda cep: (
        cep.Pattern.begin("start")
        .where(_is("start"))
        .followed_by_any("middle")
        .where(_is("middle"))
        .followed_by_any("end")
        .where(_is("end"))
        .within(_ms(cep, 3))
    ),
    events=[
        (E(1, "start", 1.0), 1),
        (E(2, "middle", 2.0), 5),
        (E(3, "start", 2.0), 4),
        (E(4, "end", 2.0), 6),
    ],
    watermarks=[(1, 0), (3, 1)],
    matches=[{"start": [3], "middle": [2], "end": [4]}],
    timeouts=[{"start": [1]}, {"start": [3]}, {"start": [3], "middle": [2]}],
    notes="The first start times out before the middle is processed; the second start's "
    "two open partial matches time out at the final watermark.",
)

# =====================================================================================
# After-match skip strategies
# =====================================================================================

_SIX_A = [(E(i, "a", 0.0), i) for i in range(1, 7)]

_t(
    name="no_skip_gives_overlapping_matches",
    source="AfterMatchSkipITCase: no_skip with times(3)",
    pattern=lambda cep: (
        cep.Pattern.begin("start", cep.AfterMatchSkipStrategy.no_skip()).where(_is("a")).times(3)
    ),
    events=list(_SIX_A),
    matches=[
        {"start": [1, 2, 3]},
        {"start": [2, 3, 4]},
        {"start": [3, 4, 5]},
        {"start": [4, 5, 6]},
    ],
    notes="Flink's skip tests give no timestamps; stamped 1, 2, ... here.",
)

_t(
    name="skip_past_last_event_gives_disjoint_matches",
    source="AfterMatchSkipITCase: skip_past_last_event with times(3)",
    pattern=lambda cep: (
        cep.Pattern.begin("start", cep.AfterMatchSkipStrategy.skip_past_last_event())
        .where(_is("a"))
        .times(3)
    ),
    events=list(_SIX_A),
    matches=[{"start": [1, 2, 3]}, {"start": [4, 5, 6]}],
)

_AB_EVENTS = [(E(i, "ab", 0.0), i) for i in range(1, 8)]

_t(
    name="skip_to_first_of_a_later_part",
    source="AfterMatchSkipITCase: skip_to_first('end')",
    pattern=lambda cep: (
        cep.Pattern.begin("start", cep.AfterMatchSkipStrategy.skip_to_first("end"))
        .where(_has("a"))
        .times(2)
        .next("end")
        .where(_has("b"))
        .times(2)
    ),
    events=list(_AB_EVENTS[:6]),
    matches=[{"start": [1, 2], "end": [3, 4]}, {"start": [3, 4], "end": [5, 6]}],
)

_t(
    name="skip_to_last_of_a_later_part",
    source="AfterMatchSkipITCase: skip_to_last('end')",
    pattern=lambda cep: (
        cep.Pattern.begin("start", cep.AfterMatchSkipStrategy.skip_to_last("end"))
        .where(_has("a"))
        .times(2)
        .next("end")
        .where(_has("b"))
        .times(2)
    ),
    events=list(_AB_EVENTS),
    matches=[{"start": [1, 2], "end": [3, 4]}, {"start": [4, 5], "end": [6, 7]}],
)

_t(
    name="skip_past_last_event_among_simultaneous_matches",
    source="AfterMatchSkipITCase: skip_past_last_event with several matches ending on "
    "the same event",
    pattern=lambda cep: (
        cep.Pattern.begin("a", cep.AfterMatchSkipStrategy.skip_past_last_event())
        .where(_has("a"))
        .followed_by_any("b")
        .where(_has("b"))
        .followed_by_any("c")
        .where(_has("c"))
        .followed_by("d")
        .where(_has("d"))
    ),
    events=[
        (E(1, "a1", 0.0), 1),
        (E(2, "a2", 0.0), 2),
        (E(3, "b1", 0.0), 3),
        (E(4, "b2", 0.0), 4),
        (E(5, "c1", 0.0), 5),
        (E(6, "c2", 0.0), 6),
        (E(7, "d1", 0.0), 7),
        (E(8, "d2", 0.0), 8),
    ],
    matches=[{"a": [1], "b": [3], "c": [5], "d": [7]}],
    notes="Eight matches complete on d1; Flink emits the one that started earliest and, "
    "among those, took the earliest events, then discards the others.",
)

_t(
    name="skip_past_last_event_with_strict_pair",
    source="AfterMatchSkipITCase: skip_past_last_event, a next b",
    pattern=lambda cep: (
        cep.Pattern.begin("a", cep.AfterMatchSkipStrategy.skip_past_last_event())
        .where(_has("a"))
        .next("b")
        .where(_has("b"))
    ),
    events=[(E(1, "a1", 0.0), 1), (E(2, "c", 0.0), 2), (E(3, "a2", 0.0), 3), (E(4, "b2", 0.0), 4)],
    matches=[{"a": [3], "b": [4]}],
)

_t(
    name="skip_to_first_after_optional_loop_at_start",
    source="AfterMatchSkipITCase: skip_to_first('b') with an absent optional first loop",
    pattern=lambda cep: (
        cep.Pattern.begin("x", cep.AfterMatchSkipStrategy.skip_to_first("b"))
        .where(_has("x"))
        .one_or_more()
        .optional()
        .next("b")
        .where(_has("b"))
        .next("c")
        .where(_has("c"))
    ),
    events=[
        (E(1, "ab1", 0.0), 1),
        (E(2, "c1", 0.0), 2),
        (E(3, "ab2", 0.0), 3),
        (E(4, "c2", 0.0), 4),
    ],
    matches=[{"b": [1], "c": [2]}, {"b": [3], "c": [4]}],
)

_t(
    name="skip_to_first_with_consecutive_loop",
    source="AfterMatchSkipITCase: skip_to_first('b') with b+ consecutive",
    pattern=lambda cep: (
        cep.Pattern.begin("a", cep.AfterMatchSkipStrategy.skip_to_first("b"))
        .where(_has("a"))
        .next("b")
        .where(_has("b"))
        .one_or_more()
        .consecutive()
    ),
    events=[
        (E(1, "a1", 0.0), 1),
        (E(2, "b1", 0.0), 2),
        (E(3, "a2", 0.0), 3),
        (E(4, "b2", 0.0), 4),
        (E(5, "b3", 0.0), 5),
        (E(6, "a3", 0.0), 6),
        (E(7, "b4", 0.0), 7),
    ],
    matches=[{"a": [1], "b": [2]}, {"a": [3], "b": [4]}, {"a": [6], "b": [7]}],
    notes="After {a2, b2} the longer {a2, b2, b3} is discarded: it started before b2. "
    "Flink's test gives the same result with skip_to_last('b').",
)

_t(
    name="skip_past_last_event_with_greedy_loop_at_start",
    source="AfterMatchSkipITCase: documentation example, skip_past_last_event",
    pattern=lambda cep: (
        cep.Pattern.begin("a", cep.AfterMatchSkipStrategy.skip_past_last_event())
        .where(_has("a"))
        .one_or_more()
        .consecutive()
        .greedy()
        .next("b")
        .where(_has("b"))
    ),
    events=[(E(1, "a1", 0.0), 1), (E(2, "a2", 0.0), 2), (E(3, "a3", 0.0), 3), (E(4, "b1", 0.0), 4)],
    matches=[{"a": [1, 2, 3], "b": [4]}],
)

_t(
    name="skip_to_last_with_greedy_loop_at_start",
    source="AfterMatchSkipITCase: documentation example, skip_to_last('a')",
    pattern=lambda cep: (
        cep.Pattern.begin("a", cep.AfterMatchSkipStrategy.skip_to_last("a"))
        .where(_has("a"))
        .one_or_more()
        .consecutive()
        .greedy()
        .next("b")
        .where(_has("b"))
    ),
    events=[(E(1, "a1", 0.0), 1), (E(2, "a2", 0.0), 2), (E(3, "a3", 0.0), 3), (E(4, "b1", 0.0), 4)],
    matches=[{"a": [1, 2, 3], "b": [4]}, {"a": [3], "b": [4]}],
)

_t(
    name="skip_to_first_of_own_start_acts_as_no_skip",
    source="AfterMatchSkipITCase: documentation example, skip_to_first('a')",
    pattern=lambda cep: (
        cep.Pattern.begin("a", cep.AfterMatchSkipStrategy.skip_to_first("a"))
        .where(_has("a"))
        .one_or_more()
        .consecutive()
        .greedy()
        .next("b")
        .where(_has("b"))
    ),
    events=[(E(1, "a1", 0.0), 1), (E(2, "a2", 0.0), 2), (E(3, "a3", 0.0), 3), (E(4, "b1", 0.0), 4)],
    matches=[{"a": [1, 2, 3], "b": [4]}, {"a": [2, 3], "b": [4]}, {"a": [3], "b": [4]}],
    notes="Skipping to the match's own first event would loop forever, so nothing is "
    "skipped (no_skip gives the same three; with throw_exception_on_miss() Flink "
    "raises instead).",
)

_t(
    name="skip_to_first_of_a_loop_keeps_later_start",
    source="AfterMatchSkipITCase: skip_to_first('c*') documentation example",
    pattern=lambda cep: (
        cep.Pattern.begin("a or c", cep.AfterMatchSkipStrategy.skip_to_first("c*"))
        .where(lambda e: "a" in e.name or "c" in e.name)
        .followed_by("b or c")
        .where(lambda e: "b" in e.name or "c" in e.name)
        .followed_by("c*")
        .where(_has("c"))
        .one_or_more()
        .greedy()
        .followed_by("d")
        .where(_has("d"))
    ),
    events=[
        (E(1, "a", 0.0), 1),
        (E(2, "b", 0.0), 2),
        (E(3, "c1", 0.0), 3),
        (E(4, "c2", 0.0), 4),
        (E(5, "c3", 0.0), 5),
        (E(6, "d", 0.0), 6),
    ],
    matches=[
        {"a or c": [1], "b or c": [2], "c*": [3, 4, 5], "d": [6]},
        {"a or c": [3], "b or c": [4], "c*": [5], "d": [6]},
    ],
)

_t(
    name="skip_strategy_holds_a_match_until_earlier_partials_finish",
    source="AfterMatchSkipITCase: a later-started match completes first",
    pattern=lambda cep: (
        cep.Pattern.begin("a", cep.AfterMatchSkipStrategy.skip_to_first("c"))
        .where(_has("a"))
        .followed_by("c")
        .where(_has("c"))
        .followed_by("b")
        .where(
            lambda e, ctx: (
                "b" in e.name and list(ctx.get_events_for_pattern("a"))[0].price == e.price
            )
        )
    ),
    events=[
        (E(1, "a1", 0.0), 1),
        (E(2, "c1", 0.0), 2),
        (E(3, "a2", 1.0), 3),
        (E(4, "c2", 0.0), 4),
        (E(5, "b1", 1.0), 5),
        (E(6, "b2", 0.0), 6),
    ],
    matches=[{"a": [1], "c": [2], "b": [6]}, {"a": [3], "c": [4], "b": [5]}],
    notes="{a2, c2, b1} completes first but, under a skip strategy, Flink holds it back "
    "until the partial match begun earlier (a1) completes; {a1, c1, b2} is emitted "
    "first, its skip (to c1) does not reach a2, so both are emitted.",
)

_TWO_PAIRS = [(E(1, "a", 0.0), 1), (E(2, "b", 0.0), 2), (E(3, "a", 0.0), 3), (E(4, "b", 0.0), 4)]

_t(
    name="no_skip_with_followed_by_any",
    source="AfterMatchSkipITCase: no_skip, a followed_by_any b",
    pattern=lambda cep: (
        cep.Pattern.begin("start", cep.AfterMatchSkipStrategy.no_skip())
        .where(_is("a"))
        .followed_by_any("end")
        .where(_is("b"))
    ),
    events=list(_TWO_PAIRS),
    matches=[{"start": [1], "end": [2]}, {"start": [1], "end": [4]}, {"start": [3], "end": [4]}],
)

_t(
    name="skip_to_next_with_followed_by_any",
    source="AfterMatchSkipITCase: skip_to_next, a followed_by_any b",
    pattern=lambda cep: (
        cep.Pattern.begin("start", cep.AfterMatchSkipStrategy.skip_to_next())
        .where(_is("a"))
        .followed_by_any("end")
        .where(_is("b"))
    ),
    events=list(_TWO_PAIRS),
    matches=[{"start": [1], "end": [2]}, {"start": [3], "end": [4]}],
)

_A_BBB = [(E(1, "a", 0.0), 1), (E(2, "b", 0.0), 2), (E(3, "b", 0.0), 3), (E(4, "b", 0.0), 4)]

_t(
    name="no_skip_with_loop_at_the_end",
    source="AfterMatchSkipITCase: no_skip, a next b+",
    pattern=lambda cep: (
        cep.Pattern.begin("start", cep.AfterMatchSkipStrategy.no_skip())
        .where(_is("a"))
        .next("end")
        .where(_is("b"))
        .one_or_more()
    ),
    events=list(_A_BBB),
    matches=[
        {"start": [1], "end": [2, 3, 4]},
        {"start": [1], "end": [2, 3]},
        {"start": [1], "end": [2]},
    ],
)

_t(
    name="skip_to_next_with_loop_at_the_end",
    source="AfterMatchSkipITCase: skip_to_next, a next b+",
    pattern=lambda cep: (
        cep.Pattern.begin("start", cep.AfterMatchSkipStrategy.skip_to_next())
        .where(_is("a"))
        .next("end")
        .where(_is("b"))
        .one_or_more()
    ),
    events=list(_A_BBB),
    matches=[{"start": [1], "end": [2]}],
)

_t(
    name="skip_to_first_of_absent_part_without_exception",
    source="AfterMatchSkipITCase: skip_to_first('b') when the match has no 'b'",
    pattern=lambda cep: (
        cep.Pattern.begin("a", cep.AfterMatchSkipStrategy.skip_to_first("b"))
        .where(_has("a"))
        .next("b")
        .where(_has("b"))
        .one_or_more()
        .optional()
        .consecutive()
        .next("c")
        .where(_has("c"))
    ),
    events=[(E(1, "a", 0.0), 1), (E(2, "c", 0.0), 2)],
    matches=[{"a": [1], "c": [2]}],
    notes="Without throw_exception_on_miss() a missing skip target is ignored (with it, "
    "Flink raises).",
)

# =====================================================================================
# Event time in the operator: out-of-order arrival, watermarks, late events
# =====================================================================================

_t(
    name="event_time_orders_out_of_order_arrivals",
    source="CEPITCase: simple pattern in event time (punctuated watermarks ts - 5)",
    pattern=lambda cep: (
        cep.Pattern.begin("start")
        .where(_is("start"))
        .followed_by_any("middle")
        .where(_is("middle"))
        .followed_by_any("end")
        .where(_is("end"))
    ),
    events=[
        (E(1, "start", 1.0), 5),
        (E(2, "middle", 2.0), 1),
        (E(3, "end", 3.0), 3),
        (E(4, "end", 4.0), 10),
        (E(5, "middle", 5.0), 7),
        (E(6, "middle", 5.0), 100),
    ],
    watermarks=[(0, 0), (3, 5), (5, 95)],
    matches=[{"start": [1], "middle": [5], "end": [4]}],
    notes="In arrival order 'middle' 2 and 'end' 3 follow the start, but by timestamp "
    "they precede it; only middle 5 (ts 7) and end 4 (ts 10) come after it.",
)

_t(
    name="operator_drops_event_at_watermark_as_late",
    source="CEPOperatorTest: clean-up in event time (one key), with a late event",
    pattern=lambda cep: (
        cep.Pattern.begin("start")
        .where(_is("start"))
        .followed_by_any("middle")
        .subtype(SubEvent)
        .where(lambda e: e.volume > 5.0)
        .followed_by_any("end")
        .where(_is("end"))
        .within(_ms(cep, 10))
    ),
    events=[
        (E(1, "foobar", 1.0), 2),
        (S(2, "foo1", 1.0, 10.0), 2),
        (S(3, "barfoo", 1.0, 5.0), 3),
        (E(4, "start", 1.0), 1),
        (E(5, "start", 2.0), 4),
        (S(6, "foo2", 1.0, 10.0), 5),
        (E(7, "end", 1.0), 6),
        (S(8, "foo3", 1.0, 10.0), 12),
        (E(9, "end", 2.0), 13),
    ],
    watermarks=[(3, 2), (6, 12)],
    watermark_at_end=21,
    matches=[
        {"start": [4], "middle": [2], "end": [7]},
        {"start": [4], "middle": [6], "end": [7]},
        {"start": [5], "middle": [6], "end": [7]},
        {"start": [5], "middle": [6], "end": [9]},
    ],
    ordered=True,
    late=[8],
    notes="An event whose timestamp equals the current watermark (12) is late. At the "
    "second end (13) the first start's partial matches are past their 10 ms "
    "window. Flink's test had a second key and watermarks 11 then 12, 20 then 21; "
    "the order of the three matches on the first end is the order it asserts.",
)

_t(
    name="operator_same_timestamps_keep_arrival_order",
    source="CEPOperatorTest: clean-up in event time with equal events and timestamps",
    pattern=lambda cep: (
        cep.Pattern.begin("start")
        .where(_is("c"))
        .followed_by("middle1")
        .where(_is("a"))
        .one_or_more()
        .optional()
        .followed_by("middle2")
        .where(_is("b"))
        .optional()
        .followed_by("end")
        .where(_is("a"))
        .within(_ms(cep, 10))
    ),
    events=[
        (E(1, "b", 5.0), 6),
        (E(2, "a", 4.0), 7),
        (E(3, "c", 1.0), 1),
        (E(4, "a", 2.0), 3),
        (E(5, "a", 3.0), 3),
        (E(6, "a", 2.0), 3),
        (E(7, "d", 6.0), 5),
    ],
    watermarks=[(6, 8)],
    watermark_at_end=17,
    matches=[
        {"start": [3], "end": [4]},
        {"start": [3], "middle1": [4], "end": [5]},
        {"start": [3], "middle1": [4, 5], "end": [6]},
        {"start": [3], "middle1": [4, 5, 6], "end": [2]},
        {"start": [3], "middle2": [1], "end": [2]},
        {"start": [3], "middle1": [4], "middle2": [1], "end": [2]},
        {"start": [3], "middle1": [4, 5], "middle2": [1], "end": [2]},
        {"start": [3], "middle1": [4, 5, 6], "middle2": [1], "end": [2]},
    ],
    notes="Three events share ts 3 and are fed in arrival order (Flink's test feeds one "
    "of them twice). Its test passes watermark 2 before 8; that changes nothing.",
)

_t(
    name="operator_sends_events_behind_watermark_to_late_output",
    source="CEPOperatorTest: late elements to a side output in event time",
    pattern=lambda cep: (
        cep.Pattern.begin("start")
        .where(_is("c"))
        .followed_by("middle1")
        .where(_is("a"))
        .one_or_more()
        .optional()
        .followed_by("middle2")
        .where(_is("b"))
        .optional()
        .followed_by("end")
        .where(_is("a"))
        .within(_ms(cep, 10))
    ),
    events=[(E(1, "c", 1.0), 6), (E(2, "a", 2.0), 4), (E(3, "a", 3.0), 5), (E(4, "a", 4.0), 7)],
    watermarks=[(0, 6)],
    watermark_at_end=6,
    matches=[],
    late=[2, 3],
    notes="The input stops at watermark 6, as in Flink's test, so the 'a' at 7 stays buffered.",
)

_t(
    name="operator_counts_each_late_arrival",
    source="CEPOperatorTest: late records metric",
    pattern=lambda cep: (
        cep.Pattern.begin("start")
        .where(_is("start"))
        .followed_by_any("middle")
        .subtype(SubEvent)
        .where(lambda e: e.volume > 5.0)
        .followed_by_any("end")
        .where(_is("end"))
        .within(_ms(cep, 10))
    ),
    events=[(E(1, "c", 1.0), 1), (E(2, "a", 2.0), 1), (E(3, "a", 3.0), 3), (E(4, "a", 4.0), 3)],
    watermarks=[(0, 2), (2, 4)],
    watermark_at_end=4,
    matches=[],
    late=[2, 4],
)

_t(
    name="operator_orders_out_of_order_arrivals_before_iterative_matching",
    source="CEPOperatorTest: iterative pattern over out-of-order arrivals and watermarks",
    pattern=lambda cep: (
        cep.Pattern.begin("start")
        .where(_is("start"))
        .followed_by("middle")
        .subtype(SubEvent)
        .where(_foo_sum_below_5)
        .one_or_more()
        .allow_combinations()
        .followed_by("end")
        .where(_is("end"))
    ),
    events=[
        (E(1, "start", 1.0), 1),
        (S(2, "foo1", 1.0, 10.0), 2),
        (S(3, "foo3", 3.0, 10.0), 5),
        (S(4, "foo2", 2.0, 10.0), 3),
        (E(5, "start", 2.0), 4),
        (E(6, "next-one", 1.0), 7),
        (E(7, "end", 1.0), 8),
        (S(8, "foo4", 1.0, 10.0), 6),
    ],
    watermarks=[(1, 2), (4, 5)],
    watermark_at_end=100,
    matches=[
        {"start": [1], "middle": [2, 4, 8], "end": [7]},
        {"start": [1], "middle": [2, 4], "end": [7]},
        {"start": [1], "middle": [2, 3], "end": [7]},
        {"start": [5], "middle": [3, 8], "end": [7]},
        {"start": [1], "middle": [2, 8], "end": [7]},
        {"start": [1], "middle": [2], "end": [7]},
        {"start": [5], "middle": [3], "end": [7]},
    ],
    notes="Nothing is late (each arrival is above the watermark then); the NFA sees "
    "ts 1, 2, 3, 4, 5, 6, 7, 8.",
)

_t(
    name="operator_times_out_on_watermark_alone",
    source="CEPOperatorTest: time advances only with watermarks, no further elements",
    pattern=lambda cep: (
        cep.Pattern.begin("start")
        .where(_is("start"))
        .followed_by_any("middle")
        .subtype(SubEvent)
        .where(lambda e: e.volume > 5.0)
        .followed_by_any("end")
        .where(_is("end"))
        .within(_ms(cep, 10))
    ),
    events=[(E(1, "start", 1.0), 3)],
    watermarks=[(0, 5)],
    watermark_at_end=13,
    matches=[],
    timeouts=[{"start": [1]}],
    notes="Watermark 5 processes the start; watermark 13 (= 3 + 10) times it out.",
)
