"""PyFlink's Kafka connector (`pyflink.datastream.connectors.kafka`): not in weir yet; each
name raises NotImplementedError."""

from weir.common.gaps import module_gaps

__getattr__ = module_gaps(__name__, "pyflink.datastream.connectors.kafka", [
    "KafkaSource", "KafkaSourceBuilder", "KafkaSink", "KafkaSinkBuilder",
    "KafkaOffsetsInitializer", "KafkaOffsetResetStrategy",
    "KafkaRecordSerializationSchema", "KafkaRecordSerializationSchemaBuilder",
    "KafkaTopicPartition", "KafkaTopicSelector", "FlinkKafkaConsumer",
    "FlinkKafkaProducer", "Semantic"])
