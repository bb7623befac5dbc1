"""PyFlink 2.3's Kafka examples (tests/pyflink_examples/kafka_*.py, only their imports
changed) against a Kafka-protocol broker on their hard-coded localhost:9092, and its
streaming word count.

Each Kafka example writes seven rows to a topic with KafkaSink in one format (JSON, CSV,
Avro, raw bytes), then reads the topic back with KafkaSource and prints each record,
forever (on Flink too): the test stops it once it has printed them. What it must print
is derived from the example's data (PyFlink's Kafka connector is a jar this machine
cannot fetch): each written row once, as Flink prints a typed Row (`+I[1,hi]`).

The broker (Tansu) answers ListOffsets "latest" with the base offset + 1 of a
partition's last record batch (docs/connectors.md), and KafkaSink writes several records
to a batch: so once the write has finished, the test ends each partition with one record
of its own (a sentinel, in the example's format), as bench/kafka.py does, and leaves the
sentinels out of what it compares.
"""

import io
import json
import os
import signal
import subprocess
import sys
import threading
import time
import uuid

import pytest

from tests.servers.kafka import Broker

pytestmark = pytest.mark.spark

EXAMPLES = os.path.join(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "pyflink_examples"
)
ROWS = [(1, "hi"), (2, "hello"), (3, "hi"), (4, "hello"), (5, "hi"), (6, "hello"), (6, "hello")]
AVRO = {
    "type": "record",
    "name": "TestRecord",
    "fields": [{"name": "id", "type": "int"}, {"name": "name", "type": "string"}],
}
COUNTRIES = [(1, "USA"), (2, "Canada"), (3, "Germany")]


def avro_bytes(record: dict) -> bytes:
    import fastavro

    buffer = io.BytesIO()
    fastavro.schemaless_writer(buffer, fastavro.parse_schema(AVRO), record)
    return buffer.getvalue()


# example -> (its topic, the sentinel's bytes, the records it must print, the sentinel's line)
CASES = {
    "kafka_json_format": (
        "test_json_topic",
        b'{"f0":0,"f1":"end"}',
        [f"+I[{i},{s}]" for i, s in ROWS],
        "+I[0,end]",
    ),
    "kafka_csv_format": (
        "test_csv_topic",
        b"0,end",
        [f"+I[{i},{s}]" for i, s in ROWS],
        "+I[0,end]",
    ),
    "kafka_avro_format": ("test_avro_topic", None, [f"+I[{i},{s}]" for i, s in ROWS], "+I[0,end]"),
    "kafka_bytearray_format": (
        "test_bytearray_topic",
        b"end",
        [json.dumps({"id": i, "country": c}) for i, c in COUNTRIES],
        "end",
    ),
}


@pytest.fixture(scope="module")
def broker(tmp_path_factory):
    """A broker on the examples' localhost:9092 (the test fails where that port is taken)."""
    started = Broker(str(tmp_path_factory.mktemp("tansu-9092") / "broker.log"), port=9092)
    yield started
    started.stop()


