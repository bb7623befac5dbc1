"""Writing Kafka: each task writes its share of a micro-batch's records.

EXACTLY_ONCE: a task's records of micro-batch b go in one Kafka transaction (transactional
id `<prefix>-<task>`), which also commits offset b + 1 for the consumer group
`<prefix>-<job>-<task>` (job: see sink_base) on partition 0 of the first record's
topic: that group's committed offset is the last batch the task wrote. A replayed batch (after a
crash, or a task retry)
finds its batch written and writes nothing. Each (task, batch) starts a new transactional
producer: initializing it fences every earlier producer of the id (in this or another
worker process; Spark runs a task wherever it likes) and aborts the transaction one left
open. A kept producer would be fenced by another worker's and fail on its next flush. Flink ties its
transactions to
checkpoints the same way; weir's checkpoint is the micro-batch.
"""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Optional, Tuple

from weir.runtime.connectors import kafka_clients
from weir.runtime.connectors.kafka_clients import TRANSACTION_TIMEOUT_S
from weir.runtime.connectors.sink_base import BatchWriter

if TYPE_CHECKING:
    from typing import Protocol

    from confluent_kafka import Consumer, KafkaError, Message, Producer

    class _Schema(Protocol):
        """A SerializationSchema, as the sink uses it."""

        def serialize(self, record: Any) -> bytes: ...


FLUSH_TIMEOUT_S = 60.0


class RecordSerializer:
    """A record's (topic, key bytes or None, value bytes)."""

    def __init__(
        self,
        topic: Optional[str],
        topic_selector: Optional[Callable[[Any], str]],
        key_schema: Optional[_Schema],
        value_schema: _Schema,
    ) -> None:
        self.topic = topic
        self.topic_selector = topic_selector
        self.key_schema = key_schema
        self.value_schema = value_schema

    def serialize(self, record: Any) -> Tuple[str, Optional[bytes], bytes]:
        topic = self.topic if self.topic_selector is None else self.topic_selector(record)
        key = None if self.key_schema is None else self.key_schema.serialize(record)
        # (a topic: the builder sets exactly one of the topic and the topic selector)
        return topic, key, self.value_schema.serialize(record)  # type: ignore[return-value]


class KafkaSinkSpec:
    """A KafkaSink's settings; written on the executors, by BatchWriters."""

    executor_side = True

    def __init__(
        self,
        bootstrap_servers: str,
        serializer: RecordSerializer,
        guarantee: str,
        transactional_id_prefix: Optional[str],
        properties: Dict[str, str],
    ) -> None:
        self.bootstrap_servers = bootstrap_servers
        self.serializer = serializer
        self.guarantee = guarantee  # DeliveryGuarantee's name
        self.transactional_id_prefix = transactional_id_prefix
        self.properties = dict(properties)

    def batch_writer(self, uid: str, job: str, batch_id: int, task: int) -> BatchWriter:
        if self.guarantee == "EXACTLY_ONCE":
            return TransactionalWriter(self, uid, job, batch_id, task)
        return BufferedWriter(self, uid, job, batch_id, task)

    def producer_config(self) -> Dict[str, Any]:
        config: Dict[str, Any] = {
            key: value
            for key, value in self.properties.items()
            if key != "transaction.timeout.ms" or self.guarantee == "EXACTLY_ONCE"
        }
        config["bootstrap.servers"] = self.bootstrap_servers
        if self.guarantee == "AT_LEAST_ONCE":
            config.setdefault("enable.idempotence", True)
            config.setdefault("acks", "all")
        return config


