"""File sources and sinks, with PyFlink's builder names and plain shortcuts beside them."""

from weir.common.gaps import module_gaps
from weir.runtime.sinks import FileSinkSpec
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
        self.monitor_interval_ms = None
        self.max_files_per_batch = None
        self.type_info = None

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
        return FileReader(self.path, self.fmt, self.monitor_interval_ms, self.max_files_per_batch)

    class Builder:
        def __init__(self, source: "FileSource"):
            self._source = source

        def monitor_continuously(self, discovery_interval) -> "FileSource.Builder":
            self._source.monitor_interval_ms = discovery_interval.to_milliseconds()
            return self

        def process_static_file_set(self) -> "FileSource.Builder":
            self._source.monitor_interval_ms = None
            return self

        def set_max_files_per_batch(self, count: int) -> "FileSource.Builder":
            self._source.max_files_per_batch = count
            return self

        def build(self) -> "FileSource":
            return self._source


class FileSink:
    """Part files written once per micro-batch: exactly-once across restarts."""

    @staticmethod
    def for_row_format(base_path: str, encoder) -> "FileSink.Builder":
        return FileSink.Builder(base_path, "text", encoder=encoder)

    @staticmethod
    def for_json_lines(base_path: str) -> "FileSink.Builder":
        return FileSink.Builder(base_path, "json")

    @staticmethod
    def for_parquet(base_path: str, row_type) -> "FileSink.Builder":
        return FileSink.Builder(base_path, "parquet", type_info=row_type)

    class Builder:
        def __init__(self, base_path, fmt, type_info=None, encoder=None):
            self._args = dict(base_path=base_path, fmt=fmt, type_info=type_info,
                              encoder=encoder)

        def with_output_file_config(self, config: "OutputFileConfig") -> "FileSink.Builder":
            if not isinstance(config, OutputFileConfig):
                raise TypeError("with_output_file_config() expects an OutputFileConfig "
                                "(OutputFileConfig.builder()...build())")
            self._args["part_prefix"] = config.part_prefix
            self._args["part_suffix"] = config.part_suffix
            return self

        def with_rolling_policy(self, policy: "RollingPolicy") -> "FileSink.Builder":
            """Accepted for PyFlink's programs: weir rolls a part file per micro-batch
            (each checkpoint), whatever the policy's sizes and intervals."""
            if not isinstance(policy, RollingPolicy):
                raise TypeError("with_rolling_policy() expects a RollingPolicy")
            return self

        def build(self) -> FileSinkSpec:
            return FileSinkSpec(**self._args)


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
    """When a part file rolls (PyFlink's RollingPolicy). weir writes one part file per
    micro-batch, which is Flink's on-checkpoint rolling; the sizes are kept, not used."""

    def __init__(self, kind: str, **settings):
        self.kind = kind
        self.settings = settings

    @staticmethod
    def default_rolling_policy(part_size: int = 1024 * 1024 * 128,
                               rollover_interval: int = 60 * 1000,
                               inactivity_interval: int = 60 * 1000) -> "RollingPolicy":
        return RollingPolicy("default", part_size=part_size,
                             rollover_interval=rollover_interval,
                             inactivity_interval=inactivity_interval)

    @staticmethod
    def on_checkpoint_rolling_policy() -> "RollingPolicy":
        return RollingPolicy("on_checkpoint")


__getattr__ = module_gaps(__name__, "pyflink.datastream.connectors.file_system", [
    "BucketAssigner", "BulkFormat", "FileCompactStrategy", "FileCompactor",
    "FileEnumeratorProvider", "FileSourceBuilder", "FileSplitAssignerProvider",
    "StreamingFileSink"])
