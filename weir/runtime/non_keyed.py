"""Non-keyed operators with parallel instances of their own: a stateless function with
operator state (Flink's CheckpointedFunction), or one reading a broadcast-partitioned
stream (`DataStream.broadcast()`).

Other stateless functions are fused behind their input's producer (weir.plan.physical);
these need an instance per subtask that the engine keeps state for. weir runs them in the
key-group runtime: instance i lives in the first key group of subtask i's range, records reach it by
their partitioning (forward from the producer's
subtask, or a copy to every instance), and its operator state is a reserved page of that
key group, snapshotted at the end of every micro-batch it runs in and committed with it.
"""

from __future__ import annotations

import copy
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Dict, List, Mapping, Optional, Sequence, Set, Tuple

from weir.runtime.chain import StatelessChain, Step
from weir.runtime.keyed_operator import KeyedStreamOperator
from weir.runtime.key_groups import operator_index
from weir.runtime.state.operator_state import (
    FunctionInitializationContext,
    FunctionSnapshotContext,
    OperatorStateStore,
    Snapshot,
    is_checkpointed,
)
from weir.runtime.wire import OPERATOR_STATE_PAGE, dumps, loads

if TYPE_CHECKING:
    from weir.runtime.keyed_operator import Emit
    from weir.runtime.state.backend import KeyedStateBackend


class InstancePartitioning:
    """The key selector of a non-keyed operator's input: which instances get a record.
    Instance i lives in the first key group of its range (key_groups.first_key_group)."""

    every = False  # True: every instance gets every record

    def __call__(self, value: Any) -> None:
        return None


class ToOwnSubtask(InstancePartitioning):
    """Forward partitioning: each record goes to the instance of its producer's subtask."""


class ToEverySubtask(InstancePartitioning):
    """Broadcast partitioning: every record goes to every instance."""

    every = True


@dataclass
class InstanceSpec:
    """A non-keyed node run per instance: its step kind (map, flat_map, filter, process)
    and function; an executor adds the run it belongs to (`run_id`) and, restoring from an
    earlier run, what each instance restores (`restored`: (checkpoints, Snapshot) per
    instance, redistributed to this run's parallelism; `restoring`: the run starts from a
    checkpoint, so `is_restored()` is true even for an instance with nothing to restore,
    as in Flink)."""

    kind: str
    function: object
    run_id: str = ""
    restored: Optional[List[Tuple[int, Snapshot]]] = None
    restoring: bool = False


class _Instance:
    """One parallel instance: its chain, and its operator state if it keeps any."""

    def __init__(
        self,
        chain: StatelessChain,
        function: Any,
        store: Optional[OperatorStateStore],
        checkpoints: int,
    ) -> None:
        self.chain = chain
        self.function = function
        self.store = store
        self.checkpoints = checkpoints


