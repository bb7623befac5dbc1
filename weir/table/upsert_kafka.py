"""Flink's `upsert-kafka` table connector on weir's KafkaSink and KafkaSource: a
changelog as a compacted topic's messages, keyed by the table's primary key.

Written: +I and +U rows become messages whose key is the primary key's fields
(`key.format`) and whose value is the row (`value.format`; `value.fields-include` =
`EXCEPT_KEY` leaves the key's fields out); -D rows become tombstones (the key, no value);
-U rows are dropped. Rows are shuffled by the key first, so one task writes each key's
changes, in order, and the producer partitions by the key's bytes with Java's partitioner
(murmur2), as Flink's does.

Read (from the topic's start, as Flink's): each message is an upsert of its key's row, a
tombstone its delete, and, as Flink's planner adds a ChangelogNormalize after the source,
the table's changelog is each key's: +I for its first row, -U of the row before and +U
for a changed one (a message repeating the key's row changes nothing), -D of the last
row for a tombstone (one for a key with no row changes nothing)."""

from weir.common.serialization import SerializationSchema
from weir.common.typeinfo import Types
from weir.datastream.functions import KeyedProcessFunction
from weir.datastream.state import ValueStateDescriptor
from weir.table.changelog import DELETE, INSERT, UPDATE_AFTER, UPDATE_BEFORE
from weir.table.connectors import Connector, kafka_bounded, kafka_sink_builder
from weir.table.planner import KeyOf


class UpsertKafkaConnector(Connector):
    name = "upsert-kafka"
    accepts_changelog = True
    upsert_sink = True
    _OPTIONS = {
        "topic",
        "properties.bootstrap.servers",
        "key.format",
        "value.format",
        "value.fields-include",
        "sink.delivery-guarantee",
        "sink.transactional-id-prefix",
        "sink.parallelism",
        "sink.buffer-flush.max-rows",
        "sink.buffer-flush.interval",
        "scan.bounded.mode",
    }
    produces_changelog = True  # (read: each key's upserts and deletes)

    def source_stream(self, env, path, columns):
        from weir.datastream.connectors.kafka import KafkaOffsetsInitializer, KafkaSource

        self._check(path)
        keys, values = self._fields(columns)
        builder = (
            KafkaSource.builder()
            .set_topics(self.options["topic"])
            .set_bootstrap_servers(self.options["properties.bootstrap.servers"])
            .set_starting_offsets(KafkaOffsetsInitializer.earliest())
            .set_deserializer(
                _Upserts(
                    self._format("key.format"),
                    [columns[i] for i in keys],
                    keys,
                    self._format("value.format"),
                    [columns[i] for i in values],
                    values,
                    len(columns),
                    path,
                )
            )
        )
        builder = kafka_bounded(self._with_properties(builder), self.options, self.name)
        return (
            env.from_source(builder.build(), None, f"Source: {path}")
            .key_by(KeyOf.at(keys))
            .process(ChangelogNormalize())
            .name("ChangelogNormalize")
        )

    def _with_properties(self, builder):
        """`builder` (a KafkaSource's or KafkaSink's) with the client's own settings, the
        table's `properties.*` options."""
        for key, value in self.options.items():
            if key.startswith("properties.") and key != "properties.bootstrap.servers":
                builder = builder.set_property(key[len("properties.") :], value)
        return builder

    def _fields(self, columns):
        """(indexes of the key's columns, of the value's) in the table's columns."""
        names = [c.name for c in columns]
        keys = [names.index(k) for k in self.primary_key]
        values = (
            [i for i in range(len(columns)) if i not in keys]
            if self.options.get("value.fields-include", "ALL") == "EXCEPT_KEY"
            else list(range(len(columns)))
        )
        return keys, values

    def sink(self, stream, path, columns):
        from weir.datastream.connectors.kafka import KafkaRecordSerializationSchema

        self._check(path)
        keys, values = self._fields(columns)
        serializer = (
            KafkaRecordSerializationSchema.builder()
            .set_topic(self.options["topic"])
            .set_key_serialization_schema(_Part(0))
            .set_value_serialization_schema(_Part(1))
            .build()
        )
        builder = kafka_sink_builder(
            path, self.options, self.options["properties.bootstrap.servers"], serializer
        ).set_property("partitioner", "murmur2_random")
        builder = self._with_properties(builder)
        messages = _Messages(
            self._format("key.format"),
            [columns[i] for i in keys],
            keys,
            self._format("value.format"),
            [columns[i] for i in values],
            values,
        )
        return (
            stream.key_by(KeyOf.at(keys))
            .process(messages)
            .name("UpsertMessages")
            .sink_to(builder.build())
        )

    def _check(self, path):
        formats = tuple(
            f"{side}.{self.options.get(side + '.format')}." for side in ("key", "value")
        )
        unknown = sorted(
            o
            for o in set(self.options) - self._OPTIONS
            if not o.startswith(("properties.",) + formats)
        )
        if unknown:
            raise ValueError(
                f"table '{path}': the upsert-kafka connector has no option "
                f"{', '.join(repr(o) for o in unknown)}"
            )
        for option in ("topic", "properties.bootstrap.servers", "key.format", "value.format"):
            if option not in self.options:
                raise ValueError(
                    f"table '{path}': the upsert-kafka connector needs the option '{option}'"
                )
        if not self.primary_key:
            raise ValueError(
                f"table '{path}': 'upsert-kafka' tables require to define a "
                "PRIMARY KEY constraint: its messages are keyed by it"
            )

    def _format(self, option):
        """The key's or value's format, with its own options (`key.json.*`)."""
        from weir.table.formats import format_of

        name = self.options[option]
        prefix = f"{option.split('.')[0]}.{name}."
        own = {
            name + "." + k[len(prefix) :]: v
            for k, v in self.options.items()
            if k.startswith(prefix)
        }
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
            yield key, self.value_format.write([row[i] for i in self.values], self.value_columns)


