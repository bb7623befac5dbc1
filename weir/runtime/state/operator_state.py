"""Operator (non-keyed) state, as Flink's CheckpointedFunction sees it.

A parallel instance of a non-keyed function keeps lists of its own: `get_list_state` (on a
restore each instance gets back its own list; when the parallelism changed, the lists'
elements are dealt out evenly, as Flink does) and `get_union_list_state` (on a restore
every instance gets the union of all instances' lists). The function fills them in
`snapshot_state` and reads them back in `initialize_state` when `context.is_restored()`.

A snapshot is a plain {state name: (mode, [elements])} dict, what an engine stores.
"""

from __future__ import annotations

from typing import (
    TYPE_CHECKING,
    Any,
    Dict,
    Iterable,
    Iterator,
    List,
    Optional,
    Protocol,
    Tuple,
    TypeGuard,
)

if TYPE_CHECKING:
    from weir.runtime.state.descriptors import StateDescriptor

SPLIT = "split"  # Flink's OperatorStateHandle.Mode.SPLIT_DISTRIBUTE
UNION = "union"  # Mode.UNION

Snapshot = Dict[str, Tuple[str, List[Any]]]


class OperatorListState:
    """A list of an operator instance (Flink's ListState in operator state)."""

    def __init__(self, name: str, values: Optional[List[Any]] = None) -> None:
        self._name = name
        self._values = list(values or [])

    def get(self) -> List[Any]:
        return list(self._values)

    def __iter__(self) -> Iterator[Any]:
        return iter(self.get())

    def add(self, value: Any) -> None:
        if value is None:
            raise ValueError(f"operator ListState '{self._name}': cannot add None")
        self._values.append(value)

    def add_all(self, values: Iterable[Any]) -> None:
        for value in values:
            self.add(value)

    def update(self, values: Optional[Iterable[Any]]) -> None:
        self._values = []
        self.add_all(values or [])

    def clear(self) -> None:
        self._values = []


class OperatorStateStore:
    """`context.get_operator_state_store()` in `initialize_state`: the instance's lists by
    descriptor, each with its redistribution mode."""

    def __init__(self, restored: Optional[Snapshot] = None) -> None:
        self._restored = restored or {}
        self._states: Dict[str, Tuple[str, OperatorListState]] = {}

    def get_list_state(self, state_descriptor: StateDescriptor) -> OperatorListState:
        return self._get(state_descriptor, SPLIT)

    def get_union_list_state(self, state_descriptor: StateDescriptor) -> OperatorListState:
        return self._get(state_descriptor, UNION)

    def get_broadcast_state(self, state_descriptor: StateDescriptor) -> Any:
        raise NotImplementedError(
            "get_broadcast_state() in a CheckpointedFunction is not supported yet; use "
            "broadcast(descriptor) and a (Keyed)BroadcastProcessFunction"
        )

    def _get(self, descriptor: StateDescriptor, mode: str) -> OperatorListState:
        name = getattr(descriptor, "name", None)
        if not isinstance(name, str) or type(descriptor).__name__ != "ListStateDescriptor":
            raise TypeError(
                f"operator state takes a ListStateDescriptor, got {type(descriptor).__name__}"
            )
        known = self._states.get(name)
        if known is not None:
            if known[0] != mode:
                raise ValueError(
                    f"operator state '{name}' was registered as "
                    f"{_MODE_NAMES[known[0]]} state; it cannot also be "
                    f"{_MODE_NAMES[mode]} state"
                )
            return known[1]
        state = OperatorListState(name, self._restored_values(name, mode))
        self._states[name] = (mode, state)
        return state

    def _restored_values(self, name: str, mode: str) -> List[Any]:
        stored = self._restored.get(name)
        if stored is None:
            return []
        if stored[0] != mode:
            raise ValueError(
                f"operator state '{name}' was checkpointed as "
                f"{_MODE_NAMES[stored[0]]} state and is now asked for as "
                f"{_MODE_NAMES[mode]} state"
            )
        return stored[1]

    def snapshot(self) -> Snapshot:
        return {name: (mode, state.get()) for name, (mode, state) in self._states.items()}


_MODE_NAMES = {SPLIT: "list", UNION: "union list"}


class FunctionInitializationContext:
    """What `initialize_state` gets (Flink's FunctionInitializationContext)."""

    def __init__(self, store: OperatorStateStore, restored: bool) -> None:
        self._store = store
        self._restored = restored

    def is_restored(self) -> bool:
        """Whether the instance's state comes from an earlier snapshot."""
        return self._restored

    def get_operator_state_store(self) -> OperatorStateStore:
        return self._store


