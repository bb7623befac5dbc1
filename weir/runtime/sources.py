"""Source readers: positions, splits and records, the same for every engine.

An offset is a dict {"pos": int, "end": 0|1}. A bounded reader's step that reaches its last
record has end=1: that step also carries the end-of-input marker that becomes Flink's
+infinity watermark.
"""

from __future__ import annotations

import csv
import itertools
import io
import json
import os
import time
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, List, Optional, Tuple

from weir.runtime.chain import columns_of

if TYPE_CHECKING:
    from weir.common.row import Row

    Offset = dict[str, Any]  # {"pos": int, "end": 0|1}, and what a reader adds
    Columns = Tuple[List[Any], List[Optional[int]]]  # (values, timestamps)
    # A Parquet file's row range (first row, end row)
    RowRange = Tuple[int, int]

Split = Tuple[int, int, int]  # (split index, first position, end position)
END_SPLIT = "end"
RECORDS_IN_ERRORS = "numRecordsInErrors"  # Flink's metric: records a source could not read


class DeadLetter:
    """A record a source could not read, among its values, for the source's dead-letter
    output (a reader whose `dead_letter_tag` is set yields these instead of failing):
    where it was (`topic/partition@offset`, file and line, ...), why, and its bytes."""

    __slots__ = ("position", "reason", "record")

    def __init__(self, position: str, reason: str, record: object) -> None:
        self.position = position
        self.reason = reason
        self.record = record

    def as_row(self, source: str) -> Row:
        from weir.common.row import Row

        return Row(source=source, position=self.position, reason=self.reason, record=self.record)


