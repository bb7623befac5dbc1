"""The Table API's connectors: what a `CREATE TABLE ... WITH ('connector' = ...)` or a
TableDescriptor names. A connector reads a table as a DataStream of (kind, values)
records (`source_stream`) or writes one (`sink`), on weir's DataStream connectors."""

from weir.table.casts import to_java_string
from weir.table.changelog import INSERT
from weir.table.evaluate import not_supported

_KINDS = ("+I", "-U", "+U", "-D")


class PrintLine:
    """A record as Flink's print connector writes it: `+I[a, 1]`."""

    def __init__(self, types=None):
        self.types = types

    def __call__(self, record):
        kind, values = record
        types = self.types or [None] * len(values)
        return f"{_KINDS[kind]}[{', '.join(to_java_string(v, t) for v, t in zip(values, types))}]"


class _AsRecord:
    def __init__(self, names):
        self.names = names

    def __call__(self, row):
        return INSERT, tuple(row[i] for i in range(len(self.names)))


class Connector:
    name = ""
    accepts_changelog = False  # whether a sink takes updates and deletes (else inserts)
    upsert_sink = False  # whether it writes a changelog as upserts by its primary key

    def __init__(self, options: dict, primary_key=()):
        self.options = dict(options)
        self.primary_key = list(primary_key)  # the table's (a sink's upsert key)
        self.partition_keys: list = []  # (a filesystem table's: connector_of sets them)

    def source_stream(self, env, path, columns):
        raise ValueError(f"table '{path}': the '{self.name}' connector cannot be read")

    def sink(self, stream, path, columns):
        raise ValueError(f"table '{path}': the '{self.name}' connector cannot be written")


class PrintConnector(Connector):
    name = "print"
    accepts_changelog = True

    def sink(self, stream, path, columns):
        identifier = self.options.get("print-identifier")
        lines = stream.map(PrintLine([c.data_type for c in columns])).name("Print")
        if self.options.get("standard-error", "false").lower() == "true":
            not_supported("the print connector's 'standard-error' option")
        return lines.print(identifier)


class BlackholeConnector(Connector):
    name = "blackhole"
    accepts_changelog = True

    def sink(self, stream, path, columns):
        return stream.filter(lambda record: False).name("BlackHole").print()


class DatagenConnector(Connector):
    name = "datagen"

    def source_stream(self, env, path, columns):
        from weir.table.datagen import datagen_source

        source = datagen_source(path, [(c.name, c.data_type) for c in columns], self.options)
        return (
            env.from_source(source, None, "datagen")
            .map(_AsRecord([c.name for c in columns]))
            .name(f"Source: {path}")
        )


class _ParseLine:
    """A line as a record, None where the format skips it (an empty line, an ignored
    parse error: `_parsed` drops those)."""

    def __init__(self, fmt, columns, path):
        self.fmt, self.columns, self.path = fmt, columns, str(path)

    def map(self, line):
        values = self.fmt.parse(line, self.columns, self.path)
        return None if values is None else (INSERT, values)


def _is_record(record) -> bool:
    return record is not None


def _parsed(lines, parse, path):
    """The records of `lines` (a map and a filter: two loops at C speed, where a flat_map
    makes a generator per line)."""
    return lines.map(parse).name(f"Parse: {path}").filter(_is_record).name(f"Parse: {path}")


class _FormatLine:
    def __init__(self, fmt, columns):
        self.fmt, self.columns = fmt, columns

    def __call__(self, record):
        kind, values = record
        if kind != INSERT:
            raise ValueError(
                "the filesystem sink takes inserts only; this table is a "
                "changelog (an aggregate's updates)"
            )
        return self.fmt.write(values, self.columns)


