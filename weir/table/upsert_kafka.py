"""Flink's `upsert-kafka` table connector, as a sink, on weir's KafkaSink: a changelog
written as a compacted topic's messages, keyed by the table's primary key.

+I and +U rows become messages whose key is the primary key's fields (`key.format`) and
whose value is the row (`value.format`; `value.fields-include` = `EXCEPT_KEY` leaves the
key's fields out); -D rows become tombstones (the key, no value); -U rows are dropped.
Rows are shuffled by the key first, so one task writes each key's changes, in order, and
the producer partitions by the key's bytes with Java's partitioner (murmur2), as Flink's
does."""

from weir.common.serialization import SerializationSchema
from weir.datastream.functions import KeyedProcessFunction
from weir.table.changelog import DELETE, UPDATE_BEFORE
from weir.table.connectors import Connector, kafka_sink_builder
from weir.table.planner import KeyOf


class UpsertKafkaConnector(Connector):
    name = "upsert-kafka"
    accepts_changelog = True
    _OPTIONS = {"topic", "properties.bootstrap.servers", "key.format", "value.format",
                "value.fields-include", "sink.delivery-guarantee",
                "sink.transactional-id-prefix", "sink.parallelism",
                "sink.buffer-flush.max-rows", "sink.buffer-flush.interval"}

    def source_stream(self, env, path, columns):
        from weir.table.evaluate import not_supported
        not_supported("reading an upsert-kafka table (weir writes one)")

    def sink(self, stream, path, columns):
        from weir.datastream.connectors.kafka import KafkaRecordSerializationSchema
        self._check(path)
        names = [c.name for c in columns]
        keys = [names.index(k) for k in self.primary_key]
        values = [i for i in range(len(columns)) if i not in keys] \
            if self.options.get("value.fields-include", "ALL") == "EXCEPT_KEY" \
            else list(range(len(columns)))
        serializer = KafkaRecordSerializationSchema.builder().set_topic(self.options["topic"]) \
            .set_key_serialization_schema(_Part(0)) \
            .set_value_serialization_schema(_Part(1)).build()
        builder = kafka_sink_builder(path, self.options,
                                     self.options["properties.bootstrap.servers"], serializer) \
            .set_property("partitioner", "murmur2_random")
        for key, value in self.options.items():  # the producer's own settings
            if key.startswith("properties.") and key != "properties.bootstrap.servers":
                builder = builder.set_property(key[len("properties."):], value)
        messages = _Messages(self._format("key.format"), [columns[i] for i in keys], keys,
                             self._format("value.format"), [columns[i] for i in values],
                             values)
        return stream.key_by(KeyOf.at(keys)).process(messages).name("UpsertMessages") \
            .sink_to(builder.build())

    def _check(self, path):
        formats = tuple(f"{side}.{self.options.get(side + '.format')}."
                        for side in ("key", "value"))
        unknown = sorted(o for o in set(self.options) - self._OPTIONS
                         if not o.startswith(("properties.",) + formats))
        if unknown:
            raise ValueError(f"table '{path}': the upsert-kafka connector has no option "
                             f"{', '.join(repr(o) for o in unknown)}")
        for option in ("topic", "properties.bootstrap.servers", "key.format",
                       "value.format"):
            if option not in self.options:
                raise ValueError(f"table '{path}': the upsert-kafka connector needs the "
                                 f"option '{option}'")
        if not self.primary_key:
            raise ValueError(f"table '{path}': 'upsert-kafka' tables require to define a "
                             "PRIMARY KEY constraint: its messages are keyed by it")

    def _format(self, option):
        """The key's or value's format, with its own options (`key.json.*`)."""
        from weir.table.formats import format_of
        name = self.options[option]
        prefix = f"{option.split('.')[0]}.{name}."
        own = {name + "." + k[len(prefix):]: v for k, v in self.options.items()
               if k.startswith(prefix)}
        return format_of({**own, "format": name})


class _Messages(KeyedProcessFunction):
    """(key text, value text or None for a tombstone) of each change but a -U."""

    def __init__(self, key_format, key_columns, keys, value_format, value_columns, values):
        self.key_format, self.key_columns, self.keys = key_format, key_columns, keys
        self.value_format, self.value_columns = value_format, value_columns
        self.values = values

    def process_element(self, record, ctx):
        kind, row = record
        if kind == UPDATE_BEFORE:
            return
        key = self.key_format.write([row[i] for i in self.keys], self.key_columns)
        if kind == DELETE:
            yield key, None
        else:
            yield key, self.value_format.write([row[i] for i in self.values],
                                               self.value_columns)


class _Part(SerializationSchema):
    """A message's key (0) or value (1) text as UTF-8 bytes; None stays None."""

    def __init__(self, index):
        self.index = index

    def serialize(self, element):
        text = element[self.index]
        return None if text is None else text.encode("utf-8")
