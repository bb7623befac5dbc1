"""Operator (non-keyed) state, as Flink's CheckpointedFunction sees it.

A parallel instance of a non-keyed function keeps lists of its own: `get_list_state` (on a
restore each instance gets back its own list; Flink splits the lists evenly when the
parallelism changes) and `get_union_list_state` (on a restore every instance gets the
union of all instances' lists). The function fills them in `snapshot_state` and reads
them back in `initialize_state` when `context.is_restored()`.

A snapshot is a plain {state name: (mode, [elements])} dict, what an engine stores.
"""

from typing import Dict, Optional, Tuple

SPLIT = "split"  # Flink's OperatorStateHandle.Mode.SPLIT_DISTRIBUTE
UNION = "union"  # Mode.UNION

Snapshot = Dict[str, Tuple[str, list]]


class OperatorListState:
    """A list of an operator instance (Flink's ListState in operator state)."""

    def __init__(self, name: str, values: Optional[list] = None):
        self._name = name
        self._values = list(values or [])

    def get(self) -> list:
        return list(self._values)

    def __iter__(self):
        return iter(self.get())

    def add(self, value) -> None:
        if value is None:
            raise ValueError(f"operator ListState '{self._name}': cannot add None")
        self._values.append(value)

    def add_all(self, values) -> None:
        for value in values:
            self.add(value)

    def update(self, values) -> None:
        self._values = []
        self.add_all(values or [])

    def clear(self) -> None:
        self._values = []


class OperatorStateStore:
    """`context.get_operator_state_store()` in `initialize_state`: the instance's lists by
    descriptor, each with its redistribution mode."""

    def __init__(self, restored: Optional[Snapshot] = None,
                 unions: Optional[Dict[str, list]] = None):
        self._restored = restored or {}
        self._unions = unions  # on a restore from another run: the union of every instance
        self._states: Dict[str, Tuple[str, OperatorListState]] = {}

    def get_list_state(self, state_descriptor) -> OperatorListState:
        return self._get(state_descriptor, SPLIT)

    def get_union_list_state(self, state_descriptor) -> OperatorListState:
        return self._get(state_descriptor, UNION)

    def get_broadcast_state(self, state_descriptor):
        raise NotImplementedError(
            "get_broadcast_state() in a CheckpointedFunction is not supported yet; use "
            "broadcast(descriptor) and a (Keyed)BroadcastProcessFunction")

    def _get(self, descriptor, mode: str) -> OperatorListState:
        name = getattr(descriptor, "name", None)
        if not isinstance(name, str) or type(descriptor).__name__ != "ListStateDescriptor":
            raise TypeError("operator state takes a ListStateDescriptor, got "
                            f"{type(descriptor).__name__}")
        known = self._states.get(name)
        if known is not None:
            if known[0] != mode:
                raise ValueError(f"operator state '{name}' was registered as "
                                 f"{_MODE_NAMES[known[0]]} state; it cannot also be "
                                 f"{_MODE_NAMES[mode]} state")
            return known[1]
        state = OperatorListState(name, self._restored_values(name, mode))
        self._states[name] = (mode, state)
        return state

    def _restored_values(self, name: str, mode: str) -> list:
        if mode == UNION and self._unions is not None:
            return self._unions.get(name, [])
        stored = self._restored.get(name)
        if stored is None:
            return []
        if stored[0] != mode:
            raise ValueError(f"operator state '{name}' was checkpointed as "
                             f"{_MODE_NAMES[stored[0]]} state and is now asked for as "
                             f"{_MODE_NAMES[mode]} state")
        return stored[1]

    def snapshot(self) -> Snapshot:
        return {name: (mode, state.get()) for name, (mode, state) in self._states.items()}


_MODE_NAMES = {SPLIT: "list", UNION: "union list"}


class FunctionInitializationContext:
    """What `initialize_state` gets (Flink's FunctionInitializationContext)."""

    def __init__(self, store: OperatorStateStore, restored: bool):
        self._store = store
        self._restored = restored

    def is_restored(self) -> bool:
        """Whether the instance's state comes from an earlier snapshot."""
        return self._restored

    def get_operator_state_store(self) -> OperatorStateStore:
        return self._store


class FunctionSnapshotContext:
    """What `snapshot_state` gets: the checkpoint (weir: the micro-batch) it belongs to."""

    def __init__(self, checkpoint_id: int, timestamp: int):
        self._checkpoint_id = checkpoint_id
        self._timestamp = timestamp

    def get_checkpoint_id(self) -> int:
        return self._checkpoint_id

    def get_checkpoint_timestamp(self) -> int:
        return self._timestamp


class UnionStateLog:
    """The driver's copy of the union list states of every non-keyed instance, as of the
    last micro-batch each ran in: what every instance gets on a restore."""

    def __init__(self, latest: Optional[dict] = None):
        self.latest = dict(latest or {})  # (operator uid, key group) -> {name: list}
        self._changed = False

    def record(self, reports: dict) -> None:
        self.latest.update(reports)
        self._changed = True

    def take_changed(self) -> Optional[dict]:
        """`latest` if it changed since the last call (what to save), else None."""
        changed, self._changed = self._changed, False
        return self.latest if changed else None

    def unions(self) -> Dict[str, Dict[str, list]]:
        """{operator uid: {state name: the union of its instances' lists}}."""
        unions: Dict[str, Dict[str, list]] = {}
        for (uid, _), states in sorted(self.latest.items()):
            merged = unions.setdefault(uid, {})
            for name, values in states.items():
                merged.setdefault(name, []).extend(values)
        return unions


def is_checkpointed(function) -> bool:
    """Whether `function` keeps operator state (Flink's CheckpointedFunction)."""
    return callable(getattr(function, "initialize_state", None)) and callable(
        getattr(function, "snapshot_state", None))