class FilesystemConnector(Connector):
    """Files of a path (a file or a directory) in csv, json or parquet; a sink writes
    part files into the directory, exactly once (weir's FileSink)."""

    name = "filesystem"

    def _format(self):
        from weir.table.formats import format_of

        return format_of(self.options)

    def _path(self, path):
        if "path" not in self.options:
            raise ValueError(f"filesystem table '{path}' needs its 'path' option")
        return self.options["path"]

    def source_stream(self, env, path, columns):
        if self.partition_keys:
            return self._partitions(env, path, columns)
        return self._files(env, path, columns, self._path(path))

    def _partitions(self, env, path, columns):
        """The union of the partitions' files, each with its values put back."""
        from weir.table import partitions

        keys = partitions.checked_keys(self.partition_keys, columns, path)
        found = partitions.discover(self._path(path), keys, path)
        if not found:
            return env.from_collection([]).name(f"Source: {path}")
        streams = [
            self._files(env, path, partitions.file_columns(columns, keys), directory)
            .map(partitions.partition_reader(columns, keys, spec))
            .name(f"Partition: {path}")
            for directory, spec in found
        ]
        return streams[0].union(*streams[1:]) if len(streams) > 1 else streams[0]

    def _files(self, env, path, columns, directory):
        from weir.datastream.connectors.file_system import FileSource, StreamFormat

        if self.options.get("format") == "parquet":
            from weir.table.parquet import ParquetRecord

            source = self._batches(FileSource.for_parquet(directory), path).build()
            rows = env.from_source(source, None, f"Source: {path}")
            return rows.map(ParquetRecord(columns, directory)).name(f"Parse: {path}")
        lines = (
            StreamFormat("csv-records")
            if self.options.get("format") == "csv"
            else StreamFormat.text_line_format()
        )  # (a csv record may span lines)
        source = self._batches(FileSource.for_record_stream_format(lines, directory), path).build()
        lines = env.from_source(source, None, f"Source: {path}")
        return _parsed(lines, _ParseLine(self._format(), columns, directory), path)

    def _batches(self, builder, path):
        """weir's own option `source.max-files-per-batch`: files read per micro-batch
        (FileSource's set_max_files_per_batch; Spark's maxFilesPerTrigger)."""
        count = self.options.get("source.max-files-per-batch")
        if count is None:
            return builder
        if not str(count).isdigit() or int(count) < 1:
            raise ValueError(
                f"table '{path}': 'source.max-files-per-batch' is a number of "
                f"files, at least 1, got '{count}'"
            )
        return builder.set_max_files_per_batch(int(count))

    def sink(self, stream, path, columns):
        from weir.common.serialization import Encoder
        from weir.datastream.connectors.file_system import BucketAssigner, FileSink

        if self.partition_keys:
            return self._partitioned_sink(stream, path, columns)
        target = self._path(path)
        if self.options.get("format") == "parquet":
            from weir.table.parquet import parquet_sink

            return parquet_sink(stream, target, columns)
        sink = (
            FileSink.for_row_format(target, Encoder.simple_string_encoder())
            .with_bucket_assigner(BucketAssigner.base_path_bucket_assigner())
            .build()
        )
        return stream.map(_FormatLine(self._format(), columns)).name("Format").sink_to(sink)

    def _partitioned_sink(self, stream, path, columns):
        """Each row's line into its partition's directory (csv and json)."""
        from weir.datastream.connectors.file_system import FileSink
        from weir.table import partitions

        if self.options.get("format") == "parquet":
            not_supported("writing a partitioned parquet table")
        keys = partitions.checked_keys(self.partition_keys, columns, path)
        lines = partitions.PartitionLine(
            _FormatLine(self._format(), partitions.file_columns(columns, keys)),
            columns,
            keys,
            self.options.get("partition.default-name", partitions.DEFAULT_NAME),
        )
        sink = (
            FileSink.for_row_format(self._path(path), partitions.LineEncoder())
            .with_bucket_assigner(partitions.PartitionBucket())
            .build()
        )
        return stream.map(lines).name("Format").sink_to(sink)


_STARTUP = {
    "earliest-offset": "earliest",
    "latest-offset": "latest",
    "group-offsets": "committed_offsets",
}


