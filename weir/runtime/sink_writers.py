"""Writing one micro-batch of a sink's records, idempotently per batch id."""

from __future__ import annotations

import copy
import itertools
import os
import sys
import tempfile
import time
from typing import (
    TYPE_CHECKING,
    Any,
    Callable,
    Dict,
    Iterable,
    Iterator,
    List,
    Optional,
    Sequence,
    Tuple,
)

from weir.runtime.connectors.sink_base import commit_tasks, is_executor_side
from weir.runtime.errors import call_user
from weir.runtime.sinks import CollectSink, PrintSink, SinkFunctionSink
from weir.runtime.state.operator_state import (
    FunctionInitializationContext,
    FunctionSnapshotContext,
    OperatorStateStore,
    is_checkpointed,
)

if TYPE_CHECKING:
    from typing import Protocol

    from weir.runtime.connectors.sink_base import SinkSpec
    from weir.runtime.state.operator_state import Snapshot

    class _SinkPlan(Protocol):
        """What sink_writer reads of a job's PhysicalPlan."""

        @property
        def sink_job_id(self) -> str: ...

        @property
        def parallelism(self) -> int: ...

        @property
        def restoring(self) -> bool: ...


def atomic_write(path: str, data: bytes) -> None:
    directory = os.path.dirname(path)
    os.makedirs(directory, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".inprogress-", dir=directory)
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(tmp, path)


class _SinkContext:
    """SinkFunction's context: the record's timestamp (None: it has none)."""

    def __init__(self, batch_id: int) -> None:
        self.batch_id = batch_id
        self.record_timestamp: Optional[int] = None

    def timestamp(self) -> Optional[int]:
        return self.record_timestamp


def _with_contexts(
    values: Iterable[Any], batch_id: int, timestamps: Optional[Iterable[Optional[int]]]
) -> Iterator[Tuple[Any, _SinkContext]]:
    """(value, its context) pairs; one context, moved to each record's timestamp."""
    context = _SinkContext(batch_id)
    for value, timestamp in zip(values, timestamps or itertools.repeat(None)):
        context.record_timestamp = timestamp
        yield value, context


def write_batch(
    sink: object,
    values: List[Any],
    batch_id: int,
    subtasks: Optional[Sequence[int]] = None,
    timestamps: Optional[List[Optional[int]]] = None,
) -> None:
    """Writes a micro-batch's records to `sink`; `subtasks` (at parallelism above 1) names
    the parallel instance that produced each record, for print()'s prefix; `timestamps`
    the records' timestamps (None: none has one)."""
    if isinstance(sink, PrintSink):
        stream = sys.stderr if sink.to_stderr else sys.stdout
        if values:
            # (None: print() names no subtask)
            subtasks = subtasks or [None] * len(values)  # type: ignore[list-item]
            stream.write("".join(sink.format(v, s) + "\n" for v, s in zip(values, subtasks)))
            stream.flush()
    elif isinstance(sink, CollectSink):
        sink.results.extend(values)
    elif isinstance(sink, (CheckpointedSink, InProcessSink)):
        sink.write(values, batch_id, subtasks, timestamps)
    elif isinstance(sink, SinkFunctionSink):
        invoke = getattr(sink.function, "invoke", sink.function)
        for value, context in _with_contexts(values, batch_id, timestamps):
            invoke(value, context)
    else:
        raise TypeError(f"unsupported sink {type(sink).__name__}")


class _SinkInstance:
    def __init__(self, function: Any, store: OperatorStateStore, checkpoints: int) -> None:
        self.function = function
        self.store = store
        self.checkpoints = checkpoints


class CheckpointedSink:
    """A sink function with operator state (a CheckpointedFunction), on the driver: one
    instance per subtask, each getting the records its subtask produced, every instance
    snapshotted at the end of every micro-batch (weir's checkpoint)."""

    def __init__(
        self,
        function: Any,
        uid: str,
        parallelism: int,
        restored: Optional[Sequence[Tuple[int, Optional[Snapshot]]]] = None,
        restoring: bool = False,
    ) -> None:
        self.uid = uid
        self.instances: List[_SinkInstance] = []
        for index in range(parallelism):
            checkpoints, snapshot = restored[index] if restored is not None else (0, None)
            instance = _SinkInstance(
                copy.deepcopy(function), OperatorStateStore(snapshot), checkpoints
            )
            context = FunctionInitializationContext(
                instance.store, snapshot is not None or restoring
            )
            self._call(instance.function.initialize_state, context)
            self.instances.append(instance)

    def write(
        self,
        values: List[Any],
        batch_id: int,
        subtasks: Optional[Sequence[int]] = None,
        timestamps: Optional[List[Optional[int]]] = None,
    ) -> None:
        pairs = _with_contexts(values, batch_id, timestamps)
        for (value, context), subtask in zip(pairs, subtasks or [0] * len(values)):
            function = self.instances[subtask].function
            self._call(getattr(function, "invoke", function), value, context)

    def snapshot(self) -> Dict[Tuple[str, int], Tuple[int, Snapshot]]:
        """{(uid, subtask): (checkpoints taken, Snapshot)} after each instance's
        `snapshot_state`."""
        snapshots = {}
        for index, instance in enumerate(self.instances):
            instance.checkpoints += 1
            context = FunctionSnapshotContext(instance.checkpoints, int(time.time() * 1000))
            self._call(instance.function.snapshot_state, context)
            snapshots[(self.uid, index)] = (instance.checkpoints, instance.store.snapshot())
        return snapshots

    def _call(self, method: Callable[..., Any], *args: Any) -> Any:
        return call_user(self.uid, method, *args)


class InProcessSink:
    """A sink the tasks write (weir.runtime.connectors.sink_base), written in this process
    as one task (the in-process executor)."""

    def __init__(self, spec: SinkSpec, uid: str, job: str) -> None:
        self.spec = spec
        self.uid = uid
        self.job = job

    def write(
        self,
        values: List[Any],
        batch_id: int,
        subtasks: Optional[Sequence[int]] = None,
        timestamps: Optional[List[Optional[int]]] = None,
    ) -> None:
        if not values:
            return
        writer = self.spec.batch_writer(self.uid, self.job, batch_id, 0)
        try:
            writer.write(values, timestamps)
            committables = writer.finish()
        except BaseException:
            writer.abort()
            raise
        commit_tasks(self.spec, batch_id, committables)


def sink_writer(
    sink: Any,
    uid: str,
    plan: _SinkPlan,
    restored: Optional[Sequence[Tuple[int, Optional[Snapshot]]]] = None,
) -> object:
    """What a job (its PhysicalPlan `plan`) writes `sink`'s records with: the sink itself,
    or for a sink function with operator state, its instances (`restored`: what each
    restores, or None), or for a sink its tasks write, one such task in this process."""
    if is_executor_side(sink):
        return InProcessSink(sink, uid, plan.sink_job_id)
    if isinstance(sink, SinkFunctionSink) and is_checkpointed(sink.function):
        return CheckpointedSink(sink.function, uid, plan.parallelism, restored, plan.restoring)
    return sink