class _KafkaWriter(BatchWriter):
    def __init__(self, spec: KafkaSinkSpec, uid: str, job: str, batch_id: int, task: int) -> None:
        super().__init__(uid, job, batch_id, task)
        self.spec = spec
        self.errors: List[str] = []

    def _produce(
        self, producer: Producer, values: List[Any], timestamps: Optional[List[Optional[int]]]
    ) -> None:
        """Sends records, each with its timestamp as the Kafka record's (as Flink's
        KafkaSink; a record without one gets the producer's time)."""
        serialize = self.spec.serializer.serialize
        for value, timestamp in zip(values, timestamps or itertools.repeat(None)):
            try:
                topic, key, payload = serialize(value)
            except Exception as exc:
                raise ValueError(
                    f"Kafka sink '{self.uid}': record {value!r} cannot be "
                    f"serialized: {type(exc).__name__}: {exc}"
                ) from exc
            while True:
                try:
                    producer.produce(
                        topic,
                        payload,
                        key,
                        on_delivery=self._delivered,
                        timestamp=max(timestamp or 0, 0),
                    )
                    break
                except BufferError:  # the client's queue is full: let it send
                    producer.poll(0.05)
            self.written += 1
        producer.poll(0)

    def _delivered(self, error: Optional[KafkaError], message: Message) -> None:
        if error is not None:
            self.errors.append(f"{message.topic()}: {error.str()}")

    def _check(self, remaining: int) -> None:
        if remaining:
            raise TimeoutError(
                f"Kafka sink '{self.uid}': {remaining} records not delivered "
                f"to {self.spec.bootstrap_servers} within "
                f"{FLUSH_TIMEOUT_S:.0f} s"
            )
        if self.errors:
            raise ConnectionError(
                f"Kafka sink '{self.uid}' ({self.spec.bootstrap_servers}): "
                f"{len(self.errors)} records not delivered: "
                f"{self.errors[0]}"
            )


class BufferedWriter(_KafkaWriter):
    """AT_LEAST_ONCE (and NONE): records are sent as they come and flushed before the
    micro-batch commits; a replayed batch sends them again."""

    def __init__(self, spec: KafkaSinkSpec, uid: str, job: str, batch_id: int, task: int) -> None:
        super().__init__(spec, uid, job, batch_id, task)
        self.producer = kafka_clients.producer(spec.producer_config())

    def write(self, values: List[Any], timestamps: Optional[List[Optional[int]]] = None) -> None:
        self._produce(self.producer, values, timestamps)

    def finish(self) -> None:
        if self.written:
            self._check(self.producer.flush(FLUSH_TIMEOUT_S))


class TransactionalWriter(_KafkaWriter):
    """EXACTLY_ONCE: one transaction per task and micro-batch (see the module's doc)."""

    def __init__(self, spec: KafkaSinkSpec, uid: str, job: str, batch_id: int, task: int) -> None:
        super().__init__(spec, uid, job, batch_id, task)
        self.name = f"{spec.transactional_id_prefix}-{task}"
        self.marker_group = f"{spec.transactional_id_prefix}-{job}-{task}"
        self.config = {**spec.producer_config(), "transactional.id": self.name}
        self.producer: Any = None  # the batch's transactional producer, on the first write
        self.marker_topic: Any = None  # the first record's topic
        self.skipping = False

    def write(self, values: List[Any], timestamps: Optional[List[Optional[int]]] = None) -> None:
        if self.skipping or not values:
            return
        if self.producer is None:
            self.marker_topic = self.spec.serializer.serialize(values[0])[0]
            # A new producer first: initializing it fences every earlier one of the id
            # and ends the transaction one left open, so the marker read next is final
            producer = kafka_clients.transactional_producer(self.config)
            if self._batch_written():
                self.skipping = True
                return
            producer.begin_transaction()
            self.producer = producer
        self._produce(self.producer, values, timestamps)

    def _marker_group(self) -> Consumer:
        """The consumer of the group whose committed offset records the task's last
        written batch."""
        return kafka_clients.consumer(
            {
                "bootstrap.servers": self.spec.bootstrap_servers,
                "group.id": self.marker_group,
                "enable.auto.commit": False,
            }
        )

    def _batch_written(self) -> bool:
        from confluent_kafka import TopicPartition

        committed = (
            self._marker_group()
            .committed([TopicPartition(self.marker_topic, 0)], timeout=TRANSACTION_TIMEOUT_S)[0]
            .offset
        )
        return committed > self.batch_id

    def finish(self) -> None:
        if self.producer is None:
            return
        from confluent_kafka import TopicPartition

        producer = self.producer
        self._check(producer.flush(FLUSH_TIMEOUT_S))
        producer.send_offsets_to_transaction(
            [TopicPartition(self.marker_topic, 0, self.batch_id + 1)],
            self._marker_group().consumer_group_metadata(),
            TRANSACTION_TIMEOUT_S,
        )
        producer.commit_transaction(TRANSACTION_TIMEOUT_S)

    def abort(self) -> None:
        if self.producer is not None:
            try:
                self.producer.abort_transaction(TRANSACTION_TIMEOUT_S)
            except Exception:  # noqa: BLE001 (the next producer of the id aborts it too)
                pass
