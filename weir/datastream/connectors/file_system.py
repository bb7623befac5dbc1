"""File sources and sinks, with PyFlink's builder names and plain shortcuts beside them."""

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

        def with_output_file_config(self, config) -> "FileSink.Builder":
            self._args["part_prefix"] = getattr(config, "part_prefix", "part")
            return self

        def with_rolling_policy(self, policy) -> "FileSink.Builder":
            return self

        def build(self) -> FileSinkSpec:
            return FileSinkSpec(**self._args)