class _Part(SerializationSchema):
    """A message's key (0) or value (1) text as UTF-8 bytes; None stays None."""

    def __init__(self, index):
        self.index = index

    def serialize(self, element):
        text = element[self.index]
        return None if text is None else text.encode("utf-8")


class _Upserts:
    """A message as a change of the table's row (weir.datastream's record deserializer):
    its value's row as +U, the key's fields from its key (where the value leaves them
    out: EXCEPT_KEY); a tombstone as -D of the key's fields (the rest NULL)."""

    def __init__(
        self, key_format, key_columns, keys, value_format, value_columns, values, width, path
    ):
        self.key_format, self.key_columns, self.keys = key_format, key_columns, keys
        self.value_format, self.value_columns = value_format, value_columns
        self.values, self.width, self.path = values, width, str(path)

    def deserialize_record(self, key, value):
        row = [None] * self.width
        if key is not None:
            parsed = self.key_format.parse(
                key.decode("utf-8"), self.key_columns, f"{self.path} (key)"
            )
            for index, field in zip(self.keys, parsed or ()):
                row[index] = field
        if value is None:
            return DELETE, tuple(row)
        parsed = self.value_format.parse(value.decode("utf-8"), self.value_columns, self.path)
        if parsed is None:  # (a parse error the format ignores)
            return None
        for index, field in zip(self.values, parsed):
            row[index] = field
        return UPDATE_AFTER, tuple(row)


class ChangelogNormalize(KeyedProcessFunction):
    """Upserts and deletes of a key (+I/+U, -U/-D) as a changelog: +I of the key's first
    row; -U of the row before, +U of the new one, for a change (none for a row equal to
    the one before); -D of the key's row (a delete may carry the key alone) for a delete
    of a key that has one. Flink's ChangelogNormalize, with its state kept forever (no
    state TTL)."""

    def open(self, runtime_context):
        self.last = runtime_context.get_state(
            ValueStateDescriptor("last-row", Types.PICKLED_BYTE_ARRAY())
        )

    def process_element(self, record, ctx):
        kind, row = record
        before = self.last.value()
        if kind == INSERT or kind == UPDATE_AFTER:
            if before is None:
                yield INSERT, row
            elif before == row:
                return
            else:
                yield UPDATE_BEFORE, before
                yield UPDATE_AFTER, row
            self.last.update(row)
        elif before is not None:
            self.last.clear()
            yield DELETE, before
