"""Window semantics as data: input steps and the exact output each step must produce.

A step is ("elements", [(key, value, timestamp), ...]), ("watermark", ms),
("processing_time", advance_ms) or ("end",), each followed by the outputs it must produce:
main outputs ("main", value, timestamp) and late-data side outputs ("late", value, ts).
The same transcript runs on the operator harness and, through weir.testing.TestStream, on
the in-process runner and on Spark (tests/unit/test_window_transcripts.py,
tests/e2e/test_window_transcripts.py). Expectations follow Flink's (Java) window operator;
where PyFlink 2.3 differs, the transcript says so.
"""

from weir.datastream import OutputTag
from weir.datastream.aggregations import Count, Sum
from weir.datastream.window import (
    ContinuousEventTimeTrigger,
    ContinuousProcessingTimeTrigger,
    CountEvictor,
    CountTrigger,
    DeltaEvictor,
    EventTimeSessionWindows,
    GlobalWindows,
    ProcessingTimeSessionWindows,
    PurgingTrigger,
    SlidingEventTimeWindows,
    TimeEvictor,
    TumblingEventTimeWindows,
    TumblingProcessingTimeWindows,
)
from weir.runtime.wire import MAX_WATERMARK
from tests.transcripts import functions as f

LATE = OutputTag("late")
MAX = MAX_WATERMARK


def main(value, ts):
    return ("main", value, ts)


def late(value, ts):
    return ("late", value, ts)


def E(*elements):
    return ("elements", list(elements))


def W(ms):
    return ("watermark", ms)


def P(advance_ms):
    return ("processing_time", advance_ms)


END = ("end",)


class Transcript:
    def __init__(self, name, build, steps, initial_processing_time=0, error=None):
        self.name = name
        self.build = build  # keyed stream -> windowed DataStream
        self.steps = steps  # [(step, expected outputs), ...]
        self.initial_processing_time = initial_processing_time
        self.error = error  # (exception type, message regex): the run must fail so

    def __repr__(self):
        return self.name


