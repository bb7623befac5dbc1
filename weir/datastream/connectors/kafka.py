"""PyFlink's Kafka connector (`pyflink.datastream.connectors.kafka`): KafkaSource and
KafkaSink with PyFlink's builders, over confluent-kafka (librdkafka)."""

from enum import Enum
from typing import Any, Dict, List, Optional, Set

from weir.common.gaps import module_gaps
from weir.datastream.connectors.base import DeliveryGuarantee, dead_letter_tag_id
from weir.runtime.connectors.kafka_sink import KafkaSinkSpec, RecordSerializer
from weir.runtime.connectors.kafka_source import KafkaReader, KafkaSourceConfig

__getattr__ = module_gaps(
    __name__,
    "pyflink.datastream.connectors.kafka",
    [
        "KafkaTopicSelector",
        "FlinkKafkaConsumer",
        "FlinkKafkaProducer",
        "Semantic",
        "KafkaRecordDeserializationSchema",
        "SimpleStringValueKafkaRecordDeserializationSchema",
    ],
)


class KafkaTopicPartition:
    def __init__(self, topic: str, partition: int):
        self._topic, self._partition = topic, int(partition)

    def _key(self):
        return self._topic, self._partition

    def __eq__(self, other):
        return isinstance(other, KafkaTopicPartition) and self._key() == other._key()

    def __hash__(self):
        return hash(self._key())

    def __repr__(self):
        return f"KafkaTopicPartition({self._topic!r}, {self._partition})"


class KafkaOffsetResetStrategy(Enum):
    """Where a partition without the offset asked for starts."""

    LATEST = "LATEST"
    EARLIEST = "EARLIEST"
    NONE = "NONE"


class KafkaOffsetsInitializer:
    """Offsets to start (or stop) at, per partition; resolved once, when a job first
    starts (a restart goes on from its checkpoint)."""

    def __init__(self, spec: tuple):
        self._spec = spec

    @staticmethod
    def earliest() -> "KafkaOffsetsInitializer":
        return KafkaOffsetsInitializer(("earliest",))

    @staticmethod
    def latest() -> "KafkaOffsetsInitializer":
        return KafkaOffsetsInitializer(("latest",))

    @staticmethod
    def committed_offsets(
        offset_reset_strategy: KafkaOffsetResetStrategy = KafkaOffsetResetStrategy.NONE,
    ) -> "KafkaOffsetsInitializer":
        return KafkaOffsetsInitializer(("committed", _strategy(offset_reset_strategy)))

    @staticmethod
    def timestamp(timestamp: int) -> "KafkaOffsetsInitializer":
        return KafkaOffsetsInitializer(("timestamp", int(timestamp)))

    @staticmethod
    def offsets(
        offsets: Dict[KafkaTopicPartition, int],
        offset_reset_strategy: KafkaOffsetResetStrategy = KafkaOffsetResetStrategy.EARLIEST,
    ) -> "KafkaOffsetsInitializer":
        given = {tp._key(): int(offset) for tp, offset in offsets.items()}
        return KafkaOffsetsInitializer(("offsets", given, _strategy(offset_reset_strategy)))


def _strategy(strategy) -> str:
    if not isinstance(strategy, KafkaOffsetResetStrategy):
        raise TypeError(f"expected a KafkaOffsetResetStrategy, got {strategy!r}")
    return strategy.value


def _initializer(value, method: str) -> tuple:
    if not isinstance(value, KafkaOffsetsInitializer):
        raise TypeError(
            f"KafkaSourceBuilder.{method} expects a KafkaOffsetsInitializer, "
            f"got {type(value).__name__}"
        )
    return value._spec


class KafkaSource:
    """Reads Kafka topics; build one with KafkaSource.builder() and read it with
    env.from_source(source, watermark_strategy, name)."""

    def __init__(self, config: KafkaSourceConfig):
        self._config = config

    @property
    def type_info(self):
        """The records' type: what the deserializer produces, where it says (a row
        format's row type), as PyFlink's source takes it from the deserializer."""
        return getattr(self._config.deserializer, "type_info", None)

    @staticmethod
    def builder() -> "KafkaSourceBuilder":
        return KafkaSourceBuilder()

    def create_reader(self) -> KafkaReader:
        return KafkaReader(self._config)


