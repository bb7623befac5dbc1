"""Watermarks per partition (weir.runtime.split_watermarks): the floors a partitioned
source's splits report, the driver's marks and idleness, and a job on the in-process
executor whose slow partition keeps its records on time, as in Flink."""

import time

from weir.common import Duration, Types, WatermarkStrategy
from weir.common.time import Time
from weir.datastream import StreamExecutionEnvironment
from weir.datastream.connectors.kafka import (
    KafkaOffsetsInitializer,
    KafkaSource,
    KafkaTopicPartition,
)
from weir.datastream.functions import ProcessWindowFunction
from weir.datastream.window import TumblingEventTimeWindows
from weir.common import SimpleStringSchema
from weir.runtime.connectors.kafka_source import KafkaReader, split_partition_key
from weir.runtime.wire import SplitMark
from weir.runtime.split_watermarks import (
    NO_MARKS,
    UNCONSTRAINED,
    SplitMarks,
    floor,
    merged,
    source_watermark,
)

PARTS = ["t:0", "t:1", "t:2"]


def _marks(marks, idle=(), unseen_idle=False):
    return {"marks": marks, "idle": list(idle), "unseen_idle": unseen_idle}


def test_a_split_may_report_at_most_the_smallest_mark_of_the_other_partitions():
    marks = _marks({"t:0": 50, "t:1": 20, "t:2": 30})
    assert [floor(key, PARTS, marks) for key in PARTS] == [20, 30, 20]
    assert source_watermark(PARTS, marks) == 20


def test_a_partition_without_a_mark_holds_until_it_is_idle():
    marks = _marks({"t:0": 50, "t:1": 20})
    assert [floor(key, PARTS, marks) for key in PARTS] == [None, None, 20]
    assert source_watermark(PARTS, marks) is None
    unseen_idle = _marks({"t:0": 50, "t:1": 20}, unseen_idle=True)
    assert [floor(key, PARTS, unseen_idle) for key in PARTS] == [20, 50, 20]
    assert source_watermark(PARTS, unseen_idle) == 20


def test_an_idle_partition_does_not_hold_the_others_back():
    marks = _marks({"t:0": 50, "t:1": 20, "t:2": 30}, idle=["t:1"])
    assert [floor(key, PARTS, marks) for key in PARTS] == [30, 30, 50]
    assert source_watermark(PARTS, marks) == 30
    all_idle = _marks({"t:0": 50}, idle=["t:0"])
    assert floor("t:0", ["t:0"], all_idle) == UNCONSTRAINED
    assert source_watermark(["t:0"], all_idle) is None


def test_marks_never_go_back_and_idleness_is_the_drivers_latest():
    known = _marks({"t:0": 50, "t:1": 20}, idle=["t:1"])
    assert merged(known, None) == known
    assert merged(None, None) == NO_MARKS
    assert merged(known, _marks({"t:0": 40, "t:2": 7})) == _marks({"t:0": 50, "t:1": 20, "t:2": 7})


def test_the_driver_marks_partitions_idle_after_the_timeout_without_records():
    marks = SplitMarks({"kafka": 100, "other": None}, now_ms=1_000)
    marks.observe(SplitMark("kafka", "t:0", 5_000), now_ms=1_050)
    marks.observe(SplitMark("kafka", "t:0", 4_000), now_ms=1_060)
    marks.observe(SplitMark("other", "t:0", 9), now_ms=1_060)
    assert marks.announcement("kafka", 1_099) == _marks({"t:0": 5_000})
    assert marks.announcement("kafka", 1_100) == _marks({"t:0": 5_000}, unseen_idle=True)
    assert marks.announcement("kafka", 1_160) == _marks(
        {"t:0": 5_000}, idle=["t:0"], unseen_idle=True
    )
    assert marks.announcement("other", 99_999) == _marks({"t:0": 9})


