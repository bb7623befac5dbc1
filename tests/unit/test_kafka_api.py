"""KafkaSource/KafkaSink builders and the JSON row formats: what they accept and refuse,
without a broker."""

import pytest

from weir.common import SimpleStringSchema, Types
from weir.common.row import Row
from weir.datastream.connectors import DeliveryGuarantee
from weir.datastream.connectors.kafka import (
    KafkaOffsetsInitializer,
    KafkaRecordSerializationSchema,
    KafkaSink,
    KafkaSource,
    KafkaTopicPartition,
)
from weir.datastream.formats.json import JsonRowDeserializationSchema, JsonRowSerializationSchema
from weir.runtime.connectors.kafka_source import KafkaReader, split_partition_key

ROW = Types.ROW_NAMED(["sensor", "reading"], [Types.STRING(), Types.INT()])


def _source_builder():
    return (
        KafkaSource.builder()
        .set_bootstrap_servers("127.0.0.1:1")
        .set_value_only_deserializer(SimpleStringSchema())
    )


def test_a_source_needs_exactly_one_subscription():
    with pytest.raises(
        ValueError,
        match="exactly one of set_topics, set_topic_pattern and "
        r"set_partitions \(got: none\)",
    ):
        _source_builder().build()
    with pytest.raises(ValueError, match="got: set_topics, set_topic_pattern"):
        _source_builder().set_topics("a").set_topic_pattern("b.*").build()


def test_a_source_needs_servers_and_a_deserializer():
    with pytest.raises(ValueError, match="set_bootstrap_servers"):
        KafkaSource.builder().set_topics("a").build()
    with pytest.raises(ValueError, match="set_value_only_deserializer"):
        KafkaSource.builder().set_bootstrap_servers("h:1").set_topics("a").build()
    with pytest.raises(TypeError, match="KafkaOffsetsInitializer"):
        _source_builder().set_starting_offsets("earliest")


def test_bounded_and_unbounded_sources_and_their_partitions():
    partitions = {KafkaTopicPartition("a", 1), KafkaTopicPartition("a", 0)}
    bounded = (
        _source_builder()
        .set_partitions(partitions)
        .set_bounded(KafkaOffsetsInitializer.latest())
        .build()
        .create_reader()
    )
    assert isinstance(bounded, KafkaReader) and bounded.bounded
    assert bounded.config.partitions == [("a", 0), ("a", 1)]
    assert bounded.config.stopping == ("latest",)
    unbounded = _source_builder().set_topics("a").build().create_reader()
    assert not unbounded.bounded and unbounded.config.stopping is None
    assert unbounded.config.starting == ("earliest",)


def test_weir_settings_do_not_reach_the_client():
    reader = (
        _source_builder()
        .set_topics("a")
        .set_property("weir.read.timeout.ms", "5")
        .set_property("fetch.min.bytes", "10")
        .build()
        .create_reader()
    )
    config = reader.config.client_config()
    assert config["fetch.min.bytes"] == "10" and "weir.read.timeout.ms" not in config
    assert reader.config.read_timeout_ms() == 5
    assert config["isolation.level"] == "read_committed"


def _serializer():
    return (
        KafkaRecordSerializationSchema.builder()
        .set_topic("out")
        .set_value_serialization_schema(SimpleStringSchema())
        .build()
    )


def test_an_exactly_once_sink_needs_a_transactional_id_prefix():
    builder = (
        KafkaSink.builder()
        .set_bootstrap_servers("h:1")
        .set_record_serializer(_serializer())
        .set_delivery_guarantee(DeliveryGuarantee.EXACTLY_ONCE)
    )
    with pytest.raises(ValueError, match="set_transactional_id_prefix"):
        builder.build()
    spec = builder.set_transactional_id_prefix("p").build().sink_spec()
    assert spec.guarantee == "EXACTLY_ONCE" and spec.executor_side


def test_a_record_serializer_needs_one_topic_choice_and_a_value_schema():
    with pytest.raises(ValueError, match="exactly one of set_topic and set_topic_selector"):
        KafkaRecordSerializationSchema.builder().set_value_serialization_schema(
            SimpleStringSchema()
        ).build()
    with pytest.raises(ValueError, match="set_value_serialization_schema"):
        KafkaRecordSerializationSchema.builder().set_topic("t").build()
    selected = (
        KafkaRecordSerializationSchema.builder()
        .set_topic_selector(lambda v: f"t-{v[0]}")
        .set_key_serialization_schema(SimpleStringSchema())
        .set_value_serialization_schema(SimpleStringSchema())
        .build()
    )
    assert selected._serializer.serialize("ab") == ("t-a", b"ab", b"ab")


def test_json_rows_both_ways():
    schema = JsonRowDeserializationSchema.builder().type_info(ROW).build()
    assert schema.deserialize(b'{"reading": 3, "sensor": "s1", "x": 1}') == Row(
        sensor="s1", reading=3
    )
    assert schema.deserialize(b'{"sensor": "s1"}') == Row(sensor="s1", reading=None)
    strict = JsonRowDeserializationSchema.builder().type_info(ROW).fail_on_missing_field().build()
    with pytest.raises(ValueError, match="reading missing"):
        strict.deserialize(b'{"sensor": "s1"}')
    with pytest.raises(ValueError, match="not a JSON object"):
        schema.deserialize(b"[1]")
    lenient = JsonRowDeserializationSchema.builder().type_info(ROW).ignore_parse_errors().build()
    assert lenient.deserialize(b"nope") is None
    out = JsonRowSerializationSchema.builder().with_type_info(ROW).build()
    assert out.serialize(Row(sensor="s1", reading=3)) == b'{"sensor":"s1","reading":3}'
    with pytest.raises(ValueError, match="row type"):
        JsonRowSerializationSchema.builder().build()


class _FakeBroker(KafkaReader):
    """A reader whose broker is a dict: {(topic, partition): (earliest, latest)}."""

    def __init__(self, partitions):
        super().__init__(_source_builder().set_topics("a").build().create_reader().config)
        self.broker = partitions

    def _partitions(self):
        return sorted(self.broker)

    def _watermarks(self, keys, high):
        return {key: self.broker[split_partition_key(key)][1 if high else 0] for key in keys}


def test_a_partition_found_while_running_is_read_from_its_earliest_offset():
    reader = _FakeBroker({("a", 0): (0, 5)})
    start = reader.initial_offset()
    first = reader.latest_offset(start)
    assert reader.splits(start, first) == [(0, "a:0", 0, 5, None)]
    reader.broker.update({("a", 0): (0, 6), ("a", 1): (2, 4)})
    second = reader.latest_offset(first)
    assert second["next"] == {"a:0": 6, "a:1": 4} and second["pos"] == 5 + 1 + 2
    assert reader.splits(first, second) == [(0, "a:0", 5, 6, None), (1, "a:1", 2, 4, None)]
    third = reader.latest_offset(second)
    assert "added" not in third and reader.splits(second, third) == []