class FunctionSnapshotContext:
    """What `snapshot_state` gets: the checkpoint (weir: the micro-batch) it belongs to."""

    def __init__(self, checkpoint_id: int, timestamp: int) -> None:
        self._checkpoint_id = checkpoint_id
        self._timestamp = timestamp

    def get_checkpoint_id(self) -> int:
        return self._checkpoint_id

    def get_checkpoint_timestamp(self) -> int:
        return self._timestamp


class OperatorStateLog:
    """The driver's copy of every operator-state instance's latest snapshot: what a restart
    restores, redistributed to the restarted job's parallelism.

    Entries are {(operator uid, instance index): (checkpoints taken, Snapshot)}; `saved` is
    what `take_changed()` returned in an earlier run (None: a new job)."""

    def __init__(self, saved: Optional[Dict[str, Any]] = None, parallelism: int = 1) -> None:
        self.parallelism = parallelism
        self.latest: Dict[Tuple[str, int], Tuple[int, Snapshot]] = {}
        # what this run restores: {uid: [(checkpoints, Snapshot) per instance]}
        self.restored: Dict[str, List[Tuple[int, Snapshot]]] = {}
        if saved:
            self._restore(saved)
        self._changed = False

    def _restore(self, saved: Dict[str, Any]) -> None:
        old = saved["parallelism"]
        for uid in sorted({uid for uid, _ in saved["snapshots"]}):
            entries = [saved["snapshots"].get((uid, i), (0, {})) for i in range(old)]
            checkpoints = max(count for count, _ in entries)
            snapshots = redistribute([snapshot for _, snapshot in entries], self.parallelism)
            self.restored[uid] = [(checkpoints, snapshot) for snapshot in snapshots]
            for index, entry in enumerate(self.restored[uid]):
                self.latest[(uid, index)] = entry

    def record(self, reports: Dict[Tuple[str, int], Tuple[int, Snapshot]]) -> None:
        self.latest.update(reports)
        self._changed = True

    def take_changed(self) -> Optional[Dict[str, Any]]:
        """What to save if anything changed since the last call, else None."""
        changed, self._changed = self._changed, False
        if not changed:
            return None
        return {"parallelism": self.parallelism, "snapshots": dict(self.latest)}


def redistribute(snapshots: List[Snapshot], parallelism: int) -> List[Snapshot]:
    """The snapshots of an operator's instances (in instance order) for `parallelism`
    instances, in the manner of Flink's round-robin repartitioner: every instance gets the
    union of each union list; a list state stays with its instance when the parallelism is
    unchanged, else its elements, in instance order, are cut into `parallelism` contiguous
    parts that differ in size by at most one (the first ones larger; Flink rotates which
    instances get the larger parts from one state to the next)."""
    modes: Dict[str, str] = {}
    merged: Dict[str, List[Any]] = {}
    for snapshot in snapshots:
        for name, (mode, values) in snapshot.items():
            modes.setdefault(name, mode)
            merged.setdefault(name, []).extend(values)
    same = len(snapshots) == parallelism
    dealt: List[Snapshot] = [{} for _ in range(parallelism)]
    for name, mode in modes.items():
        if mode == UNION:
            parts = [merged[name]] * parallelism
        elif same:
            parts = [snapshot.get(name, (mode, []))[1] for snapshot in snapshots]
        else:
            parts = _even_parts(merged[name], parallelism)
        for instance, part in zip(dealt, parts):
            instance[name] = (mode, list(part))
    return dealt


def _even_parts(values: List[Any], parts: int) -> List[List[Any]]:
    base, extra = divmod(len(values), parts)
    cuts: List[List[Any]]
    cuts, start = [], 0
    for index in range(parts):
        end = start + base + (1 if index < extra else 0)
        cuts.append(values[start:end])
        start = end
    return cuts


class Checkpointed(Protocol):
    """A function that keeps operator state: Flink's CheckpointedFunction's two methods."""

    def initialize_state(self, context: FunctionInitializationContext) -> None: ...

    def snapshot_state(self, context: FunctionSnapshotContext) -> None: ...


def is_checkpointed(function: object) -> TypeGuard[Checkpointed]:
    """Whether `function` keeps operator state (Flink's CheckpointedFunction)."""
    return callable(getattr(function, "initialize_state", None)) and callable(
        getattr(function, "snapshot_state", None)
    )