class _ScriptedBroker(KafkaReader):
    """A Kafka reader whose broker is a script: `steps` of {partition: records}, one more
    step's records visible at each offset planned (or every `step_ms` milliseconds);
    records are (value, timestamp)."""

    def __init__(self, config, steps, step_ms=None):
        super().__init__(config)
        self.steps = steps
        self.step_ms = step_ms
        self.planned = 0
        self.began = None

    def _partitions(self):
        return [split_partition_key(key) for key in sorted(self.steps[-1])]

    def _visible(self):
        step = self.planned
        if self.step_ms is not None:
            self.began = self.began or time.monotonic()
            step = int((time.monotonic() - self.began) * 1000 / self.step_ms)
        return self.steps[min(step, len(self.steps) - 1)]

    def _watermarks(self, keys, high):
        return {key: len(self._visible().get(key, [])) if high else 0 for key in keys}

    def _latest(self, start):
        offset = super()._latest(start)
        self.planned += 1
        return offset

    def split_chunks(self, split, chunk):
        _, key, lo, hi, _ = split
        if key is None:
            return iter(())
        records = self.steps[-1][key][lo:hi]
        return iter([([v for v, _ in records], [ts for _, ts in records])])


class _Source:
    """What env.from_source takes: a source that creates the scripted reader."""

    def __init__(self, steps, stop, step_ms=None):
        self.steps = steps
        self.stop = stop
        self.step_ms = step_ms

    def create_reader(self):
        config = (
            KafkaSource.builder()
            .set_bootstrap_servers("127.0.0.1:1")
            .set_topics("t")
            .set_value_only_deserializer(SimpleStringSchema())
            .set_bounded(KafkaOffsetsInitializer.offsets(self.stop))
            .build()
            .create_reader()
            .config
        )
        return _ScriptedBroker(config, self.steps, self.step_ms)


class _Count(ProcessWindowFunction):
    def process(self, key, context, elements):
        yield f"{context.window().start}={len(list(elements))}"


def _window_counts(steps, stop, strategy=None, step_ms=None):
    env = StreamExecutionEnvironment.get_execution_environment().set_executor("local")
    env.set_parallelism(1)
    stream = env.from_source(
        _Source(steps, stop, step_ms),
        strategy or WatermarkStrategy.for_monotonous_timestamps(),
        "kafka",
    )
    return sorted(
        stream.key_by(lambda v: "all")
        .window(TumblingEventTimeWindows.of(Time.seconds(1)))
        .process(_Count(), Types.STRING())
        .execute_and_collect()
    )


def test_a_lagging_partitions_records_are_not_late_when_a_fast_one_is_ahead():
    fast = [(f"a{i}", 1_000 * i) for i in range(1, 6)]
    slow = [("b1", 1_000), ("b2", 1_500), ("b3", 2_000)]
    # the first offsets planned see all of partition 0 and the first record of partition 1
    steps = [{"t:0": fast, "t:1": slow[:1]}, {"t:0": fast, "t:1": slow}]
    stop = {KafkaTopicPartition("t", 0): 5, KafkaTopicPartition("t", 1): 3}
    # Flink: the source's watermark is the slow partition's (1,000) when b2 and b3 come,
    # so they count; with one watermark over both partitions (5,000) they were dropped
    assert _window_counts(steps, stop) == ["1000=3", "2000=2", "3000=1", "4000=1", "5000=1"]


def test_a_partition_without_records_holds_the_watermark_until_it_has_some():
    fast = [(f"a{i}", 1_000 * i) for i in range(1, 6)]
    steps = [
        {"t:0": fast[:3], "t:1": []},
        {"t:0": fast, "t:1": []},
        {"t:0": fast, "t:1": [("b1", 1_200)]},
    ]
    stop = {KafkaTopicPartition("t", 0): 5, KafkaTopicPartition("t", 1): 1}
    assert _window_counts(steps, stop) == ["1000=2", "2000=1", "3000=1", "4000=1", "5000=1"]


def test_an_idle_partition_stops_holding_the_watermark_and_its_late_records_are_dropped():
    """With idleness, the empty partition 1 stops holding the source's watermark back while
    partition 0 goes on (a record every 20 ms), so the record partition 1 brings after
    ~1 s, at 1,200, is late and dropped, as in Flink (without idleness it counts: the test
    above)."""
    fast = [(f"a{i}", 1_000 * i) for i in range(1, 51)]
    steps = [{"t:0": fast[:i], "t:1": []} for i in range(1, 51)]
    steps.append({"t:0": fast, "t:1": [("b1", 1_200)]})
    stop = {KafkaTopicPartition("t", 0): 50, KafkaTopicPartition("t", 1): 1}
    strategy = WatermarkStrategy.for_monotonous_timestamps().with_idleness(Duration.of_millis(200))
    assert _window_counts(steps, stop, strategy, step_ms=20) == sorted(
        f"{1_000 * i}=1" for i in range(1, 51)
    )
