"""Jobs of two inputs (and one of async I/O, one of operator state) for the recovery test,
into an exactly-once file sink.

Usage: checkpointed_two_inputs.py KIND OUTPUT_DIR CHECKPOINT_DIR EVENTS PER_BATCH RATE
KIND: co_process (KeyedCoProcessFunction), broadcast (KeyedBroadcastProcessFunction) or
interval_join; or async (the first input through unordered async I/O), operator_state
(the first input numbered per parallel instance by a CheckpointedFunction; KIND
operator_state:1 runs it at parallelism 1), buffering_sink (a sink function with
operator state) or own_watermarks (each input counted in windows of its own, the second
input's timestamps far ahead of the first's, with stragglers). The inputs are
rate-limited generators; see test_recovery.py for the output each must give.
"""

import asyncio
import json
import os
import random
import sys
import uuid

from weir.common import Duration, Time, Types, WatermarkStrategy
from weir.datastream import (
    AsyncDataStream,
    AsyncFunction,
    CheckpointedFunction,
    KeyedBroadcastProcessFunction,
    KeyedCoProcessFunction,
    MapFunction,
    ProcessJoinFunction,
    ProcessWindowFunction,
    SinkFunction,
    StreamExecutionEnvironment,
)
from weir.datastream.connectors import DataGeneratorSource, FileSink
from weir.datastream.state import ListStateDescriptor, MapStateDescriptor, ValueStateDescriptor
from weir.datastream.window import TumblingEventTimeWindows

FINAL = 10**12
RULES = MapStateDescriptor("rules", Types.INT(), Types.INT())


def left_event(index):
    return f"k{index % 7}", index * 10


def right_event(index):
    return f"k{index % 7}", index * 10 + 3


def ahead(event, record_timestamp):
    """own_watermarks: the second input's timestamps, 100x the first's; every tenth
    record from the 400th on is a straggler 300 records behind."""
    index = event[1] // 10
    return (index - 300 if index % 10 == 9 and index >= 400 else index) * 1000


class SideCounts(KeyedCoProcessFunction):
    """Counts each input's records per key; the end of input reports both counts."""

    def open(self, runtime_context):
        self.counts = [runtime_context.get_state(ValueStateDescriptor(f"count{i}")) for i in (1, 2)]

    def _count(self, side, value, ctx):
        count = (self.counts[side].value() or 0) + 1
        self.counts[side].update(count)
        if count == 1 and self.counts[1 - side].value() is None:
            ctx.timer_service().register_event_time_timer(FINAL)
        yield {"key": value[0], "ts": value[1], "side": side, "count": count}

    def process_element1(self, value, ctx):
        yield from self._count(0, value, ctx)

    def process_element2(self, value, ctx):
        yield from self._count(1, value, ctx)

    def on_timer(self, timestamp, ctx):
        yield {
            "key": ctx.get_current_key(),
            "ts": timestamp,
            "final": [c.value() for c in self.counts],
        }


class RuleCounts(KeyedBroadcastProcessFunction):
    """Counts records per key; the end of input reports the count and the broadcast
    rules its key group has learned."""

    def open(self, runtime_context):
        self.count = runtime_context.get_state(ValueStateDescriptor("count"))

    def process_broadcast_element(self, value, ctx):
        ctx.get_broadcast_state(RULES).put(value[1], 1)

    def process_element(self, value, ctx):
        count = (self.count.value() or 0) + 1
        self.count.update(count)
        if count == 1:
            ctx.timer_service().register_event_time_timer(FINAL)
        yield {"key": value[0], "ts": value[1], "count": count}

    def on_timer(self, timestamp, ctx):
        rules = len(ctx.get_broadcast_state(RULES).keys())
        yield {
            "key": ctx.get_current_key(),
            "ts": timestamp,
            "final": self.count.value(),
            "rules": rules,
        }


class WindowCount(ProcessWindowFunction):
    def __init__(self, side):
        self.side = side

    def process(self, key, context, elements):
        yield {
            "side": self.side,
            "key": key,
            "end": context.window().end,
            "count": len(list(elements)),
        }


class Pairs(ProcessJoinFunction):
    def process_element(self, left, right, ctx):
        yield {"key": left[0], "ts": left[1], "right": right[1]}


class Lookup(AsyncFunction):
    """A remote lookup answering after a random few milliseconds."""

    async def async_invoke(self, value):
        await asyncio.sleep(random.random() / 100)
        return [{"key": value[0], "ts": value[1], "answer": value[1] * 2}]


