"""The job of the fault-injection test (tests/e2e/test_fault_injection.py): events from a
Kafka topic and from a directory of JSON-lines files, unioned and keyed by key; a running
count and sum per key (KeyedProcessFunction) and 10 s event-time tumbling window counts;
written to Kafka (exactly-once), a Redis stream, Redis hashes (the latest state per key),
part files and PostgreSQL.

Both sources are bounded, so the job ends by itself once it has read everything, and the
end of input fires every window (Flink's +infinity watermark): every sink then has a
defined final content. The Kafka source stops at a fixed offset (the number of records
the test produces) and is fed while the job runs, so it is read over many micro-batches
as a live topic would be; the file source reads one file per micro-batch.

Every event is {"key", "value", "ts"}. A key's events all come from one source, so the
order in which a key sees its events (and so each update it emits) is that source's order,
whatever the micro-batches and restarts; the window counts do not depend on order at all.

Usage: fault_injection_job.py --broker B --input-topic T --input-dir D --output-topic O
           --output-dir F --jdbc-url U --windows-table W --redis-url R --redis-prefix P
           --checkpoint C --kafka-events N --life L [--hang-in-transaction FILE]
           [--spark-conf KEY=VALUE ...]

--life tags each Kafka output record with the run (life) that wrote it, and each record
is tagged with the micro-batch and the task (Spark partition) whose Kafka transaction holds
it too (the test strips the tags); --hang-in-transaction makes the Kafka sink's serializer
stop forever inside an open transaction, after touching FILE (a deterministic kill point:
see the test).
"""

import argparse
import json
import time

from weir.common import Time, Types, WatermarkStrategy
from weir.common.serialization import SimpleStringSchema
from weir.datastream import KeyedProcessFunction, ProcessWindowFunction, StreamExecutionEnvironment
from weir.datastream.connectors import DeliveryGuarantee, FileSink
from weir.datastream.connectors.file_system import FileSource
from weir.datastream.connectors.jdbc import JdbcConnectionOptions, JdbcExecutionOptions, JdbcSink
from weir.datastream.connectors.kafka import (
    KafkaOffsetsInitializer,
    KafkaRecordSerializationSchema,
    KafkaSink,
    KafkaSource,
    KafkaTopicPartition,
)
from weir.datastream.connectors.redis import RedisSink
from weir.datastream.state import ValueStateDescriptor
from weir.datastream.window import TumblingEventTimeWindows

EVENT = Types.TUPLE([Types.STRING(), Types.LONG(), Types.LONG()])  # key, value, ts
WINDOW_ROW = Types.ROW_NAMED(
    ["key", "window_start", "window_end", "n"],
    [Types.STRING(), Types.LONG(), Types.LONG(), Types.LONG()],
)
CHECKPOINT_INTERVAL_MS = 300
WINDOW_SECONDS = 10


class RunningTotals(KeyedProcessFunction):
    """Per key, the count and sum of its values so far: one update per event."""

    def open(self, runtime_context):
        self.count = runtime_context.get_state(ValueStateDescriptor("count", Types.LONG()))
        self.sum = runtime_context.get_state(ValueStateDescriptor("sum", Types.LONG()))

    def process_element(self, value, ctx):
        count = (self.count.value() or 0) + 1
        total = (self.sum.value() or 0) + value[1]
        self.count.update(count)
        self.sum.update(total)
        yield {"key": value[0], "ts": value[2], "count": count, "sum": total}


class WindowCount(ProcessWindowFunction):
    """The number of a key's events in a window."""

    def process(self, key, context, elements):
        window = context.window()
        yield {"key": key, "start": window.start, "end": window.end, "count": len(list(elements))}


class UpdateSerializer:
    """A Kafka value: the update as JSON, tagged with the life that wrote it and the
    micro-batch and task it is written in (the sink's transaction is one per task and
    micro-batch: weir.runtime.connectors.kafka_sink). With `hang_file`, the first record
    serialized right after another one (so inside a Kafka transaction that already holds a
    record) touches the file and stops forever."""

    def __init__(self, life: int, hang_file: str = None):
        self.life = life
        self.hang_file = hang_file
        self.last_call = None

    def serialize(self, update) -> bytes:
        now = time.monotonic()
        if self.hang_file and self.last_call is not None and now - self.last_call < 0.02:
            time.sleep(0.5)  # the records before it reach the broker (librdkafka's linger)
            open(self.hang_file, "w").close()
            while True:
                time.sleep(60)
        self.last_call = now
        return json.dumps(
            {**update, "life": self.life, **_batch_and_task()}, sort_keys=True
        ).encode()


def _batch_and_task() -> dict:
    """The micro-batch (the id Spark gives the jobs a micro-batch runs) and the task (its
    partition, the sink's task) of the Spark task writing the record."""
    from pyspark import TaskContext

    context = TaskContext.get()
    return {
        "batch": int(context.getLocalProperty("streaming.sql.batchId")),
        "task": context.partitionId(),
    }


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    for name in (
        "broker",
        "input-topic",
        "input-dir",
        "output-topic",
        "output-dir",
        "jdbc-url",
        "windows-table",
        "redis-url",
        "redis-prefix",
        "checkpoint",
    ):
        parser.add_argument(f"--{name}", required=True)
    parser.add_argument("--kafka-events", type=int, required=True)
    parser.add_argument("--life", type=int, default=0)
    parser.add_argument("--hang-in-transaction", default=None)
    parser.add_argument(
        "--spark-conf",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a Spark setting (repeatable)",
    )
    return parser.parse_args(argv)


