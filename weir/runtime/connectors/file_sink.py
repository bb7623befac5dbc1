"""Part files written by the tasks, visible once their micro-batch commits (Flink's
FileSink: in-progress -> pending -> finished).

Each task writes its records of micro-batch b into hidden in-progress files, one per
bucket (a subdirectory chosen per record by the bucket assigner) and rolled by size for
row formats. When the task finishes, its files are closed (pending) and named to the
driver as committables; once every task has finished, the driver renames each to its
finished name before the micro-batch commits. Names are fixed by (batch, task, bucket,
counter), so a replayed batch writes and renames the same files again: a restart never
duplicates a record, and a reader of finished files never sees a partial one.
"""

from __future__ import annotations

import json
import os
import re
import time
from datetime import datetime, tzinfo
from typing import TYPE_CHECKING, Any, BinaryIO, Dict, List, Optional, Tuple

from weir.runtime.connectors.sink_base import BatchWriter

if TYPE_CHECKING:
    from typing import Protocol

    from weir.common.serialization import Encoder
    from weir.common.typeinfo import RowTypeInfo, TypeInformation

    class _BucketAssigner(Protocol):
        """A BucketAssigner (DateTimeBucketAssigner, or the user's)."""

        def get_bucket_id(self, value: Any, context: BucketContext) -> object: ...


FORMATS = ("json", "parquet", "text")
EXTENSIONS = {"json": ".json", "parquet": ".parquet", "text": ".txt"}


class FileSinkSpec:
    """A file sink: `fmt` 'json' (JSON lines), 'parquet' (needs a row type) or 'text' (an
    encoder's bytes); `bucket_assigner` None (the base path) or an assigner below;
    `part_size` the bytes after which a row format's part file rolls (None: one file per
    bucket, task and micro-batch)."""

    executor_side = True

    def __init__(
        self,
        base_path: str,
        fmt: str,
        type_info: Optional[TypeInformation] = None,
        encoder: Optional[Encoder] = None,
        part_prefix: str = "part",
        part_suffix: Optional[str] = None,
        record_type: Optional[TypeInformation] = None,
        bucket_assigner: Optional[_BucketAssigner] = None,
        part_size: Optional[int] = None,
    ) -> None:
        if fmt not in FORMATS:
            raise ValueError(f"unknown file sink format '{fmt}', expected one of {FORMATS}")
        if fmt == "parquet" and type_info is None:
            raise ValueError("a Parquet file sink needs a row type (type_info)")
        self.base_path = os.path.abspath(base_path)
        self.fmt = fmt
        self.type_info = type_info
        self.encoder = encoder
        self.part_prefix = part_prefix
        self.part_suffix = EXTENSIONS[fmt] if part_suffix is None else part_suffix
        self.record_type = record_type  # the stream's declared type: an encoder's text
        self.bucket_assigner = bucket_assigner
        self.part_size = part_size

    def batch_writer(self, uid: str, job: str, batch_id: int, task: int) -> FileWriter:
        return FileWriter(self, uid, job, batch_id, task)

    def commit(self, batch_id: int, committables: List[Tuple[str, str]]) -> None:
        """Finishes the pending files of every task of `batch_id` (on the driver, before
        the micro-batch commits). Idempotent: a file already finished by an earlier
        attempt of this commit is left as it is; one an earlier attempt finished that this
        attempt does not write (a restart at another parallelism replays the batch with
        other tasks) is removed."""
        self._remove_stale(committables)
        for pending, finished in committables:
            if os.path.exists(pending):
                os.replace(pending, finished)
            elif not os.path.exists(finished):
                raise FileNotFoundError(
                    f"file sink {self.base_path}: the pending part file {pending} of "
                    f"micro-batch {batch_id} is gone before its commit"
                )

    def _remove_stale(self, committables: List[Tuple[str, str]]) -> None:
        """Finished files of an earlier attempt of this micro-batch that this attempt
        does not write again (checked once per run: only a run's first micro-batch can be
        a replay of one an earlier run did not commit)."""
        if getattr(self, "_replay_checked", False):
            return
        self._replay_checked = True
        keep = {finished for _, finished in committables}
        for directory, stem in {_batch_stem(finished, self.part_suffix) for finished in keep}:
            for name in os.listdir(directory):
                path = os.path.join(directory, name)
                if name.startswith(stem) and path not in keep:
                    os.remove(path)

    def bucket_of(self, value: Any, context: BucketContext) -> str:
        if self.bucket_assigner is None:
            return ""
        return checked_bucket(self.bucket_assigner.get_bucket_id(value, context))