class KafkaSourceBuilder:
    def __init__(self):
        self._settings: Dict[str, Any] = {"starting": ("earliest",), "properties": {}}
        self._subscriptions: List[str] = []

    def set_bootstrap_servers(self, bootstrap_servers: str) -> "KafkaSourceBuilder":
        self._settings["bootstrap_servers"] = bootstrap_servers
        return self

    def set_group_id(self, group_id: str) -> "KafkaSourceBuilder":
        self._settings["group_id"] = group_id
        return self

    def set_topics(self, *topics: str) -> "KafkaSourceBuilder":
        self._subscribe("set_topics", topics=list(topics))
        return self

    def set_topic_pattern(self, topic_pattern: str) -> "KafkaSourceBuilder":
        self._subscribe("set_topic_pattern", topic_pattern=topic_pattern)
        return self

    def set_partitions(self, partitions: Set[KafkaTopicPartition]) -> "KafkaSourceBuilder":
        self._subscribe("set_partitions", partitions=[tp._key() for tp in partitions])
        return self

    def _subscribe(self, method: str, **setting) -> None:
        self._subscriptions.append(method)
        self._settings.update(setting)

    def set_starting_offsets(self, initializer: KafkaOffsetsInitializer) -> "KafkaSourceBuilder":
        self._settings["starting"] = _initializer(initializer, "set_starting_offsets")
        return self

    def set_bounded(self, initializer: KafkaOffsetsInitializer) -> "KafkaSourceBuilder":
        self._settings.update(stopping=_initializer(initializer, "set_bounded"), bounded=True)
        return self

    def set_unbounded(self, initializer: KafkaOffsetsInitializer) -> "KafkaSourceBuilder":
        self._settings.update(stopping=_initializer(initializer, "set_unbounded"), bounded=False)
        return self

    def set_value_only_deserializer(self, deserialization_schema) -> "KafkaSourceBuilder":
        if not hasattr(deserialization_schema, "deserialize"):
            raise TypeError(
                "set_value_only_deserializer expects a DeserializationSchema "
                f"(with deserialize(bytes)), got {deserialization_schema!r}"
            )
        self._settings["deserializer"] = deserialization_schema
        return self

    def set_deserializer(self, record_deserializer) -> "KafkaSourceBuilder":
        """A deserializer of whole records, key and value (Flink's Java
        `setDeserializer(KafkaRecordDeserializationSchema)`): an object whose
        `deserialize_record(key, value)` takes a message's key and value bytes (either
        None: no key, a tombstone) and gives its record, None to skip it."""
        if not callable(getattr(record_deserializer, "deserialize_record", None)):
            raise TypeError(
                "set_deserializer expects a record deserializer (with "
                f"deserialize_record(key, value)), got {record_deserializer!r}"
            )
        self._settings["deserializer"] = record_deserializer
        return self

    def set_dead_letter_output(self, output_tag) -> "KafkaSourceBuilder":
        """weir: a record the deserializer cannot read goes to this side output of the
        source's stream (`stream.get_side_output(tag)`) instead of failing the job
        (position: 'topic/partition@offset'; see base.dead_letter_tag_id)."""
        self._settings["dead_letter_tag"] = dead_letter_tag_id(output_tag)
        return self

    def set_client_id_prefix(self, prefix: str) -> "KafkaSourceBuilder":
        self._settings["client_id_prefix"] = prefix
        return self

    def set_property(self, key: str, value: str) -> "KafkaSourceBuilder":
        self._settings["properties"][key] = value
        return self

    def set_properties(self, props: Dict[str, str]) -> "KafkaSourceBuilder":
        self._settings["properties"].update(props)
        return self

    def build(self) -> KafkaSource:
        settings = dict(self._settings)
        properties = settings["properties"]  # (Kafka's own names, as Flink takes them)
        settings.setdefault("bootstrap_servers", properties.get("bootstrap.servers"))
        if properties.get("group.id") and not settings.get("group_id"):
            settings["group_id"] = properties["group.id"]
        if not settings.get("bootstrap_servers"):
            raise ValueError(
                "KafkaSource needs set_bootstrap_servers(...) or the 'bootstrap.servers' property"
            )
        if len(self._subscriptions) != 1:
            raise ValueError(
                "KafkaSource needs exactly one of set_topics, set_topic_pattern "
                "and set_partitions (got: "
                f"{', '.join(self._subscriptions) or 'none'})"
            )
        if settings.get("deserializer") is None:
            raise ValueError(
                "KafkaSource needs set_value_only_deserializer(...) or set_deserializer(...)"
            )
        return KafkaSource(KafkaSourceConfig(**settings))