class Numbering(MapFunction, CheckpointedFunction):
    """Numbers each instance's records (list state). A union list state holds the
    instance's index: every instance gets all of them back on a restore after a restart,
    and its own within a run."""

    def open(self, runtime_context):
        self.index = runtime_context.get_index_of_this_subtask()

    def initialize_state(self, context):
        store = context.get_operator_state_store()
        self.count = store.get_list_state(ListStateDescriptor("count", Types.LONG()))
        self.instances = store.get_union_list_state(ListStateDescriptor("instances", Types.INT()))
        self.numbered = sum(self.count.get())
        self.union = sorted(self.instances.get())

    def snapshot_state(self, context):
        self.count.update([self.numbered])
        self.instances.update([self.index])

    def map(self, value):
        self.numbered += 1
        return {"ts": value[1], "instance": self.index, "n": self.numbered, "union": self.union}


class BufferingSink(SinkFunction, CheckpointedFunction):
    """Buffers the first input's records (list state) and sends them on in groups of five,
    as one file each in the output directory (at least once: a batch replayed after a
    restart sends its groups again)."""

    def __init__(self, directory):
        self.directory = directory

    def initialize_state(self, context):
        self.state = context.get_operator_state_store().get_list_state(
            ListStateDescriptor("buffered", Types.PICKLED_BYTE_ARRAY())
        )
        self.buffered = self.state.get()

    def snapshot_state(self, context):
        self.state.update(self.buffered)

    def invoke(self, value, context):
        self.buffered.append({"key": value[0], "ts": value[1]})
        if len(self.buffered) == 5:
            os.makedirs(self.directory, exist_ok=True)
            with open(os.path.join(self.directory, f"part-{uuid.uuid4().hex}"), "w") as out:
                out.writelines(json.dumps(record) + "\n" for record in self.buffered)
            self.buffered = []


def build(kind, env, left, right):
    if kind == "operator_state":
        return left.map(Numbering())
    if kind == "async":
        return AsyncDataStream.unordered_wait(left, Lookup(), Time.seconds(10), 20)
    if kind == "co_process":
        return left.connect(right).key_by(lambda e: e[0], lambda e: e[0]).process(SideCounts())
    if kind == "own_watermarks":
        windows = (
            stream.key_by(lambda e: e[0])
            .window(TumblingEventTimeWindows.of(Time.milliseconds(100)))
            .process(WindowCount(side))
            for stream, side in ((left, "left"), (right, "right"))
        )
        return next(windows).union(next(windows))
    if kind == "broadcast":
        return left.key_by(lambda e: e[0]).connect(right.broadcast(RULES)).process(RuleCounts())
    return (
        left.key_by(lambda e: e[0])
        .interval_join(right.key_by(lambda e: e[0]))
        .between(Duration.of_millis(-20), Duration.of_millis(20))
        .process(Pairs())
    )


def main(kind, output_dir, checkpoint_dir, events, per_batch, rate):
    kind, _, parallelism = kind.partition(":")  # "operator_state:1": at parallelism 1
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(int(parallelism or 2)).set_spark_config("spark.master", "local[2]")
    env.set_spark_config("spark.sql.shuffle.partitions", "2")
    env.enable_checkpointing(200)
    env.get_checkpoint_config().set_checkpoint_storage_dir(checkpoint_dir)
    strategy = WatermarkStrategy.for_bounded_out_of_orderness(
        Duration.of_millis(0)
    ).with_timestamp_assigner(lambda e, ts: e[1])
    left, right = (
        env.from_source(
            DataGeneratorSource(
                event,
                count=events,
                records_per_second=rate,
                max_records_per_batch=per_batch,
                num_splits=2,
            ),
            strategy
            if name == "left" or kind != "own_watermarks"
            else WatermarkStrategy.for_monotonous_timestamps().with_timestamp_assigner(ahead),
            name,
        )
        for event, name in ((left_event, "left"), (right_event, "right"))
    )
    if kind == "buffering_sink":
        left.add_sink(BufferingSink(output_dir)).uid(kind)
    else:
        build(kind, env, left, right).uid(kind).sink_to(FileSink.for_json_lines(output_dir).build())
    env.execute(f"checkpointed {kind}")


if __name__ == "__main__":
    main(
        sys.argv[1],
        sys.argv[2],
        sys.argv[3],
        int(sys.argv[4]),
        int(sys.argv[5]),
        float(sys.argv[6]),
    )