def environment(args) -> StreamExecutionEnvironment:
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(2).set_spark_config("spark.master", "local[2]")
    env.set_spark_config("spark.sql.shuffle.partitions", "2")
    for setting in args.spark_conf:
        env.set_spark_config(*setting.split("=", 1))
    env.enable_checkpointing(CHECKPOINT_INTERVAL_MS)
    env.get_checkpoint_config().set_checkpoint_storage_dir(args.checkpoint)
    return env


def event_time(field):
    """Monotonous timestamps per source, taken from the event's `ts`."""
    return WatermarkStrategy.for_monotonous_timestamps().with_timestamp_assigner(
        lambda event, _: field(event)
    )


def kafka_events(env, args):
    """The Kafka topic (one partition) up to offset --kafka-events, as EVENT tuples."""
    stop = {KafkaTopicPartition(args.input_topic, 0): args.kafka_events}
    source = (
        KafkaSource.builder()
        .set_bootstrap_servers(args.broker)
        .set_topics(args.input_topic)
        .set_value_only_deserializer(SimpleStringSchema())
        .set_starting_offsets(KafkaOffsetsInitializer.earliest())
        .set_bounded(KafkaOffsetsInitializer.offsets(stop))
        .build()
    )
    stream = env.from_source(
        source, event_time(lambda line: json.loads(line)["ts"]), "kafka-events"
    ).uid("kafka-events")
    return stream.map(_kafka_event, EVENT).uid("parse-kafka")


def _kafka_event(line):
    event = json.loads(line)
    return event["key"], event["value"], event["ts"]


def file_events(env, args):
    """The JSON-lines files of --input-dir, one file per micro-batch, as EVENT tuples."""
    source = FileSource.for_json_lines(args.input_dir).set_max_files_per_batch(1).build()
    stream = env.from_source(source, event_time(lambda row: row.ts), "file-events")
    return (
        stream.uid("file-events")
        .map(lambda row: (row.key, row.value, row.ts), EVENT)
        .uid("parse-files")
    )


def kafka_sink(args):
    serializer = (
        KafkaRecordSerializationSchema.builder()
        .set_topic(args.output_topic)
        .set_value_serialization_schema(UpdateSerializer(args.life, args.hang_in_transaction))
        .build()
    )
    return (
        KafkaSink.builder()
        .set_bootstrap_servers(args.broker)
        .set_record_serializer(serializer)
        .set_delivery_guarantee(DeliveryGuarantee.EXACTLY_ONCE)
        .set_transactional_id_prefix(args.output_topic)
        .build()
    )


def jdbc_sink(args):
    connection = (
        JdbcConnectionOptions.JdbcConnectionOptionsBuilder()
        .with_url(args.jdbc_url)
        .with_user_name("postgres")
        .build()
    )
    execution = JdbcExecutionOptions.builder().with_batch_size(500).build()
    return JdbcSink.sink(
        f"INSERT INTO {args.windows_table} (key, window_start, window_end, n) VALUES (?, ?, ?, ?)",
        WINDOW_ROW,
        connection,
        execution,
    )


def write_updates(updates, args) -> None:
    """Per-event updates: Kafka (exactly-once), a Redis stream (exactly-once) and the
    latest per key in Redis hashes (idempotent)."""
    updates.sink_to(kafka_sink(args)).uid("updates-kafka")
    stream = f"{args.redis_prefix}:updates"
    updates.sink_to(RedisSink.stream(args.redis_url, stream, _text_fields)).uid(
        "updates-redis-stream"
    )
    updates.sink_to(
        RedisSink.hash(
            args.redis_url, lambda u: f"{args.redis_prefix}:state:{u['key']}", _latest_state
        )
    ).uid("state-redis-hash")


def _text_fields(update) -> dict:
    return {name: str(value) for name, value in update.items()}


def _latest_state(update) -> dict:
    return {"count": update["count"], "sum": update["sum"], "ts": update["ts"]}


def write_windows(windows, args) -> None:
    """Window counts: part files and a PostgreSQL table (exactly-once appends)."""
    windows.sink_to(FileSink.for_json_lines(args.output_dir).build()).uid("windows-files")
    rows = windows.map(lambda w: (w["key"], w["start"], w["end"], w["count"]), WINDOW_ROW).uid(
        "window-rows"
    )
    rows.sink_to(jdbc_sink(args)).uid("windows-postgres")


def main(argv=None) -> None:
    args = parse_args(argv)
    env = environment(args)
    events = kafka_events(env, args).union(file_events(env, args))
    keyed = events.key_by(lambda event: event[0], Types.STRING())
    write_updates(keyed.process(RunningTotals()).uid("running-totals"), args)
    windows = (
        keyed.window(TumblingEventTimeWindows.of(Time.seconds(WINDOW_SECONDS)))
        .process(WindowCount())
        .uid("window-counts")
    )
    write_windows(windows, args)
    env.execute("fault injection")


if __name__ == "__main__":
    main()
