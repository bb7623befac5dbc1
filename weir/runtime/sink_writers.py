"""Writing one micro-batch of a sink's records, idempotently per batch id."""

import json
import os
import sys
import tempfile

from weir.runtime.sinks import CollectSink, FileSinkSpec, PrintSink, SinkFunctionSink


def _json_default(value):
    if hasattr(value, "as_dict"):
        return value.as_dict()
    if hasattr(value, "isoformat"):
        return value.isoformat()
    raise TypeError(f"cannot write a {type(value).__name__} as JSON")


def _to_json_line(value) -> str:
    if hasattr(value, "as_dict"):
        value = value.as_dict()
    return json.dumps(value, default=_json_default, sort_keys=False)


def atomic_write(path: str, data: bytes) -> None:
    directory = os.path.dirname(path)
    os.makedirs(directory, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".inprogress-", dir=directory)
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(tmp, path)


def _write_parquet(spec: FileSinkSpec, values, path: str) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq
    if spec.type_info is None:
        raise ValueError("a Parquet file sink needs a row type (type_info)")
    schema = pa.schema([pa.field(name, t.to_arrow_type()) for name, t in zip(
        spec.type_info.get_field_names(), spec.type_info.get_field_types())])
    rows = [v.as_dict() if hasattr(v, "as_dict") else dict(zip(schema.names, v)) for v in values]
    directory = os.path.dirname(path)
    os.makedirs(directory, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".inprogress-", dir=directory)
    os.close(fd)
    pq.write_table(pa.Table.from_pylist(rows, schema=schema), tmp)
    os.replace(tmp, path)


def write_file_batch(spec: FileSinkSpec, values, batch_id: int) -> None:
    """Writes `part-<batch>` once; a replayed batch replaces the same file."""
    if not values:
        return
    suffix = spec.part_suffix
    if suffix is None:
        suffix = "." + {"json": "json", "parquet": "parquet", "text": "txt"}[spec.fmt]
    path = os.path.join(spec.base_path, f"{spec.part_prefix}-{batch_id:010d}{suffix}")
    if spec.type_info is not None:
        for value in values:
            spec.type_info.validate(value)
    if spec.fmt == "parquet":
        _write_parquet(spec, values, path)
    elif spec.fmt == "json":
        atomic_write(path, "".join(_to_json_line(v) + "\n" for v in values).encode())
    else:
        if spec.encoder is not None:
            data = b"".join(spec.encoder.encode(v, spec.record_type) for v in values)
        else:
            data = b"".join((str(v) + "\n").encode() for v in values)
        atomic_write(path, data)


class _SinkContext:
    def __init__(self, batch_id):
        self.batch_id = batch_id

    def timestamp(self):
        return None


def write_batch(sink, values, batch_id: int, subtasks=None) -> None:
    """Writes a micro-batch's records to `sink`; `subtasks` (at parallelism above 1) names
    the parallel instance that produced each record, for print()'s prefix."""
    if isinstance(sink, PrintSink):
        stream = sys.stderr if sink.to_stderr else sys.stdout
        if values:
            subtasks = subtasks or [None] * len(values)
            stream.write("".join(sink.format(v, s) + "\n" for v, s in zip(values, subtasks)))
            stream.flush()
    elif isinstance(sink, CollectSink):
        sink.results.extend(values)
    elif isinstance(sink, FileSinkSpec):
        write_file_batch(sink, values, batch_id)
    elif isinstance(sink, SinkFunctionSink):
        invoke = getattr(sink.function, "invoke", sink.function)
        context = _SinkContext(batch_id)
        for value in values:
            invoke(value, context)
    else:
        raise TypeError(f"unsupported sink {type(sink).__name__}")
