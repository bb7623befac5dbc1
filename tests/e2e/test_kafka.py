"""KafkaSource and KafkaSink against a real Kafka-protocol broker (Tansu), on Spark and on
the in-process executor."""

import time

import pytest

from weir.common import Types, WatermarkStrategy
from weir.common.serialization import SimpleStringSchema
from weir.datastream.connectors import DeliveryGuarantee
from weir.datastream.connectors.kafka import (
    KafkaOffsetsInitializer,
    KafkaRecordSerializationSchema,
    KafkaSink,
    KafkaSource,
    KafkaTopicPartition,
)
from weir.datastream.window import TumblingEventTimeWindows
from weir.common.time import Time
from tests.e2e.shared import checkpointed_env, wait_until

pytestmark = pytest.mark.spark


def _source(broker, topic, bounded=True, **settings):
    builder = (
        KafkaSource.builder()
        .set_bootstrap_servers(broker.bootstrap)
        .set_topics(topic)
        .set_value_only_deserializer(SimpleStringSchema())
        .set_starting_offsets(settings.pop("starting", KafkaOffsetsInitializer.earliest()))
    )
    if bounded:
        builder = builder.set_bounded(KafkaOffsetsInitializer.latest())
    for key, value in settings.items():
        builder = getattr(builder, key)(value)
    return builder.build()


def _sink(broker, topic, guarantee=DeliveryGuarantee.EXACTLY_ONCE, prefix=None):
    builder = (
        KafkaSink.builder()
        .set_bootstrap_servers(broker.bootstrap)
        .set_record_serializer(
            KafkaRecordSerializationSchema.builder()
            .set_topic(topic)
            .set_value_serialization_schema(SimpleStringSchema())
            .build()
        )
        .set_delivery_guarantee(guarantee)
    )
    if prefix:
        builder = builder.set_transactional_id_prefix(prefix)
    return builder.build()


def _readings(count=60, partitions=3):
    """(value, partition, timestamp): sensor s{i % 4} reads i at time 1,000,000 + 1,000 i
    (a Kafka timestamp of 0 means "now")."""
    return [(f"s{i % 4},{i}", i % partitions, 1_000_000 + 1_000 * i) for i in range(count)]


