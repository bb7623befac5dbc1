"""An operator's watermark is the minimum over its own inputs, as in Flink: a source that
does not reach a window does not hold it back (on both engines)."""

from weir.common import Time, WatermarkStrategy
from weir.datastream import OutputTag, ProcessWindowFunction
from weir.datastream.window import TumblingEventTimeWindows
from weir.runtime.sources import SourceReader
from tests.streams import collect, stamped

LATE = OutputTag("late")
A = [("a", 1000), ("a", 1500), ("a", 5000), ("a", 5100), ("a", 1200), ("a", 5200)]
B = [("b", t) for t in (10, 20, 30, 40, 50, 60)]


class CountPerWindow(ProcessWindowFunction):
    def process(self, key, context, elements):
        yield context.window().start, len(list(elements))


def _job(env, a_records):
    """`a` (two records per micro-batch) counted per second of event time; `b`, whose
    watermark stays near 0, only goes to a sink of its own."""
    counts = (
        stamped(env, a_records, per_batch=2)
        .key_by(lambda e: e[0])
        .window(TumblingEventTimeWindows.of(Time.seconds(1)))
        .side_output_late_data(LATE)
        .process(CountPerWindow())
    )
    others = collect(stamped(env, B, per_batch=2).map(lambda e: e[1]))
    return collect(counts), collect(counts.get_side_output(LATE)), others


def test_a_source_that_does_not_reach_a_window_does_not_hold_it_back(any_env):
    """After the second micro-batch the window's watermark is a's (5099), so ("a", 1200)
    in the third is late for [1000, 2000), which has fired: b's watermark (39) would have
    kept it on time."""
    windows, late, others = _job(any_env.set_parallelism(1), A)
    any_env.execute("own watermarks")
    assert sorted(windows.results) == [(1000, 2), (5000, 3)]
    assert late.results == [("a", 1200)]
    assert sorted(others.results) == [10, 20, 30, 40, 50, 60]


class StartsLate(SourceReader):
    """("c", 100), ("c", 200), ("c", 300), readable only once the engine has asked
    twice (its first two micro-batches read nothing of it)."""

    bounded = True

    def __init__(self):
        self.asked = 0

    def available(self, start_pos):
        self.asked += 1
        return 3 if self.asked > 2 else 0

    def is_exhausted(self, pos):
        return pos >= 3

    def read(self, lo, hi):
        for index in range(lo, hi):
            yield ("c", 100 * (index + 1)), None


def test_a_source_that_starts_late_is_not_late_where_only_it_arrives(any_env):
    """`c` produces nothing before the third micro-batch, when a's watermark is long
    past its records' windows: the window that only c reaches has no watermark yet (as
    in Flink, the minimum), so none of them is late."""
    env = any_env.set_parallelism(1)
    a = collect(stamped(env, A, per_batch=2).map(lambda e: e[1]))
    strategy = WatermarkStrategy.for_monotonous_timestamps().with_timestamp_assigner(
        lambda e, ts: e[1]
    )
    counts = (
        env.from_source(StartsLate(), strategy, "c")
        .key_by(lambda e: e[0])
        .window(TumblingEventTimeWindows.of(Time.seconds(1)))
        .side_output_late_data(LATE)
        .process(CountPerWindow())
    )
    windows, late = collect(counts), collect(counts.get_side_output(LATE))
    env.execute("late start")
    assert windows.results == [(0, 3)] and late.results == []
    assert sorted(a.results) == sorted(t for _, t in A)


def test_an_operator_reached_by_both_sources_follows_the_slower(any_env):
    """The same records through a union with b's: the window waits for b's watermark,
    and ("a", 1200) is on time."""
    env = any_env.set_parallelism(1)
    a, b = stamped(env, A, per_batch=2), stamped(env, B, per_batch=2)
    counts = (
        a.union(b)
        .key_by(lambda e: e[0])
        .window(TumblingEventTimeWindows.of(Time.seconds(1)))
        .side_output_late_data(LATE)
        .process(CountPerWindow())
    )
    windows, late = collect(counts), collect(counts.get_side_output(LATE))
    env.execute("shared watermark")
    assert sorted(windows.results) == [(0, 6), (1000, 3), (5000, 3)]
    assert late.results == []


def test_own_watermarks_travel_in_the_offsets_of_one_source(tmp_path):
    """The driver's announcements go into the carrying source's offsets (so a replay
    makes them again), only ever forward, and a batch that moves one reads one more split
    that tells every key group of that operator."""
    from weir.runtime.sources import CollectionReader
    from weir.runtime.wire import Control
    from weir.spark.source import IDLE_KEY, OWN_KEY, TICK_KEY, AnnouncingReader, WeirStreamReader

    own_file = tmp_path / "own.json"
    own_file.write_text('{"window": 5099, "join": 40, "gone": 7}')  # "gone": an old uid
    reader = AnnouncingReader(
        WeirStreamReader(CollectionReader([1, 2, 3]), "unused"),
        own=(str(own_file), 4, frozenset({"window", "join"})),
    )
    start = {"pos": 3, "end": 1, IDLE_KEY: None, OWN_KEY: {"window": 1499, "join": 90}}
    end = reader.latestOffset(start)
    assert end == {
        "pos": 3,
        "end": 1,
        IDLE_KEY: None,
        OWN_KEY: {"window": 5099, "join": 90},
        TICK_KEY: None,
    }
    splits = reader.partitions(start, end)
    assert [s.splits for s in splits] == [[("own", {"window": 5099})]]
    rows = reader.read(splits[0]).__next__().to_pylist()
    assert [(r["_to"], r["_kg"], r["_ctl"], r["_ts"]) for r in rows] == [
        ("window", kg, Control.OWN, 5099) for kg in range(4)
    ]
    assert reader.partitions(end, end) == []