TRANSCRIPTS = [
    Transcript(
        "tumbling_reduce_drops_late_elements",
        lambda ks: ks.window(TumblingEventTimeWindows.of(10)).reduce(f.add_values),
        [
            (E(("a", 1, 1), ("a", 2, 5), ("b", 3, 12)), []),
            (W(9), [main(("a", 3), 9)]),
            (E(("a", 4, 3)), []),  # late, no lateness: dropped (and counted)
            (W(20), [main(("b", 3), 19)]),
            (E(("b", 5, 30)), []),
            (END, [main(("b", 5), 39)]),
        ],
    ),
    Transcript(
        "tumbling_allowed_lateness_refires_then_side_outputs",
        lambda ks: (
            ks.window(TumblingEventTimeWindows.of(10))
            .allowed_lateness(5)
            .side_output_late_data(LATE)
            .process(f.WindowList())
        ),
        [
            (E(("a", 1, 1), ("a", 2, 5)), []),
            (W(11), [main(("a", 0, 10, [1, 2]), 9)]),
            (E(("a", 3, 5)), [main(("a", 0, 10, [1, 2, 3]), 9)]),  # late, within lateness
            (W(14), []),  # cleanup time 9 + 5 reached: the window's state is gone
            (E(("a", 4, 3), ("b", 9, 9)), [late(("a", 4), 3), late(("b", 9), 9)]),
            (END, []),
        ],
    ),
    Transcript(
        "sliding_reduce_with_process_window_function",
        lambda ks: ks.window(SlidingEventTimeWindows.of(10, 5)).reduce(
            f.add_values, window_function=f.WithWindow()
        ),
        [
            (E(("a", 1, 1), ("a", 2, 6), ("a", 3, 12)), []),
            (W(9), [main(("a", -5, 5, 1), 4), main(("a", 0, 10, 3), 9)]),
            (END, [main(("a", 5, 15, 5), 14), main(("a", 10, 20, 3), 19)]),
        ],
    ),
    Transcript(
        "tumbling_aggregate_average_and_apply",
        lambda ks: ks.window(TumblingEventTimeWindows.of(10)).aggregate(f.Average()),
        [
            (E(("a", 1, 1), ("a", 2, 2), ("b", 10, 3), ("a", 6, 15)), []),
            (END, [main(3.0 / 2, 9), main(10.0, 9), main(6.0, 19)]),
        ],
    ),
    Transcript(
        "tumbling_apply_window_function",
        lambda ks: ks.window(TumblingEventTimeWindows.of(10, 3)).apply(f.CountApply()),
        [
            (E(("a", 1, 2), ("a", 2, 3), ("a", 3, 12), ("a", 4, 13)), []),
            (
                END,
                [main(("a", -7, 3, 1), 2), main(("a", 3, 13, 2), 12), main(("a", 13, 23, 1), 22)],
            ),
        ],
    ),
    Transcript(
        "session_merges_when_an_element_bridges_two_sessions",
        lambda ks: ks.window(EventTimeSessionWindows.with_gap(5)).process(f.WindowList()),
        [
            (E(("a", 1, 1), ("a", 3, 3)), []),
            (W(6), []),
            (E(("a", 10, 10), ("a", 12, 12)), []),
            (E(("a", 6, 6)), []),  # [6, 11) touches [1, 8) and [10, 17): one session [1, 17)
            (W(20), [main(("a", 1, 17, [1, 3, 6, 10, 12]), 16)]),
            (E(("a", 30, 30)), []),
            (END, [main(("a", 30, 35, [30]), 34)]),
        ],
    ),
    Transcript(
        "late_element_bridges_two_fired_sessions_within_lateness",
        lambda ks: (
            ks.window(EventTimeSessionWindows.with_gap(5))
            .allowed_lateness(20)
            .process(f.WindowList())
        ),
        [
            (E(("a", 1, 1), ("a", 9, 9)), []),
            (W(14), [main(("a", 1, 6, [1]), 5), main(("a", 9, 14, [9]), 13)]),
            (E(("a", 5, 5)), [main(("a", 1, 14, [1, 5, 9]), 13)]),
            (W(40), []),
            (E(("a", 7, 7)), []),  # beyond lateness now: dropped
            (END, []),
        ],
    ),
    Transcript(
        "dynamic_gap_sessions",
        lambda ks: ks.window(EventTimeSessionWindows.with_dynamic_gap(lambda e: e[1])).process(
            f.WindowList()
        ),
        [
            (E(("a", 2, 1), ("a", 2, 4), ("a", 20, 5), ("a", 3, 50)), []),
            (
                END,
                [
                    main(("a", 1, 3, [2]), 2),
                    main(("a", 4, 25, [2, 20]), 24),
                    main(("a", 50, 53, [3]), 52),
                ],
            ),
        ],
    ),
    Transcript(
        "count_window_tumbling_like_pyflink",
        lambda ks: ks.count_window(3).reduce(f.add_values),
        [
            (E(*[("a", i, i) for i in range(1, 8)]), [main(("a", 6), MAX), main(("a", 15), MAX)]),
            (END, []),
        ],
    ),  # the partial window (7) never fires, as in PyFlink
    Transcript(
        "count_window_sliding_like_pyflink",
        lambda ks: ks.count_window(3, 2).process(f.ArrivalList()),
        [
            (
                E(*[("a", i, i) for i in range(1, 8)]),
                [
                    main(("a", [1, 2, 3]), MAX),
                    main(("a", [3, 4, 5]), MAX),
                    main(("a", [5, 6, 7]), MAX),
                ],
            ),
            (END, []),
        ],
    ),
    Transcript(
        "custom_trigger_with_state_fires_early_and_at_the_end",
        lambda ks: (
            ks.window(TumblingEventTimeWindows.of(10))
            .trigger(f.EveryTwoAndAtEnd())
            .process(f.WindowList())
        ),
        [
            (E(("a", 1, 1), ("a", 2, 2)), [main(("a", 0, 10, [1, 2]), 9)]),
            (E(("a", 3, 3)), []),
            (E(("a", 4, 4)), [main(("a", 0, 10, [1, 2, 3, 4]), 9)]),
            (W(9), [main(("a", 0, 10, [1, 2, 3, 4]), 9)]),
            (END, []),
        ],
    ),
    Transcript(
        "purging_count_trigger_on_global_windows",
        lambda ks: (
            ks.window(GlobalWindows.create())
            .trigger(PurgingTrigger.of(CountTrigger.of(2)))
            .reduce(f.add_values)
        ),
        [
            (E(("a", 1, 1), ("a", 2, 2), ("a", 3, 3)), [main(("a", 3), MAX)]),
            (E(("a", 4, 4), ("a", 5, 5)), [main(("a", 7), MAX)]),
            (END, []),
        ],
    ),  # global windows never fire by time
    Transcript(
        "continuous_event_time_trigger_fires_every_interval",
        # Java Flink semantics; PyFlink 2.3 skips firings whose timers are registered behind
        # the watermark.
        lambda ks: (
            ks.window(TumblingEventTimeWindows.of(20))
            .trigger(ContinuousEventTimeTrigger.of(5))
            .process(f.WindowList())
        ),
        [
            (E(("a", 1, 1), ("a", 7, 7)), []),
            (W(6), [main(("a", 0, 20, [1, 7]), 19)]),
            (W(12), [main(("a", 0, 20, [1, 7]), 19)]),
            (E(("a", 13, 13)), []),
            (W(19), [main(("a", 0, 20, [1, 7, 13]), 19), main(("a", 0, 20, [1, 7, 13]), 19)]),
            (END, []),
        ],
    ),
    Transcript(
        "tumbling_processing_time_windows_on_the_test_clock",
        lambda ks: ks.window(TumblingProcessingTimeWindows.of(1000)).process(f.WindowList()),
        [
            (E(("a", 1, None), ("a", 2, None)), []),
            (P(500), []),
            (E(("a", 3, None)), []),
            (P(600), [main(("a", 1000, 2000, [1, 2, 3]), 1999)]),
            (E(("a", 4, None)), []),
            (END, []),
        ],  # processing-time windows do not fire at the end of input
        initial_processing_time=1000,
    ),
    Transcript(
        "processing_time_sessions_merge_on_the_test_clock",
        lambda ks: ks.window(ProcessingTimeSessionWindows.with_gap(500)).process(f.WindowList()),
        [
            (E(("a", 1, None)), []),
            (P(200), []),
            (E(("a", 2, None)), []),  # [1200, 1700) merges with [1000, 1500)
            (P(600), [main(("a", 1000, 1700, [1, 2]), 1699)]),
            (E(("a", 3, None)), []),
            (END, []),
        ],
        initial_processing_time=1000,
    ),
    Transcript(
        "continuous_processing_time_trigger",
        lambda ks: (
            ks.window(TumblingProcessingTimeWindows.of(1000))
            .trigger(ContinuousProcessingTimeTrigger.of(300))
            .process(f.WindowList())
        ),
        [
            (E(("a", 1, None)), []),
            (P(400), [main(("a", 1000, 2000, [1]), 1999)]),
            (E(("a", 2, None)), []),
            (P(300), [main(("a", 1000, 2000, [1, 2]), 1999)]),
            (
                P(400),
                [main(("a", 1000, 2000, [1, 2]), 1999), main(("a", 1000, 2000, [1, 2]), 1999)],
            ),
            (END, []),
        ],
        initial_processing_time=1000,
    ),
    Transcript(
        "count_evictor_before_on_global_windows",
        lambda ks: (
            ks.window(GlobalWindows.create())
            .trigger(CountTrigger.of(3))
            .evictor(CountEvictor.of(2))
            .process(f.ArrivalList())
        ),
        [
            (E(*[("a", i, i) for i in range(1, 4)]), [main(("a", [2, 3]), MAX)]),
            (E(*[("a", i, i) for i in range(4, 7)]), [main(("a", [5, 6]), MAX)]),
            (END, []),
        ],
    ),
    Transcript(
        "count_evictor_after",
        lambda ks: (
            ks.window(GlobalWindows.create())
            .trigger(CountTrigger.of(2))
            .evictor(CountEvictor.of(1, do_evict_after=True))
            .process(f.ArrivalList())
        ),
        [
            (E(("a", 1, 1), ("a", 2, 2)), [main(("a", [1, 2]), MAX)]),
            (E(("a", 3, 3), ("a", 4, 4)), [main(("a", [2, 3, 4]), MAX)]),
            (END, []),
        ],
    ),
    Transcript(
        "time_and_delta_evictors",
        lambda ks: (
            ks.window(TumblingEventTimeWindows.of(20))
            .evictor(TimeEvictor.of(5))
            .process(f.WindowList())
        ),
        [
            (E(("a", 1, 1), ("a", 4, 4), ("a", 9, 9), ("a", 12, 12)), []),
            (END, [main(("a", 0, 20, [9, 12]), 19)]),
        ],
    ),
    Transcript(
        "delta_evictor_keeps_elements_close_to_the_last",
        lambda ks: (
            ks.window(TumblingEventTimeWindows.of(20))
            .evictor(DeltaEvictor.of(3, f.value_delta))
            .reduce(f.add_values)
        ),
        [(E(("a", 1, 1), ("a", 5, 2), ("a", 6, 3), ("a", 8, 4)), []), (END, [main(("a", 14), 19)])],
    ),
    # -- built-in aggregations (computed a micro-batch at a time) ----------------------
    Transcript(
        "built_in_sum_refires_late_and_side_outputs_too_late",
        lambda ks: (
            ks.window(TumblingEventTimeWindows.of(10))
            .allowed_lateness(5)
            .side_output_late_data(LATE)
            .aggregate(Sum(1), window_function=f.WithWindow())
        ),
        [
            (E(("a", 1, 1), ("a", 2, 5), ("b", 3, 12), ("a", 4, 8)), []),
            (W(9), [main(("a", 0, 10, 7), 9)]),
            (E(("a", 10, 5)), [main(("a", 0, 10, 17), 9)]),  # late, within lateness
            (W(15), []),  # cleanup time 9 + 5 passed: a's window is gone
            (E(("a", 1, 3), ("b", 4, 15)), [late(("a", 1), 3)]),
            (END, [main(("b", 10, 20, 7), 19)]),
        ],
    ),
    Transcript(
        "built_in_count_on_sliding_windows",
        lambda ks: ks.window(SlidingEventTimeWindows.of(10, 5)).aggregate(
            Count(), window_function=f.WithWindow()
        ),
        [
            (E(("a", 5, 1), ("a", 3, 6), ("b", 7, 7), ("a", 3, 12)), []),
            (W(9), [main(("a", -5, 5, 1), 4), main(("a", 0, 10, 2), 9), main(("b", 0, 10, 1), 9)]),
            (
                END,
                [main(("a", 5, 15, 2), 14), main(("b", 5, 15, 1), 14), main(("a", 10, 20, 1), 19)],
            ),
        ],
    ),
    Transcript(
        "flink_min_keeps_the_first_record_with_the_smallest_field",
        lambda ks: ks.window(SlidingEventTimeWindows.of(10, 5)).min(1),
        [
            (E(("a", 5, 1), ("a", 3, 6), ("a", 7, 7), ("a", 3, 12)), []),
            (END, [main(("a", 5), 4), main(("a", 3), 9), main(("a", 3), 14), main(("a", 3), 19)]),
        ],
    ),
    # -- cases that must fail ---------------------------------------------------------
    Transcript(
        "dynamic_gap_must_be_positive",
        lambda ks: ks.window(EventTimeSessionWindows.with_dynamic_gap(f.zero_gap)).process(
            f.WindowList()
        ),
        [(E(("a", -1, 1)), [])],
        error=(Exception, "Dynamic session time gap must satisfy 0 < gap"),
    ),
    Transcript(
        "event_time_windows_need_timestamps",
        lambda ks: ks.window(TumblingEventTimeWindows.of(10)).reduce(f.add_values),
        [(E(("a", 1, None)), [])],
        error=(Exception, "has no timestamp.*assign_timestamps_and_watermarks"),
    ),
]

BY_NAME = {t.name: t for t in TRANSCRIPTS}
