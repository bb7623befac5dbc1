"""The keyed state objects user functions see (PyFlink's ValueState, ListState, ...).

Each reads and writes the current key's entry in a KeyedStateBackend. With a TTL, an entry
is stored as (value, last_access_ms) and expires `ttl_ms` after its last counted access.
"""

from typing import Generic, TypeVar

from weir.runtime.state.descriptors import StateTtlConfig

T = TypeVar("T")
K = TypeVar("K")
V = TypeVar("V")
IN = TypeVar("IN")
OUT = TypeVar("OUT")


class _Ttl:
    def __init__(self, config: StateTtlConfig, clock):
        self.ttl_ms = config.ttl_ms
        self.refresh_on_read = config.update_type == StateTtlConfig.UpdateType.OnReadAndWrite
        self.return_expired = (config.state_visibility
                               == StateTtlConfig.StateVisibility.ReturnExpiredIfNotCleanedUp)
        self.clock = clock

    def expired(self, last_access: int) -> bool:
        return last_access + self.ttl_ms <= self.clock()


class KeyedState:
    def __init__(self, backend, descriptor):
        self._backend = backend
        self._name = descriptor.name
        config = descriptor.ttl_config
        if config is None:  # reads and writes go straight to the backend's entry
            # (the backend's own accessors in place of the methods, a call level less;
            # writing None clears the entry)
            self._read = backend.entry_reader(self._name)  # type: ignore[method-assign]
            self._write = backend.entry_writer(self._name)  # type: ignore[method-assign]
        else:
            self._ttl = _Ttl(config, backend.clock)

    def _read(self):
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

    def _write(self, value) -> None:
        """Stores the current key's value (with a TTL: stamped with its last access)."""
        self._backend.put_entry(self._name, (value, self._ttl.clock()))

    def clear(self) -> None:
        self._backend.remove_entry(self._name)


class ValueState(KeyedState, Generic[T]):
    def __init__(self, backend, descriptor):
        super().__init__(backend, descriptor)
        # the hottest state calls, a call level less (the methods below say what they do)
        self.value = self._read  # type: ignore[method-assign]
        if descriptor.ttl_config is None:
            self.update = self._write  # type: ignore[method-assign]

    def value(self):
        return self._read()

    def update(self, value) -> None:
        if value is None:
            self.clear()
        else:
            self._write(value)


class ListState(KeyedState, Generic[T]):
    def get(self):
        values = self._read()
        return list(values) if values is not None else []

    def add(self, value) -> None:
        if value is None:
            raise ValueError(f"ListState '{self._name}': cannot add None")
        values = self._read() or []
        values.append(value)
        self._write(values)

    def add_all(self, values) -> None:
        current = self._read() or []
        current.extend(values)
        self._write(current)

    def update(self, values) -> None:
        values = list(values or [])
        if values:
            self._write(values)
        else:
            self.clear()

    def __iter__(self):
        return iter(self.get())


class MapState(KeyedState, Generic[K, V]):
    def _map(self):
        return self._read() or {}

    def get(self, key):
        return self._map().get(key)

    def put(self, key, value) -> None:
        current = self._map()
        current[key] = value
        self._write(current)

    def put_all(self, mapping) -> None:
        current = self._map()
        current.update(mapping)
        self._write(current)

    def remove(self, key) -> None:
        current = self._map()
        if key in current:
            del current[key]
            self._write(current) if current else self.clear()

    def contains(self, key) -> bool:
        return key in self._map()

    def items(self):
        return list(self._map().items())

    def keys(self):
        return list(self._map().keys())

    def values(self):
        return list(self._map().values())

    def is_empty(self) -> bool:
        return not self._map()

    def __iter__(self):
        return iter(self.keys())

    # PyFlink's MapState is a mapping too: state[key], state[key] = v, del, in
    def __getitem__(self, key):
        return self.get(key)

    def __setitem__(self, key, value) -> None:
        self.put(key, value)

    def __delitem__(self, key) -> None:
        self.remove(key)

    def __contains__(self, key) -> bool:
        return self.contains(key)


class ReducingState(KeyedState, Generic[T]):
    def __init__(self, backend, descriptor):
        super().__init__(backend, descriptor)
        function = descriptor.reduce_function
        self._reduce = getattr(function, "reduce", function)

    def get(self):
        return self._read()

    def add(self, value) -> None:
        current = self._read()
        self._write(value if current is None else self._reduce(current, value))


class AggregatingState(KeyedState, Generic[IN, OUT]):
    def __init__(self, backend, descriptor):
        super().__init__(backend, descriptor)
        self._function = descriptor.agg_function

    def get(self):
        accumulator = self._read()
        return None if accumulator is None else self._function.get_result(accumulator)

    def add(self, value) -> None:
        accumulator = self._read()
        if accumulator is None:
            accumulator = self._function.create_accumulator()
        self._write(self._function.add(value, accumulator))


class KeyedStateStore:
    """PyFlink's KeyedStateStore: the five state getters over `_state(descriptor, kind)`."""

    def _state(self, descriptor, kind):
        raise NotImplementedError

    def get_state(self, state_descriptor):
        return self._state(state_descriptor, "value")

    def get_list_state(self, state_descriptor):
        return self._state(state_descriptor, "list")

    def get_map_state(self, state_descriptor):
        return self._state(state_descriptor, "map")

    def get_reducing_state(self, state_descriptor):
        return self._state(state_descriptor, "reducing")

    def get_aggregating_state(self, state_descriptor):
        return self._state(state_descriptor, "aggregating")


def as_value_descriptor(descriptor):
    """PyFlink's `get_state` gives a value state whatever the descriptor: one of a list
    or map descriptor holds a whole list or dict (of its declared types)."""
    from weir.common.typeinfo import Types
    from weir.runtime.state.descriptors import ValueStateDescriptor
    kind, info = descriptor.kind, descriptor.type_info
    if kind == "map" and info is not None and descriptor.key_type_info is not None:
        info = Types.MAP(descriptor.key_type_info, info)
    elif kind == "list" and info is not None:
        info = Types.LIST(info)
    else:
        info = None
    value = ValueStateDescriptor(descriptor.name, info)
    value.ttl_config = descriptor.ttl_config
    return value


STATE_CLASSES = {
    "value": ValueState,
    "list": ListState,
    "map": MapState,
    "reducing": ReducingState,
    "aggregating": AggregatingState,
}


def create_state(backend, descriptor, expected_kind: str):
    if descriptor.kind != expected_kind:
        raise TypeError(f"state '{descriptor.name}' is declared as {descriptor.kind} state, "
                        f"but was requested as {expected_kind} state")
    return STATE_CLASSES[expected_kind](backend, descriptor)