def checked_bucket(bucket: object) -> str:
    """A bucket id: a relative directory under the base path."""
    if not isinstance(bucket, str):
        raise TypeError(f"a bucket id is a str, got {bucket!r}")
    parts = bucket.split("/")
    if bucket.startswith("/") or ".." in parts:
        raise ValueError(f"a bucket id is a directory under the base path, got {bucket!r}")
    return bucket


class BucketContext:
    """What a bucket assigner knows of the record (Flink's BucketAssigner.Context)."""

    def current_processing_time(self) -> int:
        return int(time.time() * 1000)

    def timestamp(self) -> None:
        return None  # record timestamps do not reach sinks yet


class DateTimeBucketAssigner:
    """Buckets by the processing time a record is written, formatted with a Java
    DateTimeFormatter pattern (Flink's default: 'yyyy-MM-dd--HH', in the local zone)."""

    def __init__(
        self, format_str: str = "yyyy-MM-dd--HH", timezone_id: Optional[str] = None
    ) -> None:
        self.format_str = format_str
        self.strftime = java_to_strftime(format_str)
        self.timezone_id = timezone_id
        self._zone()  # an unknown zone fails here, not in a task

    def _zone(self) -> Optional[tzinfo]:
        if self.timezone_id is None:
            return None
        from zoneinfo import ZoneInfo

        return ZoneInfo(self.timezone_id)

    def get_bucket_id(self, value: Any, context: BucketContext) -> str:
        second = context.current_processing_time() // 1000
        cached = getattr(self, "_cached", None)
        if cached is None or cached[0] != second:
            stamp = datetime.fromtimestamp(second, self._zone()).strftime(self.strftime)
            self._cached = cached = (second, stamp)
        return cached[1]


_PATTERN_LETTERS = {
    "yyyy": "%Y",
    "yy": "%y",
    "MM": "%m",
    "dd": "%d",
    "HH": "%H",
    "mm": "%M",
    "ss": "%S",
}


_TOKEN = re.compile(r"'([^']*)'|(([A-Za-z])\3*)|([^A-Za-z']+)")


def java_to_strftime(pattern: str) -> str:
    """A Java DateTimeFormatter pattern of years, months, days, hours, minutes and
    seconds ('yyyy-MM-dd--HH', quoted 'text' literal) as a strftime format."""
    out: List[str]
    out, at = [], 0
    for token in _TOKEN.finditer(pattern):
        if token.start() != at:
            break
        at = token.end()
        quoted, letters, _, literal = token.groups()
        if letters is not None:
            if letters not in _PATTERN_LETTERS:
                raise ValueError(
                    f"date-time bucket format {pattern!r}: '{letters}' is not "
                    f"supported (use {', '.join(_PATTERN_LETTERS)})"
                )
            out.append(_PATTERN_LETTERS[letters])
        else:
            text = literal if quoted is None else (quoted or "'")
            out.append(text.replace("%", "%%"))
    if at != len(pattern):
        raise ValueError(f"date-time bucket format {pattern!r}: an unclosed quote")
    return "".join(out)


class _PartFile:
    """One open in-progress part file of a bucket."""

    def __init__(self, spec: FileSinkSpec, directory: str, name: str) -> None:
        os.makedirs(directory, exist_ok=True)
        self.finished = os.path.join(directory, name)
        self.pending = os.path.join(directory, f".{name}.inprogress")
        self.handle: Optional[BinaryIO] = (
            None if spec.fmt == "parquet" else open(self.pending, "wb")
        )
        self.parquet: Any = None  # a Parquet part's pyarrow ParquetWriter, on first write

    def close(self) -> None:
        """Makes the part durable; a second call does nothing (an abort after finish)."""
        parquet, handle = self.parquet, self.handle
        self.parquet = self.handle = None
        if parquet is not None:
            parquet.close()
        if handle is not None:
            with handle:
                handle.flush()
                os.fsync(handle.fileno())

    def discard(self) -> None:
        try:
            self.close()
        finally:
            if os.path.exists(self.pending):
                os.remove(self.pending)


def _batch_stem(finished: str, suffix: str) -> Tuple[str, str]:
    """(directory, `<prefix>-<job>-<uid>-<batch>-`) of a finished part file's path."""
    name = os.path.basename(finished)
    name = name[: -len(suffix)] if suffix and name.endswith(suffix) else name
    stem = name.rsplit("-", 2)[0]
    return os.path.dirname(finished), stem + "-"


