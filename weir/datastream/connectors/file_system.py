"""File sources and sinks, with PyFlink's builder names and plain shortcuts beside them."""

from typing import Optional

from weir.common.gaps import module_gaps
from weir.datastream.connectors.base import dead_letter_tag_id
from weir.runtime.connectors.file_sink import DateTimeBucketAssigner, FileSinkSpec
from weir.runtime.sources import FileReader


class StreamFormat:
    def __init__(self, fmt: str):
        self.fmt = fmt

    @staticmethod
    def text_line_format(charset_name: str = "UTF-8") -> "StreamFormat":
        return StreamFormat("text")


class FileSource:
    """Files of a directory (or one file), in modification-time order.

    Bounded by default; `monitor_continuously(Duration)` keeps watching for new files.
    """

    def __init__(self, path: str, fmt: str):
        self.path = path
        self.fmt = fmt
        self.monitor_interval_ms: Optional[int] = None
        self.max_files_per_batch: Optional[int] = None
        self.type_info = None
        self.dead_letter_tag: Optional[str] = None

    @staticmethod
    def for_record_stream_format(stream_format: StreamFormat, *paths) -> "FileSource.Builder":
        if len(paths) != 1:
            raise ValueError("weir's FileSource reads exactly one path (a file or directory)")
        return FileSource.Builder(FileSource(paths[0], stream_format.fmt))

    @staticmethod
    def for_parquet(path: str) -> "FileSource.Builder":
        return FileSource.Builder(FileSource(path, "parquet"))

    @staticmethod
    def for_csv(path: str) -> "FileSource.Builder":
        return FileSource.Builder(FileSource(path, "csv"))

    @staticmethod
    def for_json_lines(path: str) -> "FileSource.Builder":
        return FileSource.Builder(FileSource(path, "json"))

    def create_reader(self):
        return FileReader(
            self.path,
            self.fmt,
            self.monitor_interval_ms,
            self.max_files_per_batch,
            self.dead_letter_tag,
        )

    class Builder:
        def __init__(self, source: "FileSource"):
            self._source = source

        def monitor_continuously(self, discovery_interval) -> "FileSource.Builder":
            self._source.monitor_interval_ms = discovery_interval.to_milliseconds()
            return self

        def process_static_file_set(self) -> "FileSource.Builder":
            self._source.monitor_interval_ms = None
            return self

        def set_dead_letter_output(self, output_tag) -> "FileSource.Builder":
            """JSON lines only: a line that is no JSON object goes to this side output of
            the source's stream instead of failing the job (position: 'file:line'; see
            connectors.base.dead_letter_tag_id)."""
            self._source.dead_letter_tag = dead_letter_tag_id(output_tag)
            return self

        def set_max_files_per_batch(self, count: int) -> "FileSource.Builder":
            self._source.max_files_per_batch = count
            return self

        def build(self) -> "FileSource":
            return self._source


class FileSink:
    """Part files written by the tasks, finished when their micro-batch commits:
    exactly-once across restarts (weir.runtime.connectors.file_sink)."""

    @staticmethod
    def for_row_format(base_path: str, encoder) -> "FileSink.RowFormatBuilder":
        """Records as an encoder's lines, bucketed by the hour as Flink's
        (`with_bucket_assigner` to change it)."""
        return FileSink.RowFormatBuilder(
            base_path, "text", encoder=encoder, bucket_assigner=DateTimeBucketAssigner()
        )

    @staticmethod
    def for_bulk_format(base_path: str, writer_factory) -> "FileSink.BulkFormatBuilder":
        """Records in a bulk format (`ParquetBulkWriters.for_row_type(row_type)`),
        bucketed by the hour as Flink's."""
        fmt = getattr(writer_factory, "fmt", None)
        if fmt != "parquet":
            raise TypeError(
                "for_bulk_format() expects a bulk writer factory, e.g. "
                "ParquetBulkWriters.for_row_type(row_type)"
            )
        return FileSink.BulkFormatBuilder(
            base_path,
            fmt,
            type_info=writer_factory.row_type,
            bucket_assigner=DateTimeBucketAssigner(),
        )

    @staticmethod
    def for_json_lines(base_path: str) -> "FileSink.RowFormatBuilder":
        """weir's shortcut: JSON lines, in the base path itself."""
        return FileSink.RowFormatBuilder(base_path, "json")

    @staticmethod
    def for_parquet(base_path: str, row_type) -> "FileSink.BulkFormatBuilder":
        """weir's shortcut: Parquet files of `row_type`, in the base path itself."""
        return FileSink.BulkFormatBuilder(base_path, "parquet", type_info=row_type)

    class RowFormatBuilder:
        def __init__(self, base_path, fmt, **args):
            self._args = dict(base_path=base_path, fmt=fmt, **args)

        def with_output_file_config(self, config: "OutputFileConfig"):
            if not isinstance(config, OutputFileConfig):
                raise TypeError(
                    "with_output_file_config() expects an OutputFileConfig "
                    "(OutputFileConfig.builder()...build())"
                )
            self._args["part_prefix"] = config.part_prefix
            self._args["part_suffix"] = config.part_suffix
            return self

        def with_bucket_assigner(self, assigner):
            """BucketAssigner.base_path_bucket_assigner(), date_time_bucket_assigner(...),
            or (weir) any object with `get_bucket_id(element, context) -> str`."""
            if not callable(getattr(assigner, "get_bucket_id", None)):
                raise TypeError(
                    "with_bucket_assigner() expects a BucketAssigner or an "
                    "object with get_bucket_id(element, context)"
                )
            self._args["bucket_assigner"] = getattr(assigner, "assigner", assigner)
            return self

        def with_bucket_check_interval(self, interval: int):
            """Accepted for PyFlink's programs: weir checks rolling with every record."""
            return self

        def with_rolling_policy(self, policy: "RollingPolicy"):
            """A part file rolls at every micro-batch (Flink's checkpoint) and, with the
            default policy, once it holds `part_size` bytes; weir does not keep a part
            file open across micro-batches, so the time intervals never roll later."""
            if not isinstance(policy, RollingPolicy):
                raise TypeError("with_rolling_policy() expects a RollingPolicy")
            self._args["part_size"] = policy.settings.get("part_size")
            return self

        def build(self) -> FileSinkSpec:
            return FileSinkSpec(**self._args)

    class BulkFormatBuilder(RowFormatBuilder):
        def with_rolling_policy(self, policy: "RollingPolicy"):
            """Bulk formats roll on every checkpoint (micro-batch) only, as Flink's."""
            if not isinstance(policy, RollingPolicy) or policy.kind != "on_checkpoint":
                raise TypeError(
                    "a bulk format rolls on checkpoints only: "
                    "with_rolling_policy(RollingPolicy.on_checkpoint_rolling_"
                    "policy())"
                )
            return self


