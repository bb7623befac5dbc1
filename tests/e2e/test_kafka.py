"""KafkaSource and KafkaSink against a real Kafka-protocol broker (Tansu), on Spark and on
the in-process executor."""

import time

import pytest

from weir.common import Duration, Types, WatermarkStrategy
from weir.common.serialization import SimpleStringSchema
from weir.datastream.connectors import DeliveryGuarantee
from weir.datastream.connectors.kafka import (KafkaOffsetsInitializer, KafkaRecordSerializationSchema,
                                              KafkaSink, KafkaSource, KafkaTopicPartition)
from weir.datastream.window import TumblingEventTimeWindows
from weir.common.time import Time

pytestmark = pytest.mark.spark


def _source(broker, topic, bounded=True, **settings):
    builder = (KafkaSource.builder().set_bootstrap_servers(broker.bootstrap)
               .set_topics(topic).set_value_only_deserializer(SimpleStringSchema())
               .set_starting_offsets(settings.pop("starting", KafkaOffsetsInitializer.earliest())))
    if bounded:
        builder = builder.set_bounded(KafkaOffsetsInitializer.latest())
    for key, value in settings.items():
        builder = getattr(builder, key)(value)
    return builder.build()


def _sink(broker, topic, guarantee=DeliveryGuarantee.EXACTLY_ONCE, prefix=None):
    builder = (KafkaSink.builder().set_bootstrap_servers(broker.bootstrap)
               .set_record_serializer(KafkaRecordSerializationSchema.builder().set_topic(topic)
                                      .set_value_serialization_schema(SimpleStringSchema())
                                      .build())
               .set_delivery_guarantee(guarantee))
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
    return (stream.map(lambda line: (line.split(",")[0], 1))
            .key_by(lambda r: r[0])
            .window(TumblingEventTimeWindows.of(Time.seconds(10)))
            .process(_CountWindow(), Types.STRING()))


from weir.datastream.functions import ProcessWindowFunction  # noqa: E402


class _CountWindow(ProcessWindowFunction):
    def process(self, key, context, elements):
        yield f"{key}@{context.window().start}={len(list(elements))}"


@pytest.mark.parametrize("executor", ["spark", "local"])
def test_a_bounded_source_reads_every_partition_with_kafka_timestamps_as_event_time(
        kafka_broker, spark_env, local_env, executor):
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
    stream = spark_env.from_source(_source(kafka_broker, source_topic),
                                   WatermarkStrategy.no_watermarks(), "kafka")
    stream.map(str.upper, Types.STRING()).sink_to(_sink(kafka_broker, target, prefix=target))
    result = spark_env.execute("kafka to kafka")
    assert sorted(kafka_broker.consume(target, 40)) == sorted(v.upper() for v, _, _ in records)
    assert result.get_metrics()  # the sink's count came from the tasks
    sink_counts = [n for name, n in result.get_metrics().items() if name.endswith("numRecordsIn")]
    assert sink_counts == [40]