class FileWriter(BatchWriter):
    """A task's part files of one micro-batch."""

    def __init__(self, spec: FileSinkSpec, uid: str, job: str, batch_id: int, task: int) -> None:
        super().__init__(uid, job, batch_id, task)
        self.spec = spec
        self.context = BucketContext()
        self.open: Dict[str, _PartFile] = {}  # bucket -> its _PartFile being written
        self.closed: List[_PartFile] = []
        self.counters: Dict[str, int] = {}
        # (a Parquet sink has a row type: FileSinkSpec requires one)
        self.schema = (
            arrow_schema(spec.type_info)  # type: ignore[arg-type]
            if spec.fmt == "parquet"
            else None
        )

    def write(self, values: List[Any], timestamps: Optional[List[Optional[int]]] = None) -> None:
        spec = self.spec
        if spec.type_info is not None:
            for value in values:
                spec.type_info.validate(value)
        if spec.bucket_assigner is None:
            self._write_bucket("", values)
        else:
            buckets: Dict[str, List[Any]] = {}
            for value in values:
                buckets.setdefault(spec.bucket_of(value, self.context), []).append(value)
            for bucket, grouped in buckets.items():
                self._write_bucket(bucket, grouped)
        self.written += len(values)

    def _write_bucket(self, bucket: str, values: List[Any]) -> None:
        part = self.open.get(bucket) or self._roll(bucket)
        if self.spec.fmt == "parquet":
            self._write_parquet(part, values)
            return
        assert part.handle is not None  # (a row format's part file is open)
        part.handle.write(encode_rows(self.spec, values))
        if self.spec.part_size is not None and part.handle.tell() >= self.spec.part_size:
            self._roll(bucket)

    def _roll(self, bucket: str) -> _PartFile:
        """Closes the bucket's open part file (if any) and opens its next one."""
        done = self.open.pop(bucket, None)
        if done is not None:
            done.close()
            self.closed.append(done)
        counter = self.counters.get(bucket, 0)
        self.counters[bucket] = counter + 1
        spec = self.spec
        # (the job's identity: a job started afresh, or from a savepoint, counts its
        # micro-batches from 0 again and must not replace an earlier run's files; the
        # sink's uid: two sinks may write to one directory)
        name = (
            f"{spec.part_prefix}-{self.job}-{self.uid}-{self.batch_id:010d}-{self.task}-"
            f"{counter}{spec.part_suffix}"
        )
        part = self.open[bucket] = _PartFile(spec, os.path.join(spec.base_path, bucket), name)
        return part

    def _write_parquet(self, part: _PartFile, values: List[Any]) -> None:
        import pyarrow as pa
        import pyarrow.parquet as pq

        schema = self.schema
        assert schema is not None  # (a Parquet sink's, from its row type)
        rows = [
            v.as_dict() if hasattr(v, "as_dict") else dict(zip(schema.names, v)) for v in values
        ]
        if part.parquet is None:
            part.parquet = pq.ParquetWriter(part.pending, schema)
        part.parquet.write_table(pa.Table.from_pylist(rows, schema=schema))

    def finish(self) -> List[Tuple[str, str]]:
        for bucket in list(self.open):
            part = self.open.pop(bucket)
            part.close()
            self.closed.append(part)
        return [(part.pending, part.finished) for part in self.closed]

    def abort(self) -> None:
        for part in [*self.open.values(), *self.closed]:
            part.discard()
        self.open.clear()


def arrow_schema(type_info: RowTypeInfo) -> Any:  # (a pyarrow Schema)
    import pyarrow as pa

    return pa.schema(
        [
            pa.field(name, t.to_arrow_type())
            for name, t in zip(type_info.get_field_names(), type_info.get_field_types())
        ]
    )


def _json_default(value: Any) -> Any:
    if hasattr(value, "as_dict"):
        return value.as_dict()
    if hasattr(value, "isoformat"):
        return value.isoformat()
    raise TypeError(f"cannot write a {type(value).__name__} as JSON")


def encode_rows(spec: FileSinkSpec, values: List[Any]) -> bytes:
    """The bytes of a row format's records: JSON lines, an encoder's, or str() lines."""
    if spec.fmt == "json":
        return "".join(
            json.dumps(v.as_dict() if hasattr(v, "as_dict") else v, default=_json_default) + "\n"
            for v in values
        ).encode()
    if spec.encoder is not None:
        return b"".join(spec.encoder.encode(v, spec.record_type) for v in values)
    return "".join(f"{v}\n" for v in values).encode()