class Example:
    """An example run as its own process, its standard output read line by line."""

    def __init__(self, name: str, *args):
        environment = dict(os.environ, PYTHONUNBUFFERED="1", PYSPARK_PYTHON=sys.executable)
        self.process = subprocess.Popen(
            [sys.executable, os.path.join(EXAMPLES, f"{name}.py"), *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=environment,
            start_new_session=True,
        )
        self.lines, self.errors = [], []
        threading.Thread(
            target=self._read, args=(self.process.stdout, self.lines), daemon=True
        ).start()
        threading.Thread(
            target=self._read, args=(self.process.stderr, self.errors), daemon=True
        ).start()

    @staticmethod
    def _read(stream, into: list) -> None:
        for line in stream:
            into.append(line.rstrip("\n"))

    def wait_for(self, condition, what: str, seconds: float = 240) -> None:
        deadline = time.time() + seconds
        while not condition(list(self.lines)):
            if self.process.poll() is not None and not condition(list(self.lines)):
                time.sleep(0.5)  # (its last lines)
                if condition(list(self.lines)):
                    return
                raise AssertionError(
                    f"the example ended ({self.process.returncode}) before "
                    f"{what}: {self.lines}\n" + "\n".join(self.errors[-30:])
                )
            if time.time() > deadline:
                raise AssertionError(
                    f"not {what} within {seconds} s: {self.lines}\n" + "\n".join(self.errors[-30:])
                )
            time.sleep(0.2)

    def stop(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(30)


def records(lines: list) -> list:
    """The printed records: lines without the examples' own messages and log lines,
    Flink's `N> ` subtask prefix removed."""
    import re

    return [
        re.sub(r"^\d+> ", "", line)
        for line in lines
        if line and not line.startswith(("start ", "weir:"))
    ]


def end_each_partition(broker: Broker, topic: str, value: bytes) -> None:
    from confluent_kafka import Producer

    producer = Producer({"bootstrap.servers": broker.bootstrap, "linger.ms": 0})
    metadata = producer.list_topics(topic, timeout=30).topics[topic]
    for partition in metadata.partitions:
        producer.produce(topic, value, partition=partition)
        assert producer.flush(30) == 0


def topic_records(broker: Broker, topic: str, count: int) -> list:
    """(key, value) bytes of `count` records of `topic` (all partitions), sorted."""
    from confluent_kafka import Consumer, TopicPartition

    consumer = Consumer(
        {"bootstrap.servers": broker.bootstrap, "group.id": f"check-{uuid.uuid4().hex[:8]}"}
    )
    metadata = consumer.list_topics(topic, timeout=30).topics[topic]
    consumer.assign([TopicPartition(topic, p, 0) for p in metadata.partitions])
    got, deadline = [], time.time() + 30
    while len(got) < count and time.time() < deadline:
        got += [(m.key(), m.value()) for m in consumer.consume(100, 0.2) if m.error() is None]
    for message in consumer.consume(100, 1.0):  # (nothing beyond them)
        got.append((message.key(), message.value()))
    consumer.close()
    return sorted(got, key=repr)


@pytest.mark.parametrize("name", sorted(CASES))
def test_kafka_example_writes_its_rows_and_prints_them_read_back(broker, name):
    topic, sentinel, expected, sentinel_line = CASES[name]
    sentinel = sentinel or avro_bytes({"id": 0, "name": "end"})
    example = Example(name)
    try:
        example.wait_for(
            lambda lines: "start reading data from kafka" in lines, "the write job finished"
        )
        assert example.lines[:2] == ["start writing data to kafka", "start reading data from kafka"]
        end_each_partition(broker, topic, sentinel)
        example.wait_for(
            lambda lines: (
                sorted(r for r in records(lines) if r != sentinel_line) == sorted(expected)
            ),
            f"printed the {len(expected)} records",
        )
    finally:
        example.stop()
    printed = [r for r in records(example.lines) if r != sentinel_line]
    assert sorted(printed) == sorted(expected)  # each once, nothing else
    written = [
        value for _, value in topic_records(broker, topic, len(expected) + 1) if value != sentinel
    ]
    assert len(written) == len(expected)


def test_kafka_row_field_extractor_example_writes_keys_and_values(broker):
    example = Example("kafka_row_field_extractor_example")
    try:
        example.process.wait(300)
    finally:
        example.stop()
    time.sleep(0.5)  # (the reader threads' last lines)
    assert example.process.returncode == 0, "\n".join(example.errors[-30:])
    sent = [line for line in example.lines if line.startswith("Sending: ")]
    assert sent == [  # printed by the example's map function, in a Spark worker
        "Sending: User=user-001, Event={'type': 'purchase', 'item': 'laptop', 'price': 999.99}",
        "Sending: User=user-002, Event={'type': 'view', 'item': 'phone', 'timestamp': "
        "'2024-01-07T10:30:00'}",
        "Sending: User=user-001, Event={'type': 'add_to_cart', 'item': 'mouse', 'quantity': 2}",
        "Sending: User=user-003, Event={'type': 'purchase', 'item': 'keyboard', 'price': 79.99}",
    ]
    assert example.lines[:3] == ["=" * 70, "Kafka RowFieldExtractorSchema Example", "=" * 70]
    assert topic_records(broker, "row-extractor-example", 4) == sorted(
        [
            (b"user-001", b'{"type": "purchase", "item": "laptop", "price": 999.99}'),
            (b"user-002", b'{"type": "view", "item": "phone", "timestamp": "2024-01-07T10:30:00"}'),
            (b"user-001", b'{"type": "add_to_cart", "item": "mouse", "quantity": 2}'),
            (b"user-003", b'{"type": "purchase", "item": "keyboard", "price": 79.99}'),
        ],
        key=repr,
    )


def test_streaming_word_count_counts_each_random_word_up_by_one():
    """Random words from a `datagen` table (5 rows a second), unbounded: each printed
    count is its word's previous count + 1, for words of the example's list."""
    import re

    example = Example("streaming_word_count")
    try:
        example.wait_for(lambda lines: len(records(lines)) >= 21, "printed 20 counts", 240)
    finally:
        example.stop()
    lines = records(example.lines)
    assert lines[0] == "Printing result to stdout. Use --output to specify output path."
    words = {
        "flink",
        "window",
        "timer",
        "event_time",
        "processing_time",
        "state",
        "connector",
        "pyflink",
        "checkpoint",
        "watermark",
        "sideoutput",
        "sql",
        "datastream",
        "broadcast",
        "asyncio",
        "catalog",
        "batch",
        "streaming",
    }
    counts = {}
    for line in lines[1:]:
        word, count = re.fullmatch(r"\((\w+),(\d+)\)", line).groups()
        assert word in words
        counts[word] = counts.get(word, 0) + 1
        assert int(count) == counts[word], (line, lines)
