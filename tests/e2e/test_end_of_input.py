"""The end of a bounded input is handled in the micro-batch that reads its last records,
on both engines: end-of-input timers fire there (once every source of an operator has
ended) and the job ends with that batch."""

from weir.common import Duration, WatermarkStrategy
from weir.common.watermark_strategy import TimestampAssigner
from weir.datastream import KeyedProcessFunction, SinkFunction
from weir.runtime.sources import END_SPLIT, CollectionReader


class ByValue(TimestampAssigner):
    def extract_timestamp(self, value, record_timestamp):
        return value[1]


class FarTimer(KeyedProcessFunction):
    """Counts its key's elements; a timer far after each element reports the count, so
    only the end of input (the +infinity watermark) fires them."""

    def process_element(self, value, ctx):
        ctx.timer_service().register_event_time_timer(10**12)
        yield "element", value

    def on_timer(self, timestamp, ctx):
        yield "timer", ctx.get_current_key(), ctx.timer_service().current_watermark()


class ByBatch(SinkFunction):
    outputs = []

    def invoke(self, value, context):
        ByBatch.outputs.append((context.batch_id, value))


def test_end_of_input_fires_in_the_batch_of_the_last_source(any_env):
    ByBatch.outputs = []
    any_env.set_parallelism(1)
    slow = any_env.from_source(  # three micro-batches of at most two records
        CollectionReader(
            [("a", 1), ("b", 2), ("a", 3), ("c", 4), ("a", 5)], max_records_per_batch=2
        ),
        WatermarkStrategy.for_bounded_out_of_orderness(
            Duration.of_millis(0)
        ).with_timestamp_assigner(ByValue()),
        "slow",
    )
    fast = any_env.from_collection([("b", 7)])  # ends in the first micro-batch
    slow.union(fast).key_by(lambda v: v[0]).process(FarTimer()).add_sink(ByBatch())
    result = any_env.execute("end of input")
    by_batch = {}
    for batch_id, value in ByBatch.outputs:
        by_batch.setdefault(batch_id, []).append(value)
    first = min(by_batch)
    elements = [sorted(v for v in by_batch[b] if v[0] == "element") for b in sorted(by_batch)]
    assert elements == [
        [("element", ("a", 1)), ("element", ("b", 2)), ("element", ("b", 7))],
        [("element", ("a", 3)), ("element", ("c", 4))],
        [("element", ("a", 5))],
    ]
    timers = sorted(v for v in by_batch[first + 2] if v[0] == "timer")
    assert timers == [("timer", k, 2**63 - 1) for k in ("a", "b", "c")]
    assert not [v for b in (first, first + 1) for v in by_batch[b] if v[0] == "timer"]
    assert result.batches == 3  # no batch ran after the end of the input


def test_the_end_of_input_and_announcements_ride_with_the_last_data_split():
    """Each Spark task costs a start: a micro-batch's end of input and announcements are
    read by the task of its last data split, or by one task of their own without data;
    the batch's first split keeps its place (it carries the batch's ticks)."""
    from weir.spark.source import _partitions

    tick = ("tick",)
    split_0, split_1 = (0, 0, 5), (1, 5, 10)

    def planned(splits, extra=()):
        return [(part.splits, part.first) for part in _partitions(splits, extra)]

    assert planned([split_0, split_1, END_SPLIT], [tick]) == [
        ([split_0], True),
        ([split_1, END_SPLIT, tick], False),
    ]
    assert planned([split_0]) == [([split_0], True)]
    assert planned([END_SPLIT], [tick]) == [([END_SPLIT, tick], True)]
    assert planned([], [tick]) == [([tick], False)]
    assert planned([]) == []