def _window_counts(records, size_ms=10_000):
    counts = {}
    for value, _, ts in records:
        key = (value.split(",")[0], ts // size_ms * size_ms)
        counts[key] = counts.get(key, 0) + 1
    return sorted(f"{sensor}@{start}={n}" for (sensor, start), n in counts.items())


def _windowed_job(env, source):
    stream = env.from_source(source, WatermarkStrategy.for_monotonous_timestamps(), "kafka")
    return (
        stream.map(lambda line: (line.split(",")[0], 1))
        .key_by(lambda r: r[0])
        .window(TumblingEventTimeWindows.of(Time.seconds(10)))
        .process(_CountWindow(), Types.STRING())
    )


from weir.datastream.functions import ProcessWindowFunction  # noqa: E402


class _CountWindow(ProcessWindowFunction):
    def process(self, key, context, elements):
        yield f"{key}@{context.window().start}={len(list(elements))}"


@pytest.mark.parametrize("executor", ["spark", "local"])
def test_a_bounded_source_reads_every_partition_with_kafka_timestamps_as_event_time(
    kafka_broker, spark_env, local_env, executor
):
    topic = kafka_broker.create_topic(partitions=3)
    records = _readings()
    kafka_broker.produce(topic, records)
    env = spark_env if executor == "spark" else local_env
    out = _windowed_job(env, _source(kafka_broker, topic)).execute_and_collect()
    assert sorted(out) == _window_counts(records)


def test_kafka_to_kafka_exactly_once_writes_each_record_once(kafka_broker, spark_env):
    source_topic = kafka_broker.create_topic(partitions=2)
    target = kafka_broker.create_topic(partitions=1)
    records = _readings(40, partitions=2)
    kafka_broker.produce(source_topic, records)
    stream = spark_env.from_source(
        _source(kafka_broker, source_topic), WatermarkStrategy.no_watermarks(), "kafka"
    )
    stream.map(str.upper, Types.STRING()).sink_to(_sink(kafka_broker, target, prefix=target))
    result = spark_env.execute("kafka to kafka")
    assert sorted(kafka_broker.consume(target, 40)) == sorted(v.upper() for v, _, _ in records)
    assert result.get_metrics()  # the sink's count came from the tasks
    sink_counts = [n for name, n in result.get_metrics().items() if name.endswith("numRecordsIn")]
    assert sink_counts == [40]


def test_a_job_restarted_from_its_checkpoint_goes_on_where_it_stopped(
    kafka_broker, spark, tmp_path
):
    source_topic = kafka_broker.create_topic(partitions=2)
    target = kafka_broker.create_topic(partitions=1)
    records = _readings(40, partitions=2)
    expected = sorted(v.upper() for v, _, _ in records)

    def start():
        env = checkpointed_env(spark, tmp_path / "checkpoint")
        stream = env.from_source(
            _source(kafka_broker, source_topic, bounded=False),
            WatermarkStrategy.no_watermarks(),
            "kafka",
        )
        stream.map(str.upper, Types.STRING()).sink_to(_sink(kafka_broker, target, prefix=target))
        return env.execute_async("restarted")

    kafka_broker.produce(source_topic, records[:25])
    client = start()
    assert sorted(kafka_broker.consume(target, 25, seconds=90)) == expected[:0] + sorted(
        v.upper() for v, _, _ in records[:25]
    )
    client.cancel()
    kafka_broker.produce(source_topic, records[25:])
    client = start()
    try:
        assert sorted(kafka_broker.consume(target, 40, seconds=90)) == expected
    finally:
        client.cancel()


def test_a_replayed_micro_batch_commits_nothing_twice(kafka_broker):
    target = kafka_broker.create_topic(partitions=1)
    spec = _sink(kafka_broker, target, prefix=f"{target}-replay").sink_spec()
    for batch, values in ((0, ["a", "b"]), (0, ["a", "b"]), (1, ["c"]), (0, ["a", "b"])):
        writer = spec.batch_writer("sink", "job", batch, 3)
        writer.write(values)
        writer.finish()
    assert kafka_broker.consume(target, 3) == ["a", "b", "c"]


def test_at_least_once_writes_every_record(kafka_broker, local_env):
    source_topic = kafka_broker.create_topic(partitions=2)
    target = kafka_broker.create_topic(partitions=1)
    records = _readings(20, partitions=2)
    kafka_broker.produce(source_topic, records)
    (
        local_env.from_source(
            _source(kafka_broker, source_topic), WatermarkStrategy.no_watermarks(), "kafka"
        ).sink_to(_sink(kafka_broker, target, DeliveryGuarantee.AT_LEAST_ONCE))
    )
    local_env.execute("at least once")
    assert sorted(kafka_broker.consume(target, 20)) == sorted(v for v, _, _ in records)


OPEN_TRANSACTION = """
import os, sys
from confluent_kafka import Producer
producer = Producer({"bootstrap.servers": sys.argv[1], "transactional.id": sys.argv[2]})
producer.init_transactions(30)
producer.begin_transaction()
producer.produce(sys.argv[3], b"never committed")
producer.flush(30)
os._exit(0)  # a crash: the transaction stays open
"""


@pytest.mark.xfail(
    strict=True,
    reason="Tansu 0.6 gap: records of an aborted transaction reach read_committed consumers",
)
def test_a_transaction_left_open_by_a_crash_is_aborted_on_restart(kafka_broker, tmp_path):
    import subprocess
    import sys

    target = kafka_broker.create_topic(partitions=1)
    prefix = f"{target}-crash"
    script = tmp_path / "crash.py"
    script.write_text(OPEN_TRANSACTION)
    subprocess.run(
        [sys.executable, str(script), kafka_broker.bootstrap, f"{prefix}-0", target],
        check=True,
        timeout=60,
    )
    spec = _sink(kafka_broker, target, prefix=prefix).sink_spec()
    writer = spec.batch_writer("sink", "job", 0, 0)
    writer.write(["committed"])
    writer.finish()
    assert kafka_broker.consume(target, 1) == ["committed"]


def test_a_task_whose_producer_another_worker_fenced_writes_its_next_batch(kafka_broker):
    """Spark runs a task in any of its Python workers: another worker's producer of the
    same transactional id fences this one's, and the task's next batch here must still
    commit (a kept producer failed its flush, fenced)."""
    from confluent_kafka import Producer

    target = kafka_broker.create_topic(partitions=1)
    prefix = f"{target}-fenced"
    spec = _sink(kafka_broker, target, prefix=prefix).sink_spec()
    for batch, value in ((0, "a"), (2, "c")):
        writer = spec.batch_writer("sink", "job", batch, 0)
        writer.write([value])
        writer.finish()
        other_worker = Producer(
            {"bootstrap.servers": kafka_broker.bootstrap, "transactional.id": f"{prefix}-0"}
        )
        other_worker.init_transactions(30)  # batch 1 ran there
    assert kafka_broker.consume(target, 2) == ["a", "c"]


def _json_source(broker, topic, **settings):
    from weir.datastream.formats.json import JsonRowDeserializationSchema

    row_type = Types.ROW_NAMED(["sensor", "reading"], [Types.STRING(), Types.INT()])
    builder = (
        KafkaSource.builder()
        .set_bootstrap_servers(broker.bootstrap)
        .set_topics(topic)
        .set_value_only_deserializer(
            JsonRowDeserializationSchema.builder().type_info(row_type).build()
        )
        .set_bounded(KafkaOffsetsInitializer.latest())
    )
    for key, value in settings.items():
        builder = getattr(builder, key)(value)
    return builder.build()


def test_json_rows_and_a_record_that_cannot_be_read_fails_the_job_naming_its_offset(
    kafka_broker, local_env
):
    from weir.common.job import JobExecutionError
    from weir.runtime.errors import UserFunctionError

    topic = kafka_broker.create_topic(partitions=1)
    kafka_broker.produce(
        topic,
        [('{"sensor": "s1", "reading": 7}', 0, None), ('{"sensor": "s2", "reading": 9}', 0, None)],
    )
    rows = list(
        local_env.from_source(
            _json_source(kafka_broker, topic), WatermarkStrategy.no_watermarks(), "json"
        )
        .map(lambda r: f"{r.sensor}={r.reading}")
        .execute_and_collect()
    )
    assert rows == ["s1=7", "s2=9"]
    kafka_broker.produce(topic, [("not json", 0, None)])
    with pytest.raises(
        (JobExecutionError, UserFunctionError),
        match=rf"source 'json' failed: .*{topic}/0@2 cannot be deserialized.*"
        r"b'not json'",
    ):
        list(
            local_env.from_source(
                _json_source(kafka_broker, topic), WatermarkStrategy.no_watermarks(), "json"
            ).execute_and_collect()
        )


@pytest.mark.parametrize("executor", ["spark", "local"])
def test_records_that_cannot_be_read_go_to_the_dead_letter_output_and_are_counted(
    kafka_broker, spark_env, local_env, executor, tmp_path
):
    from weir.common.serialization import Encoder
    from weir.datastream import OutputTag
    from weir.datastream.connectors.file_system import BucketAssigner, FileSink

    topic = kafka_broker.create_topic(partitions=1)
    kafka_broker.produce(
        topic,
        [
            ('{"sensor": "s1", "reading": 7}', 0, 1_000_000),
            ("not json", 0, 1_001_000),
            ('{"sensor": "s2", "reading": 9}', 0, 1_002_000),
        ],
    )
    env = spark_env if executor == "spark" else local_env
    dead = OutputTag("dead", Types.PICKLED_BYTE_ARRAY())
    source = _json_source(kafka_broker, topic, set_dead_letter_output=dead)
    readings = env.from_source(source, WatermarkStrategy.no_watermarks(), "json")
    letters = readings.get_side_output(dead).map(
        lambda r: f"{r.source}|{r.position}|{r.reason.split(':')[0]}|{r.record!r}", Types.STRING()
    )
    (
        readings.map(lambda r: f"{r.sensor}={r.reading}", Types.STRING())
        .union(letters)
        .sink_to(
            FileSink.for_row_format(str(tmp_path), Encoder.simple_string_encoder())
            .with_bucket_assigner(BucketAssigner.base_path_bucket_assigner())
            .build()
        )
    )
    metrics = env.execute("dead letters").get_metrics()
    lines = sorted(line for part in tmp_path.iterdir() for line in part.read_text().splitlines())
    assert lines == sorted(["s1=7", "s2=9", f"json|{topic}/0@1|JSONDecodeError|b'not json'"])
    assert {name: n for name, n in metrics.items() if name.startswith("source-0.")} == {
        "source-0.numRecordsOut": 2,
        "source-0.numRecordsInErrors": 1,
    }


def test_an_unreachable_broker_fails_the_job_with_its_address(local_env):
    from tests.servers.kafka import free_port
    from weir.common.job import JobExecutionError

    address = f"127.0.0.1:{free_port()}"
    source = (
        KafkaSource.builder()
        .set_bootstrap_servers(address)
        .set_topics("t")
        .set_value_only_deserializer(SimpleStringSchema())
        .set_property("weir.metadata.timeout.ms", "1500")
        .set_bounded(KafkaOffsetsInitializer.latest())
        .build()
    )
    local_env.from_source(source, WatermarkStrategy.no_watermarks(), "kafka").print()
    with pytest.raises((JobExecutionError, ConnectionError), match=address):
        local_env.execute("unreachable")


def _read_values(env, source):
    return list(
        env.from_source(source, WatermarkStrategy.no_watermarks(), "kafka").execute_and_collect()
    )


def test_starting_offsets_committed_given_and_by_timestamp(kafka_broker, local_env):
    topic = kafka_broker.create_topic(partitions=1)
    kafka_broker.produce(topic, [(f"old{i}", 0, None) for i in range(3)])
    time.sleep(0.05)
    middle = int(time.time() * 1000)
    time.sleep(0.05)
    kafka_broker.produce(topic, [(f"new{i}", 0, None) for i in range(2)])
    group = f"{topic}-group"
    assert _read_values(local_env, _source(kafka_broker, topic, set_group_id=group)) == [
        "old0",
        "old1",
        "old2",
        "new0",
        "new1",
    ]
    kafka_broker.produce(topic, [("later", 0, None)])
    committed = _source(
        kafka_broker,
        topic,
        set_group_id=group,
        starting=KafkaOffsetsInitializer.committed_offsets(),
    )
    assert _read_values(local_env, committed) == ["later"]
    given = _source(
        kafka_broker,
        topic,
        starting=KafkaOffsetsInitializer.offsets({KafkaTopicPartition(topic, 0): 4}),
    )
    assert _read_values(local_env, given) == ["new1", "later"]
    by_time = _source(kafka_broker, topic, starting=KafkaOffsetsInitializer.timestamp(middle))
    assert _read_values(local_env, by_time) == ["new0", "new1", "later"]


def test_a_topic_pattern_reads_every_matching_topic(kafka_broker, local_env):
    first = kafka_broker.create_topic(name=f"pattern-a-{time.time_ns()}")
    second = kafka_broker.create_topic(name=f"pattern-b-{time.time_ns()}")
    kafka_broker.produce(first, [("a", 0, None)])
    kafka_broker.produce(second, [("b", 0, None)])
    source = (
        KafkaSource.builder()
        .set_bootstrap_servers(kafka_broker.bootstrap)
        .set_topic_pattern(f"pattern-[ab]-({first[10:]}|{second[10:]})")
        .set_value_only_deserializer(SimpleStringSchema())
        .set_bounded(KafkaOffsetsInitializer.latest())
        .build()
    )
    assert sorted(_read_values(local_env, source)) == ["a", "b"]


@pytest.mark.xfail(
    strict=True,
    reason="Tansu 0.6 gap: ListOffsets 'latest' is the base "
    "offset + 1 of the partition's last record batch",
)
def test_records_produced_in_one_batch_are_all_read(kafka_broker, local_env):
    topic = kafka_broker.create_topic(partitions=1)
    kafka_broker.produce(topic, [(f"v{i}", 0, None) for i in range(10)], one_per_batch=False)
    assert _read_values(local_env, _source(kafka_broker, topic)) == [f"v{i}" for i in range(10)]


@pytest.mark.xfail(
    strict=True, reason="Tansu 0.6 gap: no CreatePartitions (partitions cannot be added to a topic)"
)
def test_a_partition_added_while_the_job_runs_is_picked_up(kafka_broker):
    from confluent_kafka.admin import AdminClient, NewPartitions

    topic = kafka_broker.create_topic(partitions=1)
    reader = _source(kafka_broker, topic, bounded=False).create_reader()
    start = reader.initial_offset()
    AdminClient({"bootstrap.servers": kafka_broker.bootstrap}).create_partitions(
        [NewPartitions(topic, 2)]
    )[topic].result(30)
    assert sorted(reader.latest_offset(start)["next"]) == [f"{topic}:0", f"{topic}:1"]


class _Touch:
    """A map that creates file `path` when it sees `value` (the job has read it, so the
    micro-batch reading it has planned its offsets)."""

    def __init__(self, value, path):
        self.value = value
        self.path = str(path)

    def __call__(self, value):
        if value == self.value:
            open(self.path, "w").close()
        return value


@pytest.mark.parametrize("executor", ["spark", "local"])
def test_a_lagging_partition_keeps_its_records_on_time_as_in_flink(
    kafka_broker, spark_env, local_env, executor, tmp_path
):
    """Watermarks per partition: partition 0 is 50 s ahead of partition 1 after the first
    micro-batch; partition 1's next records are still on time, since the source's watermark
    is the smaller of the two (with one watermark over both they were dropped as late)."""
    import os
    import threading

    topic = kafka_broker.create_topic(partitions=2)
    ahead = [(f"k,{i}", 0, 1_000_000 + 10_000 * i) for i in range(6)]
    behind = [("k,a", 1, 1_000_000), ("k,b", 1, 1_005_000), ("k,c", 1, 1_012_000)]
    kafka_broker.produce(topic, ahead + behind[:1])
    stop = {KafkaTopicPartition(topic, 0): 6, KafkaTopicPartition(topic, 1): 3}
    source = _source(
        kafka_broker, topic, bounded=False, set_bounded=KafkaOffsetsInitializer.offsets(stop)
    )
    env = spark_env if executor == "spark" else local_env
    seen = tmp_path / "read-k5"
    stream = env.from_source(source, WatermarkStrategy.for_monotonous_timestamps(), "kafka")
    windows = (
        stream.map(_Touch("k,5", seen), Types.STRING())
        .map(lambda line: (line.split(",")[0], 1))
        .key_by(lambda r: r[0])
        .window(TumblingEventTimeWindows.of(Time.seconds(10)))
        .process(_CountWindow(), Types.STRING())
    )
    out = []
    job = threading.Thread(target=lambda: out.extend(windows.execute_and_collect()))
    job.start()
    try:
        wait_until(
            lambda: os.path.exists(seen), "the job to read its first records", 90, interval=0.05
        )
    finally:
        kafka_broker.produce(topic, behind[1:])
        job.join(120)
    assert sorted(out) == _window_counts(ahead + behind)


def _stamped(broker, topic, count, seconds=60):
    """(value, Kafka timestamp) of the first `count` records of partition 0 of `topic`."""
    from confluent_kafka import Consumer, TopicPartition

    consumer = Consumer(
        {
            "bootstrap.servers": broker.bootstrap,
            "group.id": f"read-{topic}",
            "isolation.level": "read_committed",
        }
    )
    consumer.assign([TopicPartition(topic, 0, 0)])
    out, deadline = [], time.time() + seconds
    try:
        while len(out) < count and time.time() < deadline:
            for message in consumer.consume(count - len(out), 0.5):
                if message.error() is None:
                    out.append((message.value().decode(), message.timestamp()[1]))
    finally:
        consumer.close()
    return out


@pytest.mark.parametrize("executor", ["spark", "local"])
def test_the_sink_gives_each_kafka_record_its_records_timestamp(
    kafka_broker, spark_env, local_env, executor
):
    """As Flink's KafkaSink: a record's timestamp (here the source's Kafka timestamps,
    through a map) is the Kafka record's timestamp."""
    source_topic = kafka_broker.create_topic(partitions=1)
    target = kafka_broker.create_topic(partitions=1)
    records = _readings(20, partitions=1)
    kafka_broker.produce(source_topic, records)
    env = spark_env if executor == "spark" else local_env
    stream = env.from_source(
        _source(kafka_broker, source_topic), WatermarkStrategy.for_monotonous_timestamps(), "kafka"
    )
    stream.map(str.upper, Types.STRING()).sink_to(_sink(kafka_broker, target, prefix=target))
    env.execute("timestamps")
    assert _stamped(kafka_broker, target, 20) == [(v.upper(), ts) for v, _, ts in records]


@pytest.mark.parametrize("executor", ["spark", "local"])
def test_a_bounded_source_waiting_for_its_stopping_offsets_holds_no_other_source(
    kafka_broker, spark_env, local_env, executor, tmp_path
):
    """The Kafka source's stopping offset lies beyond its records; the collection beside it
    is read meanwhile, and the job ends once the Kafka records came."""
    import os
    import threading

    topic = kafka_broker.create_topic(partitions=1)
    kafka_broker.produce(topic, [("k1", 0, 1_000_000)])
    source = _source(
        kafka_broker,
        topic,
        bounded=False,
        set_bounded=KafkaOffsetsInitializer.offsets({KafkaTopicPartition(topic, 0): 3}),
    )
    env = spark_env if executor == "spark" else local_env
    seen = tmp_path / "read-c2"
    kafka = env.from_source(source, WatermarkStrategy.no_watermarks(), "kafka")
    other = env.from_collection(["c1", "c2"]).map(_Touch("c2", seen), Types.STRING())
    out = []
    job = threading.Thread(target=lambda: out.extend(kafka.union(other).execute_and_collect()))
    job.start()
    try:
        wait_until(
            lambda: os.path.exists(seen),
            "the collection to be read while Kafka waits",
            90,
            interval=0.05,
        )
    finally:
        kafka_broker.produce(topic, [("k2", 0, 1_000_001), ("k3", 0, 1_000_002)])
        job.join(120)
    assert sorted(out) == ["c1", "c2", "k1", "k2", "k3"]


def test_a_restored_job_ends_though_a_source_ended_before_the_restart(
    kafka_broker, spark, tmp_path
):
    """A job with a waiting bounded Kafka source, whose collection source ended in its
    first run, is cancelled and restored: the restored run ends once Kafka's records came
    (it sees the collection's end in the checkpoint, not in a batch of its own)."""
    topic = kafka_broker.create_topic(partitions=1)
    target = kafka_broker.create_topic(partitions=1)
    kafka_broker.produce(topic, [("k1", 0, 1_000_000)])

    def start():
        env = checkpointed_env(spark, tmp_path / "checkpoint")
        source = _source(
            kafka_broker,
            topic,
            bounded=False,
            set_bounded=KafkaOffsetsInitializer.offsets({KafkaTopicPartition(topic, 0): 3}),
        )
        kafka = env.from_source(source, WatermarkStrategy.no_watermarks(), "kafka")
        kafka.union(env.from_collection(["c1"])).sink_to(_sink(kafka_broker, target, prefix=target))
        return env.execute_async("restored")

    client = start()
    assert sorted(kafka_broker.consume(target, 2, seconds=90)) == ["c1", "k1"]
    client.cancel()
    kafka_broker.produce(topic, [("k2", 0, 1_000_001), ("k3", 0, 1_000_002)])
    client = start()
    status = client.wait(120)
    assert str(status) == "FINISHED" or getattr(status, "name", None) == "FINISHED"
    assert sorted(kafka_broker.consume(target, 4)) == ["c1", "k1", "k2", "k3"]