class KafkaConnector(Connector):
    """Flink's `kafka` table connector on weir's KafkaSource and KafkaSink: one topic,
    messages in the json, csv or raw format; a sink takes inserts only (a changelog goes
    to `upsert-kafka`: weir.table.upsert_kafka)."""

    name = "kafka"

    def _format(self):
        name = self.options.get("value.format", self.options.get("format"))
        from weir.table.formats import format_of

        return format_of({**self.options, "format": name})

    def _settings(self, path):
        for key in ("topic", "properties.bootstrap.servers"):
            if key not in self.options:
                raise ValueError(f"kafka table '{path}' needs its '{key}' option")
        if "key.format" in self.options or "key.fields" in self.options:
            not_supported("message keys (key.format, key.fields) of the kafka connector")
        return self.options["topic"], self.options["properties.bootstrap.servers"]

    def source_stream(self, env, path, columns):
        from weir.common.serialization import SimpleStringSchema
        from weir.datastream.connectors.kafka import KafkaOffsetsInitializer, KafkaSource

        topic, servers = self._settings(path)
        mode = self.options.get("scan.startup.mode", "group-offsets")
        if mode not in _STARTUP:
            not_supported(f"the kafka option scan.startup.mode = '{mode}'")
        builder = (
            KafkaSource.builder()
            .set_bootstrap_servers(servers)
            .set_topics(topic)
            .set_value_only_deserializer(SimpleStringSchema())
            .set_starting_offsets(getattr(KafkaOffsetsInitializer, _STARTUP[mode])())
        )
        if "properties.group.id" in self.options:
            builder = builder.set_group_id(self.options["properties.group.id"])
        builder = kafka_bounded(builder, self.options, self.name)
        lines = env.from_source(builder.build(), None, f"Source: {path}")
        return _parsed(lines, _ParseLine(self._format(), columns, topic), path)

    def sink(self, stream, path, columns):
        from weir.common.serialization import SimpleStringSchema
        from weir.datastream.connectors.kafka import KafkaRecordSerializationSchema

        topic, servers = self._settings(path)
        serializer = (
            KafkaRecordSerializationSchema.builder()
            .set_topic(topic)
            .set_value_serialization_schema(SimpleStringSchema())
            .build()
        )
        builder = kafka_sink_builder(path, self.options, servers, serializer)
        return (
            stream.map(_FormatLine(self._format(), columns)).name("Format").sink_to(builder.build())
        )


def kafka_bounded(builder, options, connector: str):
    """A KafkaSource builder bounded as a table's `scan.bounded.mode` says (unbounded, or
    the partitions' latest offsets when the job starts)."""
    from weir.datastream.connectors.kafka import KafkaOffsetsInitializer

    bounded = options.get("scan.bounded.mode", "unbounded")
    if bounded == "latest-offset":
        return builder.set_bounded(KafkaOffsetsInitializer.latest())
    if bounded != "unbounded":
        not_supported(f"the {connector} option scan.bounded.mode = '{bounded}'")
    return builder


def kafka_sink_builder(path, options, servers, serializer):
    """A KafkaSink builder of a table's sink options: `sink.delivery-guarantee` and
    `sink.transactional-id-prefix`."""
    from weir.datastream.connectors.kafka import DeliveryGuarantee, KafkaSink

    guarantee = options.get("sink.delivery-guarantee", "at-least-once")
    guarantees = {
        "at-least-once": DeliveryGuarantee.AT_LEAST_ONCE,
        "exactly-once": DeliveryGuarantee.EXACTLY_ONCE,
        "none": DeliveryGuarantee.NONE,
    }
    if guarantee not in guarantees:
        raise ValueError(
            f"table '{path}': sink.delivery-guarantee is one of "
            f"{', '.join(guarantees)}, got '{guarantee}'"
        )
    builder = (
        KafkaSink.builder()
        .set_bootstrap_servers(servers)
        .set_record_serializer(serializer)
        .set_delivery_guarantee(guarantees[guarantee])
    )
    if "sink.transactional-id-prefix" in options:
        builder = builder.set_transactional_id_prefix(options["sink.transactional-id-prefix"])
    return builder


CONNECTORS = {
    c.name: c
    for c in (
        PrintConnector,
        BlackholeConnector,
        DatagenConnector,
        FilesystemConnector,
        KafkaConnector,
    )
}


def connector_of(options: dict, primary_key=(), partition_keys=()) -> Connector:
    """The connector of a table's options; `primary_key`: its primary key's columns;
    `partition_keys`: its partition columns (filesystem tables only)."""
    from weir.table.jdbc_table import JdbcConnector
    from weir.table.upsert_kafka import UpsertKafkaConnector

    connectors = {
        **CONNECTORS,
        JdbcConnector.name: JdbcConnector,
        UpsertKafkaConnector.name: UpsertKafkaConnector,
    }
    name = options.get("connector")
    if name is None:
        raise ValueError("a table needs its 'connector' option")
    if name not in connectors:
        not_supported(f"the '{name}' table connector (weir has {', '.join(sorted(connectors))})")
    if partition_keys and name != FilesystemConnector.name:
        raise ValueError(
            f"a '{name}' table is not partitioned: PARTITIONED BY belongs to filesystem tables"
        )
    connector = connectors[name](
        {k: v for k, v in options.items() if k != "connector"}, primary_key
    )
    connector.partition_keys = list(partition_keys)
    return connector
