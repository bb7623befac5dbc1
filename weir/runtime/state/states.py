"""The keyed state objects user functions see (PyFlink's ValueState, ListState, ...).

Each reads and writes the current key's entry in a KeyedStateBackend. With a TTL, an entry
is stored as (value, last_access_ms) and expires `ttl_ms` after its last counted access.
"""

from __future__ import annotations

from typing import (
    TYPE_CHECKING,
    Any,
    Callable,
    Generic,
    Hashable,
    Iterable,
    Iterator,
    Mapping,
    Optional,
    Protocol,
    TypeVar,
)

from weir.runtime.state.descriptors import StateTtlConfig

if TYPE_CHECKING:
    from weir.runtime.state.descriptors import (
        AggregatingStateDescriptor,
        ReducingStateDescriptor,
        StateDescriptor,
    )

T = TypeVar("T")
K = TypeVar("K")
V = TypeVar("V")
IN = TypeVar("IN")
OUT = TypeVar("OUT")


class StateBackend(Protocol):
    """What a state object reads and writes the current key's entries through: a
    KeyedStateBackend, or a window's NamespaceView (weir.runtime.window.namespaces)."""

    def clock(self) -> int: ...

    def get_entry(self, state_name: Hashable) -> Any: ...

    def put_entry(self, state_name: Hashable, stored: Any) -> None: ...

    def remove_entry(self, state_name: Hashable) -> None: ...

    def entry_reader(self, state_name: Hashable) -> Callable[[], Any]: ...

    def entry_writer(self, state_name: Hashable) -> Callable[[Any], None]: ...


class _Ttl:
    def __init__(self, config: StateTtlConfig, clock: Callable[[], int]) -> None:
        self.ttl_ms = config.ttl_ms
        self.refresh_on_read = config.update_type == StateTtlConfig.UpdateType.OnReadAndWrite
        self.return_expired = (
            config.state_visibility == StateTtlConfig.StateVisibility.ReturnExpiredIfNotCleanedUp
        )
        self.clock = clock

    def expired(self, last_access: int) -> bool:
        return last_access + self.ttl_ms <= self.clock()


class KeyedState:
    def __init__(self, backend: StateBackend, descriptor: StateDescriptor) -> None:
        self._backend = backend
        self._name = descriptor.name
        config = descriptor.ttl_config
        if config is None:  # reads and writes go straight to the backend's entry
            # (the backend's own accessors in place of the methods, a call level less;
            # writing None clears the entry)
            self._read = backend.entry_reader(self._name)  # type: ignore[method-assign]
            self._write = backend.entry_writer(  # type: ignore[method-assign,assignment]
                self._name
            )
        else:
            self._ttl = _Ttl(config, backend.clock)

    def _read(self) -> Any:
        """The current key's value, as its TTL's visibility allows."""
        stored = self._backend.get_entry(self._name)
        if stored is None:
            return None
        value, last_access = stored
        if self._ttl.expired(last_access):
            if not self._ttl.return_expired:
                self._backend.remove_entry(self._name)
                return None
        elif self._ttl.refresh_on_read:
            self._backend.put_entry(self._name, (value, self._ttl.clock()))
        return value

    def _write(self, value: Any) -> None:
        """Stores the current key's value (with a TTL: stamped with its last access)."""
        self._backend.put_entry(self._name, (value, self._ttl.clock()))

    def clear(self) -> None:
        self._backend.remove_entry(self._name)


class ValueState(KeyedState, Generic[T]):
    def __init__(self, backend: StateBackend, descriptor: StateDescriptor) -> None:
        super().__init__(backend, descriptor)
        # the hottest state calls, a call level less (the methods below say what they do)
        self.value = self._read  # type: ignore[method-assign]
        if descriptor.ttl_config is None:
            self.update = self._write  # type: ignore[method-assign]

    def value(self) -> Optional[T]:
        return self._read()  # type: ignore[no-any-return]  # (replaced in __init__)

    def update(self, value: Optional[T]) -> None:
        if value is None:
            self.clear()
        else:
            self._write(value)


class ListState(KeyedState, Generic[T]):
    def get(self) -> list[T]:
        values = self._read()
        return list(values) if values is not None else []

    def add(self, value: T) -> None:
        if value is None:
            raise ValueError(f"ListState '{self._name}': cannot add None")
        values = self._read() or []
        values.append(value)
        self._write(values)

    def add_all(self, values: Iterable[T]) -> None:
        current = self._read() or []
        current.extend(values)
        self._write(current)

    def update(self, values: Optional[Iterable[T]]) -> None:
        values = list(values or [])
        if values:
            self._write(values)
        else:
            self.clear()

    def __iter__(self) -> Iterator[T]:
        return iter(self.get())


