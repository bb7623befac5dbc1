"""Idle sources (`WatermarkStrategy.with_idleness`): a source that stops producing stops
holding the watermark back after its idleness timeout, on both engines, so a record it
produces later can be late; without the timeout it holds the watermark until it ends."""

import time

from weir.common import Duration, Time, WatermarkStrategy
from weir.datastream import OutputTag, ProcessWindowFunction
from weir.datastream.connectors import DataGeneratorSource
from weir.datastream.window import TumblingEventTimeWindows
from weir.runtime.sources import SourceReader
from tests.streams import collect

LATE = OutputTag("late")
GAP_S = 3.0
A_RECORDS = 1000  # at 100 per second: `a` runs on after `b` has ended


class SilentThenLate(SourceReader):
    """("b", 0) at once; then, once the engine asks for more (its first micro-batch is
    done), nothing for GAP_S seconds, then ("b", 5) and the end of input."""

    def __init__(self):
        self._silent_since = None

    def available(self, start_pos):
        if start_pos == 0:
            return 1
        if self._silent_since is None:
            self._silent_since = time.monotonic()
        return 2 if time.monotonic() - self._silent_since >= GAP_S else 1

    def is_exhausted(self, pos):
        return pos >= 2

    def read(self, lo, hi):
        for index in range(lo, hi):
            yield ("b", 5 * index), None


class CountPerWindow(ProcessWindowFunction):
    def process(self, key, context, elements):
        yield context.window().start, len(list(elements))


def _by_timestamp():
    return WatermarkStrategy.for_monotonous_timestamps()


def _job(env, idleness):
    b_strategy = _by_timestamp()
    if idleness:
        b_strategy = b_strategy.with_idleness(Duration.of_millis(300))
    a = env.from_source(
        DataGeneratorSource(lambda i: ("a", i * 10), count=A_RECORDS, records_per_second=100),
        _by_timestamp().with_timestamp_assigner(lambda e, ts: e[1]),
        "a",
    )
    b = env.from_source(
        SilentThenLate(), b_strategy.with_timestamp_assigner(lambda e, ts: e[1]), "b"
    )
    counts = (
        a.union(b)
        .key_by(lambda e: "all")
        .window(TumblingEventTimeWindows.of(Time.milliseconds(100)))
        .side_output_late_data(LATE)
        .process(CountPerWindow())
    )
    return collect(counts), collect(counts.get_side_output(LATE))


def test_an_idle_source_stops_holding_the_watermark_back(any_env):
    """`b` is idle 300 ms after its first record: the watermark follows `a`, and b's
    record 3 s later is late for its window, which has fired."""
    windows, late = _job(any_env.set_parallelism(1), idleness=True)
    any_env.execute("idle b")
    assert late.results == [("b", 5)]
    assert sorted(windows.results) == [(0, 11)] + [(t, 10) for t in range(100, A_RECORDS * 10, 100)]


def test_without_idleness_a_silent_source_holds_the_watermark(local_env):
    """The same job without the timeout: the watermark waits for `b` until it ends, so
    b's second record counts in its window."""
    windows, late = _job(local_env, idleness=False)
    local_env.execute("silent b")
    assert late.results == []
    assert sorted(windows.results) == [(0, 12)] + [(t, 10) for t in range(100, A_RECORDS * 10, 100)]


def test_offsets_carry_over_when_idleness_is_added_or_removed(tmp_path):
    """A restart may add or drop `with_idleness`: each reader takes the other's offsets."""
    from weir.runtime.sources import CollectionReader
    from weir.spark.source import IDLE_KEY, OWN_KEY, TICK_KEY, AnnouncingReader, WeirStreamReader

    plain = WeirStreamReader(CollectionReader([1, 2, 3]), "unused")
    idle_file = tmp_path / "announced.json"
    idle_file.write_text('{"b": 1234}')
    announcing = AnnouncingReader(
        WeirStreamReader(CollectionReader([1, 2, 3]), "unused"), idle=(str(idle_file), "b")
    )
    bare = plain.latestOffset(plain.initialOffset())
    assert bare == {"pos": 3, "end": 1}
    wrapped = announcing.latestOffset({"pos": 1, "end": 0})  # from a run without idleness
    assert wrapped == {"pos": 3, "end": 1, IDLE_KEY: 1234, OWN_KEY: {}, TICK_KEY: None}
    splits = announcing.partitions({"pos": 1, "end": 0}, wrapped)
    assert [s.splits for s in splits] == [[(0, 1, 3), "end", ("idle", 1234)]]  # one task
    assert plain.latestOffset(wrapped) == {"pos": 3, "end": 1}  # ended: as it was
    assert [s.splits for s in plain.partitions({"pos": 0, "end": 0, IDLE_KEY: 5}, wrapped)] == [
        [(0, 0, 3), "end"]
    ]
    # an earlier run's offset may carry a tick for processing-time timers this run lacks
    ticked = {"pos": 1, "end": 0, IDLE_KEY: None, OWN_KEY: {}, TICK_KEY: 1000}
    assert [s.splits for s in announcing.partitions(ticked, wrapped)] == [
        [(0, 1, 3), "end", ("idle", 1234)]
    ]