class BucketAssigner:
    """Which subdirectory of the base path a record's part file is in (PyFlink's
    BucketAssigner)."""

    def __init__(self, assigner):
        self.assigner = assigner

    def get_bucket_id(self, element, context):
        return "" if self.assigner is None else self.assigner.get_bucket_id(element, context)

    @staticmethod
    def base_path_bucket_assigner() -> "BucketAssigner":
        return BucketAssigner(None)

    @staticmethod
    def date_time_bucket_assigner(
        format_str: str = "yyyy-MM-dd--HH", timezone_id: Optional[str] = None
    ) -> "BucketAssigner":
        """Buckets by processing time in a Java DateTimeFormatter pattern."""
        return BucketAssigner(DateTimeBucketAssigner(format_str, timezone_id))


class OutputFileConfig:
    """The part files' name prefix and suffix (PyFlink's OutputFileConfig)."""

    def __init__(self, part_prefix: str = "part", part_suffix: str = ""):
        self.part_prefix = part_prefix
        self.part_suffix = part_suffix

    @staticmethod
    def builder() -> "OutputFileConfig.OutputFileConfigBuilder":
        return OutputFileConfig.OutputFileConfigBuilder()

    def get_part_prefix(self) -> str:
        return self.part_prefix

    def get_part_suffix(self) -> str:
        return self.part_suffix

    class OutputFileConfigBuilder:
        def __init__(self):
            self._prefix, self._suffix = "part", ""

        def with_part_prefix(self, prefix: str) -> "OutputFileConfig.OutputFileConfigBuilder":
            if not isinstance(prefix, str) or not prefix or "/" in prefix:
                raise ValueError(f"a part prefix is a non-empty file name part, got {prefix!r}")
            self._prefix = prefix
            return self

        def with_part_suffix(self, suffix: str) -> "OutputFileConfig.OutputFileConfigBuilder":
            if not isinstance(suffix, str) or "/" in suffix:
                raise ValueError(f"a part suffix is a file name part, got {suffix!r}")
            self._suffix = suffix
            return self

        def build(self) -> "OutputFileConfig":
            return OutputFileConfig(self._prefix, self._suffix)


class RollingPolicy:
    """When a part file rolls (PyFlink's RollingPolicy): at every micro-batch (Flink's
    checkpoint) and, for the default policy, once it holds `part_size` bytes."""

    def __init__(self, kind: str, **settings):
        self.kind = kind
        self.settings = settings

    @staticmethod
    def default_rolling_policy(
        part_size: int = 1024 * 1024 * 128,
        rollover_interval: int = 60 * 1000,
        inactivity_interval: int = 60 * 1000,
    ) -> "RollingPolicy":
        return RollingPolicy(
            "default",
            part_size=part_size,
            rollover_interval=rollover_interval,
            inactivity_interval=inactivity_interval,
        )

    @staticmethod
    def on_checkpoint_rolling_policy() -> "RollingPolicy":
        return RollingPolicy("on_checkpoint")


__getattr__ = module_gaps(
    __name__,
    "pyflink.datastream.connectors.file_system",
    [
        "BulkFormat",
        "FileCompactStrategy",
        "FileCompactor",
        "FileEnumeratorProvider",
        "FileSourceBuilder",
        "FileSplitAssignerProvider",
        "StreamingFileSink",
    ],
)
