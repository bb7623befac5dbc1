"""Reading a savepoint's keyed state back: Flink's State Processor API, reading side.

An operator's keyed state in a savepoint (weir.runtime.state.savepoint) is its key groups'
pages: a page with id >= 0 is a pickled {key: {state name: stored value}}; negative pages
are weir's own (timers, broadcast state, watermarks: weir.runtime.wire) and are skipped, as
are the entries of window state, whose names are (view, namespace) tuples: only a plain
string name is a user's keyed state.

A value is stored as its state keeps it (weir.runtime.state.states): a ValueState's or
ReducingState's value, a ListState's list, a MapState's dict, an AggregatingState's
accumulator; with a TTL, as (value, last access ms). Reading unwraps the TTL but drops
nothing: what the savepoint holds, expired or not, is what is read.

This module is pure Python; weir.spark.state_reader makes a Spark DataFrame of it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterable, List, Tuple

from weir.runtime.state.backend import loads
from weir.runtime.state.savepoint import KEYED, load_savepoint

if TYPE_CHECKING:
    from weir.runtime.state.backend import Entry
    from weir.runtime.state.descriptors import StateDescriptor
    from weir.runtime.state.savepoint import Savepoint


class OperatorKeyedState:
    """The keyed state of the operator `uid` in the savepoint at `savepoint_path`."""

    def __init__(self, savepoint_path: str, uid: str) -> None:
        savepoint = load_savepoint(savepoint_path)
        keyed = savepoint.files_of(KEYED)
        if uid not in keyed:
            raise ValueError(_unknown_uid_message(savepoint, uid, sorted(keyed)))
        self.savepoint_path = savepoint.path
        self.uid = uid
        self.entries = _entries(savepoint.keyed_rows(uid))

    def keys(self) -> List[Any]:
        """Every key with some keyed state in this operator."""
        return [key for key, _ in self.entries]

    def state_names(self) -> List[str]:
        """The names of the user keyed states stored here (window state left out)."""
        return sorted(
            {name for _, entry in self.entries for name in entry if isinstance(name, str)}
        )

    def rows(self, state_name: str, ttl: bool = False) -> List[Tuple[Any, Any]]:
        """(key, stored value) of each key holding state `state_name`; `ttl`: the state
        has a TTL, its values are unwrapped from their (value, last access) pairs."""
        rows = [(key, entry[state_name]) for key, entry in self.entries if state_name in entry]
        if not ttl:
            return rows
        return [(key, self._unwrap(state_name, key, stored)) for key, stored in rows]

    def values(self, descriptor: StateDescriptor) -> List[Tuple[Any, Any]]:
        """(key, value) of each key holding the state `descriptor` declares, as the state's
        read gives it: a list for a ListState, a dict for a MapState, an AggregatingState's
        result (its function's get_result of the stored accumulator)."""
        rows = self.rows(descriptor.name, ttl=descriptor.ttl_config is not None)
        if descriptor.kind == "list":
            self._check_holds(descriptor, rows, list, "ListState", "list")
            return [(key, list(value)) for key, value in rows]
        if descriptor.kind == "map":
            self._check_holds(descriptor, rows, dict, "MapState", "dict")
            return [(key, dict(value)) for key, value in rows]
        if descriptor.kind == "aggregating":
            # (kind "aggregating": an AggregatingStateDescriptor)
            result = descriptor.agg_function.get_result  # type: ignore[attr-defined]
            return [(key, result(value)) for key, value in rows]
        return rows

    def where(self, state_name: str) -> str:
        """Names the state for error messages: its name, operator and savepoint."""
        return f"state '{state_name}' of operator '{self.uid}' in savepoint {self.savepoint_path}"

    def _unwrap(self, state_name: str, key: Any, stored: Any) -> Any:
        if not (isinstance(stored, tuple) and len(stored) == 2 and isinstance(stored[1], int)):
            raise TypeError(
                f"{self.where(state_name)}: the value of key {key!r} is not "
                "stored with a TTL (a (value, last access) pair): read it with "
                "a descriptor without enable_time_to_live"
            )
        return stored[0]

    def _check_holds(
        self,
        descriptor: StateDescriptor,
        rows: List[Tuple[Any, Any]],
        kind: type,
        state: str,
        held: str,
    ) -> None:
        for key, value in rows:
            if not isinstance(value, kind):
                raise TypeError(
                    f"{self.where(descriptor.name)}: key {key!r} holds a value of type "
                    f"{type(value).__name__}, not a {state}'s {held}: read it with the "
                    "descriptor of the state's kind"
                )


def read_keyed_state_rows(
    savepoint_path: str, uid: str, state_name: str, ttl: bool = False
) -> List[Tuple[Any, Any]]:
    """(key, stored value) of each key of operator `uid` holding keyed state `state_name`
    in the savepoint at `savepoint_path` (empty: a state the operator never wrote).
    `ttl`: the state was declared with a TTL (its values are unwrapped). A uid the
    savepoint has no keyed state of raises ValueError naming the uids it has."""
    return OperatorKeyedState(savepoint_path, uid).rows(state_name, ttl)


def _entries(keyed_rows: Iterable[Tuple[int, int, bytes]]) -> List[Tuple[Any, Entry]]:
    """(key, {state name: stored value}) of the user pages (id >= 0) of `keyed_rows`, in
    key group and page order."""
    entries: List[Tuple[Any, Entry]] = []
    for _, page_id, blob in sorted(keyed_rows, key=lambda row: row[:2]):
        if page_id >= 0:
            entries.extend(loads(blob).items())
    return entries


def _unknown_uid_message(savepoint: Savepoint, uid: str, keyed_uids: List[str]) -> str:
    having = ", ".join(repr(name) for name in keyed_uids) or "none"
    other = (
        f" (it has '{uid}', without keyed state: a source, or an operator with operator state only)"
        if uid in savepoint.uids
        else ""
    )
    return (
        f"savepoint {savepoint.path} has no keyed state of an operator with uid "
        f"'{uid}'{other}; the uids of its operators with keyed state: {having}"
    )
