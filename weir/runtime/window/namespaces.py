"""Keyed state scoped to a window: the window is the namespace, as in Flink.

A NamespaceView looks like a KeyedStateBackend to the state classes (ValueState, ...). Each
(view, namespace) is a slot of its own in the current key's entry, holding that window's
states: reading or writing a window touches only its slot, and dropping a window removes
its slot (a purged window leaves nothing behind).
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Any, Callable, Dict, Hashable, Iterable, Optional

from weir.runtime.state.states import KeyedStateStore, create_state

if TYPE_CHECKING:
    from weir.runtime.state.backend import KeyedStateBackend
    from weir.runtime.state.descriptors import StateDescriptor
    from weir.runtime.state.states import KeyedState
    from weir.runtime.window.windows import Window


class NamespaceView:
    def __init__(self, backend: KeyedStateBackend, entry_name: str) -> None:
        self._backend = backend
        self._entry = entry_name
        self.namespace: Optional[Window] = None

    def clock(self) -> int:
        return self._backend.clock()

    def get_entry(self, name: Hashable) -> Any:
        space = self._backend.get_entry((self._entry, self.namespace))
        return None if space is None else space.get(name)

    def put_entry(self, name: Hashable, stored: Any) -> None:
        slot = (self._entry, self.namespace)
        space = self._backend.get_entry(slot)
        if space is None:
            self._backend.put_entry(slot, {name: stored})
        else:
            space[name] = stored
            self._backend.put_entry(slot, space)

    def entry_reader(self, name: Hashable) -> Callable[[], Any]:
        return partial(self.get_entry, name)

    def entry_writer(self, name: Hashable) -> Callable[[Any], None]:
        """put_entry of `name`, where None removes it (as KeyedStateBackend's)."""

        def write(stored: Any) -> None:
            if stored is None:
                return self.remove_entry(name)
            return self.put_entry(name, stored)

        return write

    def remove_entry(self, name: Hashable) -> None:
        slot = (self._entry, self.namespace)
        space = self._backend.get_entry(slot)
        if space is None or name not in space:
            return
        del space[name]
        if space:
            self._backend.put_entry(slot, space)
        else:
            self._backend.remove_entry(slot)

    def drop_namespace(self, namespace: Window) -> None:
        """Removes everything stored under `namespace` for the current key."""
        self._backend.remove_entry((self._entry, namespace))

    def merge_namespaces(
        self,
        name: Hashable,
        target: Window,
        sources: Iterable[Window],
        merge: Callable[[Any, Any], Any],
    ) -> None:
        """Folds entry `name` of every source namespace into `target` with merge(a, b)."""
        merged = None
        for namespace in [target] + list(sources):
            self.namespace = namespace
            value = self.get_entry(name)
            if value is not None:
                self.remove_entry(name)
                merged = value if merged is None else merge(merged, value)
        self.namespace = target
        if merged is not None:
            self.put_entry(name, merged)


def _state_merger(descriptor: StateDescriptor) -> Callable[[Any, Any], Any]:
    kind = descriptor.kind
    # (a kind's descriptor is of its class: a Reducing- or AggregatingStateDescriptor,
    # whose user function is untyped)
    if kind == "reducing":
        function = descriptor.reduce_function  # type: ignore[attr-defined]
        return getattr(function, "reduce", function)  # type: ignore[no-any-return]
    if kind == "aggregating":
        return descriptor.agg_function.merge  # type: ignore[attr-defined,no-any-return]
    if kind == "list":
        return lambda a, b: a + b
    raise TypeError(
        f"state '{descriptor.name}' is {kind} state, which cannot be merged: "
        "only list, reducing and aggregating state merge with windows"
    )


class NamespacedStateStore(KeyedStateStore):
    """The state getters over a NamespaceView; state objects are cached."""

    def __init__(self, view: NamespaceView) -> None:
        self.view = view
        self._states: Dict[str, KeyedState] = {}

    def state(self, descriptor: StateDescriptor, kind: Optional[str] = None) -> KeyedState:
        state = self._states.get(descriptor.name)
        if state is None:
            if descriptor.ttl_config is not None:
                raise ValueError(
                    f"state '{descriptor.name}': TTL is not supported for "
                    "window-scoped state (windows clean up their own state)"
                )
            state = create_state(self.view, descriptor, kind or descriptor.kind)
            self._states[descriptor.name] = state
        return state

    def merge(self, descriptor: StateDescriptor, target: Window, sources: Iterable[Window]) -> None:
        self.state(descriptor)  # validates the descriptor
        self.view.merge_namespaces(descriptor.name, target, sources, _state_merger(descriptor))

    def _state(self, descriptor: StateDescriptor, kind: str) -> KeyedState:
        return self.state(descriptor, kind)