class KafkaRecordSerializationSchema:
    """How a record becomes a Kafka record: its topic, value and (optional) key."""

    def __init__(self, serializer: RecordSerializer):
        self._serializer = serializer

    @staticmethod
    def builder() -> "KafkaRecordSerializationSchemaBuilder":
        return KafkaRecordSerializationSchemaBuilder()


class KafkaRecordSerializationSchemaBuilder:
    def __init__(self):
        self._topic = self._topic_selector = self._key = self._value = None

    def set_topic(self, topic: str) -> "KafkaRecordSerializationSchemaBuilder":
        self._topic = topic
        return self

    def set_topic_selector(self, topic_selector) -> "KafkaRecordSerializationSchemaBuilder":
        """A function of the record giving its topic (weir: any callable, or an object
        with apply(record))."""
        self._topic_selector = getattr(topic_selector, "apply", topic_selector)
        return self

    def set_key_serialization_schema(self, schema) -> "KafkaRecordSerializationSchemaBuilder":
        self._key = schema
        return self

    def set_value_serialization_schema(self, schema) -> "KafkaRecordSerializationSchemaBuilder":
        self._value = schema
        return self

    def build(self) -> KafkaRecordSerializationSchema:
        if (self._topic is None) == (self._topic_selector is None):
            raise ValueError(
                "KafkaRecordSerializationSchema needs exactly one of set_topic "
                "and set_topic_selector"
            )
        if self._value is None:
            raise ValueError(
                "KafkaRecordSerializationSchema needs set_value_serialization_schema(...)"
            )
        return KafkaRecordSerializationSchema(
            RecordSerializer(self._topic, self._topic_selector, self._key, self._value)
        )


class KafkaSink:
    """Writes records to Kafka from the tasks that produce them. EXACTLY_ONCE writes each
    task's records of a micro-batch in one Kafka transaction that also records the batch
    as written: a replayed micro-batch writes nothing twice."""

    def __init__(self, spec: KafkaSinkSpec):
        self._spec = spec

    @staticmethod
    def builder() -> "KafkaSinkBuilder":
        return KafkaSinkBuilder()

    def sink_spec(self) -> KafkaSinkSpec:
        return self._spec


class KafkaSinkBuilder:
    def __init__(self):
        self._bootstrap_servers = None
        self._serializer: Optional[KafkaRecordSerializationSchema] = None
        self._guarantee = DeliveryGuarantee.NONE  # Flink's default
        self._prefix = None
        self._properties = {}

    def set_bootstrap_servers(self, bootstrap_servers: str) -> "KafkaSinkBuilder":
        self._bootstrap_servers = bootstrap_servers
        return self

    def set_delivery_guarantee(self, guarantee: DeliveryGuarantee) -> "KafkaSinkBuilder":
        if not isinstance(guarantee, DeliveryGuarantee):
            raise TypeError(f"expected a DeliveryGuarantee, got {guarantee!r}")
        self._guarantee = guarantee
        return self

    def set_transactional_id_prefix(self, prefix: str) -> "KafkaSinkBuilder":
        self._prefix = prefix
        return self

    def set_record_serializer(
        self, serializer: KafkaRecordSerializationSchema
    ) -> "KafkaSinkBuilder":
        if not isinstance(serializer, KafkaRecordSerializationSchema):
            raise TypeError(
                "set_record_serializer expects a KafkaRecordSerializationSchema "
                f"(KafkaRecordSerializationSchema.builder()...build()), got "
                f"{type(serializer).__name__}"
            )
        self._serializer = serializer
        return self

    def set_property(self, key: str, value: str) -> "KafkaSinkBuilder":
        self._properties[key] = value
        return self

    def build(self) -> KafkaSink:
        if not self._bootstrap_servers:
            raise ValueError("KafkaSink needs set_bootstrap_servers(...)")
        if self._serializer is None:
            raise ValueError("KafkaSink needs set_record_serializer(...)")
        if self._guarantee is DeliveryGuarantee.EXACTLY_ONCE and not self._prefix:
            raise ValueError(
                "a KafkaSink with DeliveryGuarantee.EXACTLY_ONCE needs "
                "set_transactional_id_prefix(...)"
            )
        return KafkaSink(
            KafkaSinkSpec(
                self._bootstrap_servers,
                self._serializer._serializer,
                self._guarantee.name,
                self._prefix,
                self._properties,
            )
        )