class SourceReader:
    bounded = True
    # A bounded reader that may have nothing new before its end (it waits for records to
    # come, as a bounded Kafka source for its stopping offsets): its job does not end when
    # nothing is new, only when every source has ended.
    may_pause = False
    dead_letter_tag: Optional[str] = None  # the tag id of the dead-letter side output
    max_records_per_batch: Optional[int] = None
    # The engine's parallelism (Spark's default parallelism), which a reader may use to cut
    # a batch into about as many splits as can run at once.
    target_splits = 1
    # A partitioned reader (Kafka's) keeps a watermark per partition: it sets
    # `partitioned`, and the engine sets `announced_marks` to a function giving the
    # driver's latest marks of its partitions (weir.runtime.split_watermarks) when the
    # source's records carry a watermark.
    partitioned = False
    announced_marks: Optional[Callable[[], Any]] = None

    def initial_offset(self) -> Offset:
        return {"pos": 0, "end": 0}

    def available(self, start_pos: int) -> int:
        """The position up to which records can be read now."""
        raise NotImplementedError

    def is_exhausted(self, pos: int) -> bool:
        return False

    def latest_offset(self, start: Offset, limit: Optional[int] = None) -> Offset:
        if start["end"]:
            return start
        limit = limit or self.max_records_per_batch
        pos = self.available(start["pos"])
        if limit:
            pos = min(pos, start["pos"] + limit)
        # The end-of-input marker rides with the last records (or alone if none are left).
        return {"pos": pos, "end": int(self.bounded and self.is_exhausted(pos))}

    def split_count(self, start_pos: int, end_pos: int) -> int:
        return 1

    def splits(self, start: Offset, end: Offset) -> List[Any]:
        # (the splits of a batch, each reader's own shape, and END_SPLIT at the end)
        lo, hi = start["pos"], end["pos"]
        out: List[Any] = []
        if hi > lo:
            n = max(1, min(self.split_count(lo, hi), hi - lo))
            bounds = [lo + (hi - lo) * i // n for i in range(n + 1)]
            out = [(i, bounds[i], bounds[i + 1]) for i in range(n)]
        if end["end"] and not start["end"]:
            out.append(END_SPLIT)
        return out

    def read(self, lo: int, hi: int) -> Iterator[Tuple[object, Optional[int]]]:
        """Yields (value, timestamp or None) for positions lo..hi-1."""
        raise NotImplementedError

    def read_columns(self, lo: int, hi: int, chunk: int) -> Iterator[Columns]:
        """Yields (values, timestamps) of positions lo..hi-1, `chunk` records at a time
        (the columns a chain runs over)."""
        pairs = self.read(lo, hi)
        while part := list(itertools.islice(pairs, chunk)):
            yield columns_of(part)

    def split_chunks(self, split: Any, chunk: int) -> Iterator[Columns]:
        """Yields (values, timestamps) of one of `splits`' splits, `chunk` records at a
        time; a reader whose splits have another shape reads them its own way."""
        _, lo, hi = split
        return self.read_columns(lo, hi, chunk)

    def split_watermark(self, split: Any) -> Optional[Tuple[Any, Optional[int], Optional[int]]]:
        """How a split of a partitioned reader reports its watermark: (its partition, the
        partition's mark so far, its floor), or for a split that only announces the
        source's watermark, (None, None, the watermark); None: as any source, its largest
        timestamp (weir.runtime.split_watermarks)."""
        return None

    def whole_input(self) -> Optional[Offset]:
        """The end offset of the whole input, where it is known when the job starts and
        may be read in one micro-batch (None: it is not)."""
        return None

    def commit_offset(self, end: Offset) -> None:
        """The micro-batch that read up to `end` committed (e.g. Kafka's offsets go to
        the consumer group). Replays never depend on it: they read the offset log."""


def _untimed_columns(
    lo: int, hi: int, chunk: int, values_between: Callable[[int, int], List[Any]]
) -> Iterator[Columns]:
    """read_columns of a reader whose records have no timestamps: `values_between(a, b)`
    gives the values of positions a..b-1."""
    for start in range(lo, hi, chunk):
        values = values_between(start, min(start + chunk, hi))
        yield values, [None] * len(values)


class CollectionReader(SourceReader):
    def __init__(
        self,
        values: Iterable[Any],
        num_splits: int = 1,
        max_records_per_batch: Optional[int] = None,
    ) -> None:
        self.values = list(values)
        self.num_splits = num_splits
        self.max_records_per_batch = max_records_per_batch

    def available(self, start_pos: int) -> int:
        return len(self.values)

    def is_exhausted(self, pos: int) -> bool:
        return pos >= len(self.values)

    def split_count(self, lo: int, hi: int) -> int:
        return self.num_splits

    def whole_input(self) -> Optional[Offset]:
        if self.max_records_per_batch is not None:
            return None
        return {"pos": len(self.values), "end": 1}

    def read(self, lo: int, hi: int) -> Iterator[Tuple[object, Optional[int]]]:
        for value in self.values[lo:hi]:
            yield value, None

    def read_columns(self, lo: int, hi: int, chunk: int) -> Iterator[Columns]:
        return _untimed_columns(lo, hi, chunk, lambda start, end: self.values[start:end])


class DataGeneratorReader(SourceReader):
    """Record i is generator(i); `count` None is unbounded; `rate` caps records per second."""

    def __init__(
        self,
        generator: Callable[[int], Any],
        count: Optional[int] = None,
        records_per_second: Optional[float] = None,
        num_splits: int = 1,
        max_records_per_batch: Optional[int] = None,
    ) -> None:
        self.generator = generator
        self.count = count
        self.bounded = count is not None
        self.records_per_second = records_per_second
        self.num_splits = num_splits
        self.max_records_per_batch = max_records_per_batch
        # (monotonic time, position) the rate is measured from
        self._origin: Optional[Tuple[float, int]] = None

    def available(self, start_pos: int) -> int:
        limit = self.count if self.count is not None else 2**62
        if self.records_per_second is None:
            return limit
        now = time.monotonic()
        if self._origin is None:
            self._origin = (now, start_pos)
        origin_time, origin_pos = self._origin
        allowed = origin_pos + int((now - origin_time) * self.records_per_second)
        if allowed <= start_pos < limit and self.bounded:
            # A bounded source must never report "nothing new" before its end: Spark's
            # availableNow trigger would take that as the end of input. Wait for the next
            # record instead.
            due = origin_time + (start_pos + 1 - origin_pos) / self.records_per_second
            time.sleep(max(0.0, due - now))
            allowed = start_pos + 1
        return min(limit, max(start_pos, allowed))

    def is_exhausted(self, pos: int) -> bool:
        return self.count is not None and pos >= self.count

    def split_count(self, lo: int, hi: int) -> int:
        return self.num_splits

    def whole_input(self) -> Optional[Offset]:
        if self.count is None or self.records_per_second is not None:
            return None
        if self.max_records_per_batch is not None:
            return None
        return {"pos": self.count, "end": 1}

    def read(self, lo: int, hi: int) -> Iterator[Tuple[object, Optional[int]]]:
        generator = self.generator
        for index in range(lo, hi):
            yield generator(index), None

    def read_columns(self, lo: int, hi: int, chunk: int) -> Iterator[Columns]:
        return _untimed_columns(
            lo, hi, chunk, lambda start, end: list(map(self.generator, range(start, end)))
        )


CSV_RECORDS = "csv-records"  # (lines, where a quoted field spans lines: one record)


class FileReader(SourceReader):
    """Files of a directory in (modification time, name) order, one split per file. As
    Spark cuts files, a batch's Parquet rows are cut into row ranges of about
    rows / `target_splits`, within [min_rows_per_split, rows_per_split]: enough splits to
    keep every core busy, and few, since each split is a Spark task (~50-60 ms to start a
    Python data source task here).

    format: 'text' (lines as str), 'csv' (Row per line, header names the fields),
    'json' (JSON lines, a Row per object) or 'parquet' (a Row per row).
    """

    FORMATS = ("text", "csv", "json", "parquet", CSV_RECORDS)
    rows_per_split = 262_144
    min_rows_per_split = 32_768

    def __init__(
        self,
        path: str,
        fmt: str,
        monitor_interval_ms: Optional[int] = None,
        max_files_per_batch: Optional[int] = None,
        dead_letter_tag: Optional[str] = None,
    ) -> None:
        if fmt not in self.FORMATS:
            raise ValueError(f"unknown file format '{fmt}', expected one of {self.FORMATS}")
        if dead_letter_tag is not None and fmt != "json":
            raise ValueError(
                f"a dead-letter output takes the JSON lines that are no JSON "
                f"object; a '{fmt}' file has no such records"
            )
        self.path = path
        self.fmt = fmt
        self.dead_letter_tag = dead_letter_tag
        self.monitor_interval_ms = monitor_interval_ms
        self.bounded = monitor_interval_ms is None
        self.max_records_per_batch = max_files_per_batch
        self._files: List[str] = []

    def _list(self) -> List[str]:
        if os.path.isfile(self.path):
            return [self.path]
        if not os.path.isdir(self.path):
            raise FileNotFoundError(f"file source path '{self.path}' does not exist")
        entries = []
        for name in os.listdir(self.path):
            full = os.path.join(self.path, name)
            if os.path.isfile(full) and not name.startswith((".", "_")):
                entries.append((os.stat(full).st_mtime_ns, name, full))
        return [full for _, _, full in sorted(entries)]

    def available(self, start_pos: int) -> int:
        self._files = self._list()
        return len(self._files)

    def is_exhausted(self, pos: int) -> bool:
        return pos >= len(self._files)

    def split_count(self, lo: int, hi: int) -> int:
        return hi - lo

    def splits(self, start: Offset, end: Offset) -> List[Any]:
        self._files = self._list()
        splits = super().splits(start, end)
        files = [
            file
            for split in splits
            if split != END_SPLIT
            for file in self._files[split[1] : split[2]]
        ]
        return list(enumerate(self._parts(files))) + [s for s in splits if s == END_SPLIT]

    def _parts(self, files: List[str]) -> Iterator[List[str] | List[Tuple[str, int, int]]]:
        """Per file of a batch, the file (a list of one path) or its row ranges
        [(path, lo, hi)]."""
        rows_of = [_parquet_rows(path) if self.fmt == "parquet" else 0 for path in files]
        share = -(-sum(rows_of) // max(1, self.target_splits))
        per_split = min(self.rows_per_split, max(self.min_rows_per_split, share))
        for path, rows in zip(files, rows_of):
            if rows <= per_split:
                yield [path]
                continue
            pieces = -(-rows // per_split)
            bounds = [rows * i // pieces for i in range(pieces + 1)]
            for i in range(pieces):
                yield [(path, bounds[i], bounds[i + 1])]

    def split_chunks(self, split: Any, chunk: int) -> Iterator[Columns]:
        """A split is (index, files or row ranges): values without timestamps yet."""
        values = self.file_values(split[1])
        while part := list(itertools.islice(values, chunk)):
            yield part, [None] * len(part)

    def read_files(
        self, files: Iterable[str | Tuple[str, int, int]]
    ) -> Iterator[Tuple[object, Optional[int]]]:
        """(value, no timestamp yet) pairs of the files (or row ranges)."""
        return zip(self.file_values(files), itertools.repeat(None))

    def file_values(self, files: Iterable[str | Tuple[str, int, int]]) -> Iterator[object]:
        """The values of the files (or row ranges), read lazily and chained in C: a
        generator resuming per value cost ~7% of a Parquet source's CPU."""
        return itertools.chain.from_iterable(map(self._values, files))

    def _values(self, entry: str | Tuple[str, int, int]) -> Iterator[Any]:
        if isinstance(entry, tuple):
            return read_file(entry[0], self.fmt, entry[1:])
        return read_file(entry, self.fmt, dead_letters=self.dead_letter_tag is not None)


def _parquet_rows(path: str) -> int:
    import pyarrow.parquet as pq

    return pq.ParquetFile(path).metadata.num_rows  # type: ignore[no-any-return]  # (pyarrow)


class _ParquetColumn:
    """One column of a Parquet file (or of a row range of it), read from the file only when
    a row first reads the column: columns a job never reads are never read."""

    def __init__(
        self, path: str, name: str, text: bool, row_range: Optional[RowRange] = None
    ) -> None:
        self.path = path
        self.name = name
        self.text = text
        self.row_range = row_range

    def to_pylist(self) -> List[Any]:
        read = _read_whole_column if self.row_range is None else _cached_column
        column = read(self.path, self.name, self.text)
        if self.row_range is not None:
            column = column.slice(self.row_range[0], self.row_range[1] - self.row_range[0])
        if not self.text:
            if column.null_count == 0 and _is_number(column.type):
                # (a little faster than to_pylist)
                return column.to_numpy().tolist()  # type: ignore[no-any-return]  # (pyarrow)
            return column.to_pylist()  # type: ignore[no-any-return]  # (pyarrow)
        values = []
        for chunk in column.chunks:
            values.extend(_decoded(chunk))
        return values


# (path, file identity, column, text) -> the column, of one file at most
_COLUMN_CACHE: dict[Tuple[Tuple[str, int, int, int], str, bool], Any] = {}


def _cached_column(path: str, name: str, text: bool) -> Any:  # (a pyarrow ChunkedArray)
    """A whole column of a Parquet file, for a row range of it. The columns of the last file
    read so stay cached: a file's row ranges are splits of one batch, a worker often reads
    several of them, and a file of one row group is decoded whole for any range."""
    stat = os.stat(path)
    file_key = (path, stat.st_ino, stat.st_size, stat.st_mtime_ns)
    if any(key[0] != file_key for key in _COLUMN_CACHE):
        _COLUMN_CACHE.clear()
    key = (file_key, name, text)
    column = _COLUMN_CACHE.get(key)
    if column is None:
        column = _COLUMN_CACHE[key] = _read_whole_column(path, name, text)
    return column


def _read_whole_column(path: str, name: str, text: bool) -> Any:  # (a pyarrow ChunkedArray)
    import pyarrow.parquet as pq

    # Text columns are read dictionary-encoded: each distinct string becomes one Python
    # str (6x faster than a str per value for columns of few distinct values).
    return pq.read_table(path, columns=[name], read_dictionary=[name] if text else None).column(0)


def _decoded(chunk: Any) -> List[Any]:  # (a pyarrow DictionaryArray or other array)
    """A dictionary-encoded chunk's values as Python objects, one object per distinct value."""
    import numpy as np
    import pyarrow as pa

    if not pa.types.is_dictionary(chunk.type) or chunk.null_count:
        return chunk.to_pylist()  # type: ignore[no-any-return]  # (pyarrow)
    dictionary = np.array(chunk.dictionary.to_pylist(), dtype=object)
    return dictionary[chunk.indices.to_numpy()].tolist()  # type: ignore[no-any-return]  # (numpy)


def _is_number(data_type: Any) -> bool:  # (a pyarrow DataType)
    import pyarrow as pa

    return (  # type: ignore[no-any-return]  # (pyarrow)
        pa.types.is_integer(data_type)
        or pa.types.is_float32(data_type)
        or pa.types.is_float64(data_type)
    )


def _is_text(data_type: Any) -> bool:  # (a pyarrow DataType)
    import pyarrow as pa

    return (  # type: ignore[no-any-return]  # (pyarrow)
        pa.types.is_string(data_type) or pa.types.is_large_string(data_type)
    )


def _read_parquet(path: str, row_range: Optional[RowRange] = None) -> List[Row]:
    from weir.common.row import rows_of_columns, shared_field_names
    import pyarrow.parquet as pq

    file = pq.ParquetFile(path)
    schema = file.schema_arrow
    names = schema.names
    lo, hi = row_range if row_range is not None else (0, file.metadata.num_rows)
    fields = shared_field_names(names)
    if len(set(names)) == len(names) and not any("." in name for name in names):
        columns = [
            _ParquetColumn(path, name, _is_text(schema.field(name).type), row_range)
            for name in names
        ]
    else:  # names a column selection could not tell apart: read the whole table
        table = pq.read_table(path).slice(lo, hi - lo)
        columns = table.columns
    return rows_of_columns(fields, columns, hi - lo)


def read_file(
    path: str, fmt: str, row_range: Optional[RowRange] = None, dead_letters: bool = False
) -> Iterator[Any]:
    """The values of a file (of its row range, for Parquet); `dead_letters`: a JSON line
    that is no JSON object becomes a DeadLetter instead of failing."""
    if fmt == "parquet":
        return iter(_read_parquet(path, row_range))
    return _read_text_file(path, fmt, dead_letters)


def _json_object(line: str, path: str, number: int) -> dict[str, Any]:
    try:
        value = json.loads(line)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}:{number}: not a JSON object: {exc}") from exc
    if not isinstance(value, dict):
        raise ValueError(f"{path}:{number}: not a JSON object: a JSON {type(value).__name__}")
    return value


def csv_records(lines: Iterable[str]) -> Iterator[str]:
    """`lines` joined where a quoted field goes on over a line's end (an odd count of
    double quotes so far: `""` inside a field counts two), each record's line ends
    removed but those inside its fields."""
    pending: Optional[str] = None
    for line in lines:
        pending = line if pending is None else pending + line
        if pending.count('"') % 2 == 0:
            yield pending.rstrip("\n").rstrip("\r")
            pending = None
    if pending is not None:
        yield pending.rstrip("\n").rstrip("\r")


def _read_text_file(path: str, fmt: str, dead_letters: bool = False) -> Iterator[Any]:
    """A text file's values, line by line: each line is decoded on its own, so a line that
    is not UTF-8 is that line's failure (a dead letter where the source has a dead-letter
    output), named by file and line."""
    from weir.common.row import Row

    if fmt == "csv":
        yield from (
            Row(**record) for record in csv.DictReader(io.StringIO(_decoded_file(path), newline=""))
        )
        return
    if fmt == CSV_RECORDS:
        yield from csv_records(io.StringIO(_decoded_file(path), newline=""))
        return
    with open(path, "rb") as handle:
        for number, raw in enumerate(handle, 1):
            try:
                line = _decoded_line(raw, path, number)
                if fmt == "text":
                    yield line.rstrip("\n").rstrip("\r")
                elif line.strip():
                    yield Row(**_json_object(line, path, number))
            except ValueError as exc:
                if not dead_letters:
                    raise
                yield DeadLetter(f"{path}:{number}", str(exc).partition(": ")[2], raw)


def _decoded_line(raw: bytes, path: str, number: int) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(
            f"{path}:{number}: not UTF-8: byte 0x{raw[exc.start]:02x} at column {exc.start + 1}"
        ) from None


def _decoded_file(path: str) -> str:
    with open(path, "rb") as handle:
        data = handle.read()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise ValueError(f"{path}:{line}: not UTF-8: byte 0x{data[exc.start]:02x}") from None