class NonKeyedOperator(KeyedStreamOperator):
    """Runs each parallel instance of a non-keyed function in its own key group."""

    handles_timers = False

    def __init__(
        self,
        spec: InstanceSpec,
        backend: KeyedStateBackend,
        name: str,
        subtask_index: int = 0,
        parallelism: int = 1,
        job_parameters: Optional[Mapping[str, str]] = None,
    ) -> None:
        super().__init__(backend, name, subtask_index, parallelism, job_parameters)
        self.spec = spec
        self.parallelism = parallelism
        self.job_parameters = job_parameters
        self._instances: Dict[int, _Instance] = {}
        self._checked: Set[int] = set()  # key groups whose kept instance was checked in this run

    def open(self) -> None:
        """Instances open on their first records."""

    def close(self) -> None:
        for instance in self._instances.values():
            instance.chain.close()
        self._instances.clear()

    def release(self) -> None:
        super().release()
        self._checked.clear()  # the next run of a key group may follow another process's

    # -- records ---------------------------------------------------------------------
    def process_element(
        self, key: Any, value: Any, timestamp: Optional[int], emit: Emit, input_label: int = 0
    ) -> None:
        self.process_batch([value], [timestamp], (None,), emit)

    def on_timer(self, domain: str, timestamp: int, key: Any, namespace: Any) -> None:
        raise TypeError(
            f"operator '{self.name}' is not keyed and has no timers "
            "(handles_timers is False: none is ever due)"
        )

    def process_batch(
        self,
        values: Sequence[Any],
        stamps: Sequence[Optional[int]],
        keys: Sequence[Any],
        emit: Emit,
    ) -> None:
        if not values:
            return
        instance = self._instance()
        # (the engines' columns, and process_element's, are lists)
        values, stamps, side = instance.chain.run_columns(values, stamps)  # type: ignore[arg-type]
        for value, timestamp in zip(values, stamps):
            emit(None, value, timestamp)
        for tag, value, timestamp in side:
            emit(tag, value, timestamp)

    def _instance(self) -> _Instance:
        (key_group,) = self.active_key_groups
        instance = self._kept(key_group)
        if instance is None:
            instance = self._instances[key_group] = self._open_instance(key_group)
            self._checked.add(key_group)
        return instance

    def _kept(self, key_group: int) -> Optional[_Instance]:
        """The instance kept for `key_group`, unless its operator state is not what it
        would open from now (another process ran it since, or the engine went back to an
        earlier snapshot: a retried batch); then it is closed and forgotten. Checked once
        per run of the key group: the page is read and unpickled for it."""
        instance = self._instances.get(key_group)
        if instance is None or instance.store is None or key_group in self._checked:
            return instance
        subtask = operator_index(key_group, self.backend.max_parallelism, self.parallelism)
        if self._restored(key_group, subtask)[0] != instance.checkpoints:
            instance.chain.close()
            del self._instances[key_group]
            return None
        self._checked.add(key_group)
        return instance

    def _open_instance(self, key_group: int) -> _Instance:
        function = copy.deepcopy(self.spec.function)
        chain = StatelessChain([Step(self.spec.kind, function, self.name)], self.name)
        subtask = operator_index(key_group, self.backend.max_parallelism, self.parallelism)
        chain.open(subtask, self.parallelism, self.job_parameters)
        if not is_checkpointed(function):
            return _Instance(chain, function, None, 0)
        checkpoints, snapshot = self._restored(key_group, subtask)
        store = OperatorStateStore(snapshot)
        context = FunctionInitializationContext(store, snapshot is not None or self.spec.restoring)
        self._call(function.initialize_state, context)
        return _Instance(chain, function, store, checkpoints)

    def _restored(self, key_group: int, subtask: int) -> Tuple[int, Optional[Snapshot]]:
        """What instance `subtask` starts from: its page if this run wrote it (an earlier
        micro-batch), else what the run restores from an earlier one (the driver's copy,
        redistributed), else a page an earlier run wrote that the driver has no copy of (a
        checkpoint older than the driver's copies), else nothing."""
        blob = self.backend.key_group_pages(key_group).store.load(OPERATOR_STATE_PAGE)
        page = None if blob is None else loads(blob)
        if self.spec.restored is not None and (page is None or page["run"] != self.spec.run_id):
            return self.spec.restored[subtask]
        return (page["checkpoints"], page["state"]) if page is not None else (0, None)

    # -- snapshots -------------------------------------------------------------------
    def snapshot_operator_state(self, key_group: int) -> Optional[Tuple[int, Snapshot]]:
        """Takes instance `key_group`'s snapshot (its function's `snapshot_state`) into its
        page; returns (checkpoints taken, Snapshot) for the driver, which keeps every
        instance's for a restart, or None if the instance keeps no operator state."""
        instance = self._kept(key_group)  # (one kept from before that ran no records now)
        if instance is None or instance.store is None:
            return None
        instance.checkpoints += 1
        context = FunctionSnapshotContext(instance.checkpoints, int(time.time() * 1000))
        self._call(instance.function.snapshot_state, context)
        snapshot = instance.store.snapshot()
        page = {"run": self.spec.run_id, "checkpoints": instance.checkpoints, "state": snapshot}
        self.backend.key_group_pages(key_group).store.store(OPERATOR_STATE_PAGE, dumps(page))
        return instance.checkpoints, snapshot
