"""Writing one micro-batch of a sink's records, idempotently per batch id."""

import copy
import json
import os
import sys
import tempfile
import time

from weir.runtime.connectors.sink_base import is_executor_side
from weir.runtime.errors import call_user
from weir.runtime.sinks import CollectSink, FileSinkSpec, PrintSink, SinkFunctionSink
from weir.runtime.state.operator_state import (FunctionInitializationContext,
                                               FunctionSnapshotContext, OperatorStateStore,
                                               is_checkpointed)


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
    elif isinstance(sink, (CheckpointedSink, InProcessSink)):
        sink.write(values, batch_id, subtasks)
    elif isinstance(sink, SinkFunctionSink):
        invoke = getattr(sink.function, "invoke", sink.function)
        context = _SinkContext(batch_id)
        for value in values:
            invoke(value, context)
    else:
        raise TypeError(f"unsupported sink {type(sink).__name__}")


class _SinkInstance:
    def __init__(self, function, store: OperatorStateStore, checkpoints: int):
        self.function = function
        self.store = store
        self.checkpoints = checkpoints


class CheckpointedSink:
    """A sink function with operator state (a CheckpointedFunction), on the driver: one
    instance per subtask, each getting the records its subtask produced, every instance
    snapshotted at the end of every micro-batch (weir's checkpoint)."""

    def __init__(self, function, uid: str, parallelism: int, restored=None,
                 restoring: bool = False):
        self.uid = uid
        self.instances = []
        for index in range(parallelism):
            checkpoints, snapshot = restored[index] if restored is not None else (0, None)
            instance = _SinkInstance(copy.deepcopy(function), OperatorStateStore(snapshot),
                                     checkpoints)
            context = FunctionInitializationContext(instance.store,
                                                    snapshot is not None or restoring)
            self._call(instance.function.initialize_state, context)
            self.instances.append(instance)

    def write(self, values, batch_id: int, subtasks=None) -> None:
        context = _SinkContext(batch_id)
        for value, subtask in zip(values, subtasks or [0] * len(values)):
            function = self.instances[subtask].function
            self._call(getattr(function, "invoke", function), value, context)

    def snapshot(self) -> dict:
        """{(uid, subtask): (checkpoints taken, Snapshot)} after each instance's
        `snapshot_state`."""
        snapshots = {}
        for index, instance in enumerate(self.instances):
            instance.checkpoints += 1
            context = FunctionSnapshotContext(instance.checkpoints, int(time.time() * 1000))
            self._call(instance.function.snapshot_state, context)
            snapshots[(self.uid, index)] = (instance.checkpoints, instance.store.snapshot())
        return snapshots

    def _call(self, method, *args):
        return call_user(self.uid, method, *args)


class InProcessSink:
    """A sink the tasks write (weir.runtime.connectors.sink_base), written in this process
    as one task (the in-process executor)."""

    def __init__(self, spec, uid: str):
        self.spec = spec
        self.uid = uid

    def write(self, values, batch_id: int, subtasks=None) -> None:
        if not values:
            return
        writer = self.spec.batch_writer(self.uid, batch_id, 0)
        try:
            writer.write(values)
            writer.finish()
        except BaseException:
            writer.abort()
            raise


def sink_writer(sink, uid: str, parallelism: int, restored=None, restoring: bool = False):
    """What a job writes `sink`'s records with: the sink itself, or for a sink function
    with operator state, its instances (`restored`: what each restores, or None;
    `restoring`: the run starts from a checkpoint), or for a sink its tasks write, one
    such task in this process."""
    if is_executor_side(sink):
        return InProcessSink(sink, uid)
    if isinstance(sink, SinkFunctionSink) and is_checkpointed(sink.function):
        return CheckpointedSink(sink.function, uid, parallelism, restored, restoring)
    return sink