class MapState(KeyedState, Generic[K, V]):
    def _map(self) -> dict[K, V]:
        return self._read() or {}

    def get(self, key: K) -> Optional[V]:
        return self._map().get(key)

    def put(self, key: K, value: V) -> None:
        current = self._map()
        current[key] = value
        self._write(current)

    def put_all(self, mapping: Mapping[K, V]) -> None:
        current = self._map()
        current.update(mapping)
        self._write(current)

    def remove(self, key: K) -> None:
        current = self._map()
        if key in current:
            del current[key]
            self._write(current) if current else self.clear()

    def contains(self, key: K) -> bool:
        return key in self._map()

    def items(self) -> list[tuple[K, V]]:
        return list(self._map().items())

    def keys(self) -> list[K]:
        return list(self._map().keys())

    def values(self) -> list[V]:
        return list(self._map().values())

    def is_empty(self) -> bool:
        return not self._map()

    def __iter__(self) -> Iterator[K]:
        return iter(self.keys())

    # PyFlink's MapState is a mapping too: state[key], state[key] = v, del, in
    def __getitem__(self, key: K) -> Optional[V]:
        return self.get(key)

    def __setitem__(self, key: K, value: V) -> None:
        self.put(key, value)

    def __delitem__(self, key: K) -> None:
        self.remove(key)

    def __contains__(self, key: K) -> bool:
        return self.contains(key)


class ReducingState(KeyedState, Generic[T]):
    def __init__(self, backend: StateBackend, descriptor: ReducingStateDescriptor) -> None:
        super().__init__(backend, descriptor)
        function = descriptor.reduce_function
        self._reduce: Callable[[T, T], T] = getattr(function, "reduce", function)

    def get(self) -> Optional[T]:
        return self._read()  # type: ignore[no-any-return]  # (a T, or None: nothing added)

    def add(self, value: T) -> None:
        current = self._read()
        self._write(value if current is None else self._reduce(current, value))


class AggregatingState(KeyedState, Generic[IN, OUT]):
    def __init__(self, backend: StateBackend, descriptor: AggregatingStateDescriptor) -> None:
        super().__init__(backend, descriptor)
        self._function = descriptor.agg_function  # (a user's AggregateFunction)

    def get(self) -> Optional[OUT]:
        accumulator = self._read()
        return None if accumulator is None else self._function.get_result(accumulator)

    def add(self, value: IN) -> None:
        accumulator = self._read()
        if accumulator is None:
            accumulator = self._function.create_accumulator()
        self._write(self._function.add(value, accumulator))


class KeyedStateStore:
    """PyFlink's KeyedStateStore: the five state getters over `_state(descriptor, kind)`."""

    def _state(self, descriptor: StateDescriptor, kind: str) -> KeyedState:
        raise NotImplementedError

    # (each kind's state is of its class: create_state's STATE_CLASSES)
    def get_state(self, state_descriptor: StateDescriptor) -> ValueState[Any]:
        return self._state(state_descriptor, "value")  # type: ignore[return-value]  # (kind)

    def get_list_state(self, state_descriptor: StateDescriptor) -> ListState[Any]:
        return self._state(state_descriptor, "list")  # type: ignore[return-value]  # (kind)

    def get_map_state(self, state_descriptor: StateDescriptor) -> MapState[Any, Any]:
        return self._state(state_descriptor, "map")  # type: ignore[return-value]  # (kind)

    def get_reducing_state(self, state_descriptor: StateDescriptor) -> ReducingState[Any]:
        return self._state(state_descriptor, "reducing")  # type: ignore[return-value]  # (kind)

    def get_aggregating_state(
        self, state_descriptor: StateDescriptor
    ) -> AggregatingState[Any, Any]:
        return self._state(  # type: ignore[return-value]  # (kind)
            state_descriptor, "aggregating"
        )


def as_value_descriptor(descriptor: StateDescriptor) -> StateDescriptor:
    """PyFlink's `get_state` gives a value state whatever the descriptor: one of a list
    or map descriptor holds a whole list or dict (of its declared types)."""
    from weir.common.typeinfo import Types
    from weir.runtime.state.descriptors import ValueStateDescriptor

    kind, info = descriptor.kind, descriptor.type_info
    # (kind "map": a MapStateDescriptor, which has the key type)
    if kind == "map" and info is not None and descriptor.key_type_info is not None:  # type: ignore[attr-defined]
        info = Types.MAP(descriptor.key_type_info, info)  # type: ignore[attr-defined]
    elif kind == "list" and info is not None:
        info = Types.LIST(info)
    else:
        info = None
    value = ValueStateDescriptor(descriptor.name, info)
    value.ttl_config = descriptor.ttl_config
    return value


STATE_CLASSES: dict[str, type[KeyedState]] = {
    "value": ValueState,
    "list": ListState,
    "map": MapState,
    "reducing": ReducingState,
    "aggregating": AggregatingState,
}


def create_state(
    backend: StateBackend, descriptor: StateDescriptor, expected_kind: str
) -> KeyedState:
    if descriptor.kind != expected_kind:
        raise TypeError(
            f"state '{descriptor.name}' is declared as {descriptor.kind} state, "
            f"but was requested as {expected_kind} state"
        )
    return STATE_CLASSES[expected_kind](backend, descriptor)
