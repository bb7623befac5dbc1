"""Broadcast state: a stream's elements reach every parallel instance of an operator.

weir runs a (keyed) broadcast process function as a keyed operator of two inputs: the
keyed input (or, non-keyed, each record to its producer's parallel instance, held in one
key group: weir.runtime.non_keyed), and the broadcast input, whose every element goes to
every key group. Each key group keeps its own copy of the broadcast state in a reserved
page and applies the same elements in the same order, so every copy is identical (as
Flink's instances are, given a deterministic function), and a key group with no other
input in a micro-batch still learns each element. Within a micro-batch's phase, a key
group applies its broadcast elements before its other records.

Flink calls process_broadcast_element once per parallel instance; weir calls it once per
key group, and keeps the outputs of one key group per parallel instance (the first of its
range), so a job emits what Flink emits at the same parallelism.
"""

from __future__ import annotations

from typing import (
    TYPE_CHECKING,
    Any,
    Callable,
    Iterable,
    Iterator,
    Mapping,
    NoReturn,
    Optional,
    Sequence,
)

from weir.runtime.context import ProcessContext, TimerService
from weir.runtime.key_groups import first_key_group, operator_index
from weir.runtime.keyed_process import KeyedProcessOperator
from weir.runtime.wire import BROADCAST_PAGE

if TYPE_CHECKING:
    from weir.runtime.keyed_operator import Emit
    from weir.runtime.state.backend import KeyedStateBackend
    from weir.runtime.state.descriptors import StateDescriptor
    from weir.runtime.state.states import KeyedState

BROADCAST_INPUT = 1


class AllKeyGroups:
    """The key selector of a broadcast input: its records go to every key group."""

    def __call__(self, value: Any) -> None:
        return None


class BroadcastSpec:
    """A broadcast process node's function and its declared broadcast state descriptors."""

    def __init__(self, function: Any, descriptors: Iterable[StateDescriptor]) -> None:
        self.function = function
        self.state_names = tuple(d.name for d in descriptors)

    @property
    def needs_processing_time(self) -> bool:
        return hasattr(self.function, "on_timer")


class ReadOnlyBroadcastState:
    """A broadcast state as process_element sees it: read only."""

    def __init__(self, entries: dict[Any, Any], changed: Callable[[], None]) -> None:
        self._entries = entries
        self._changed = changed

    def get(self, key: Any) -> Any:
        return self._entries.get(key)

    def contains(self, key: Any) -> bool:
        return key in self._entries

    def items(self) -> list[tuple[Any, Any]]:
        return list(self._entries.items())

    def keys(self) -> list[Any]:
        return list(self._entries)

    def values(self) -> list[Any]:
        return list(self._entries.values())

    def is_empty(self) -> bool:
        return not self._entries

    def __getitem__(self, key: Any) -> Any:
        return self._entries[key]

    def __contains__(self, key: object) -> bool:
        return key in self._entries

    def __iter__(self) -> Iterator[Any]:
        return iter(list(self._entries))


class BroadcastState(ReadOnlyBroadcastState):
    """A broadcast state as process_broadcast_element sees it: read and write."""

    def put(self, key: Any, value: Any) -> None:
        self._entries[key] = value
        self._changed()

    def put_all(self, dict_value: Mapping[Any, Any]) -> None:
        self._entries.update(dict_value)
        self._changed()

    def remove(self, key: Any) -> None:
        self._entries.pop(key, None)
        self._changed()

    def clear(self) -> None:
        self._entries.clear()
        self._changed()

    def __setitem__(self, key: Any, value: Any) -> None:
        self.put(key, value)

    def __delitem__(self, key: Any) -> None:
        self.remove(key)


class _BroadcastStates:
    """The broadcast states of one key group (its reserved page)."""

    def __init__(self, operator: BroadcastProcessOperator, key_group: int, writable: bool) -> None:
        self.pages = operator.backend.key_group_pages(key_group)
        self.names = operator.spec.state_names
        self.kind: type[ReadOnlyBroadcastState] = (
            BroadcastState if writable else ReadOnlyBroadcastState
        )

    def get(self, descriptor: StateDescriptor) -> ReadOnlyBroadcastState:
        if descriptor.name not in self.names:
            raise ValueError(
                f"broadcast state '{descriptor.name}' was not declared: pass its "
                f"MapStateDescriptor to broadcast(...) (declared: {list(self.names)})"
            )
        page = self.pages.page(BROADCAST_PAGE)
        entries = page.get(descriptor.name)
        if entries is None:
            entries = page[descriptor.name] = {}
        return self.kind(entries, self._changed)

    def _changed(self) -> None:
        self.pages.dirty.add(BROADCAST_PAGE)


class ReadOnlyContext(ProcessContext):
    """The ctx of process_element and on_timer: the process context, the clocks and the
    broadcast states, read only."""

    def __init__(self, operator: BroadcastProcessOperator) -> None:
        super().__init__(TimerService(operator.clock, operator), operator._emit_side)
        self._operator = operator

    def current_processing_time(self) -> int:
        return self._operator.clock.processing_time

    def current_watermark(self) -> int:
        return self._operator.clock.watermark

    def get_broadcast_state(self, state_descriptor: StateDescriptor) -> ReadOnlyBroadcastState:
        operator = self._operator
        key_group = operator.active_key_groups[0]  # keyed: the current key's group
        return _BroadcastStates(operator, key_group, False).get(state_descriptor)


class BroadcastContext(ReadOnlyContext):
    """The ctx of process_broadcast_element: the broadcast states, writable, and (keyed)
    apply_to_keyed_state."""

    def __init__(self, operator: BroadcastProcessOperator) -> None:
        super().__init__(operator)
        self.key_group: Optional[int] = None  # the operator's, for each broadcast element

    def get_broadcast_state(self, state_descriptor: StateDescriptor) -> BroadcastState:
        assert self.key_group is not None  # (in process_broadcast_element)
        return _BroadcastStates(  # type: ignore[return-value]  # (writable: a BroadcastState)
            self._operator, self.key_group, True
        ).get(state_descriptor)

    def apply_to_keyed_state(
        self, state_descriptor: StateDescriptor, function: Callable[[Any, KeyedState], Any]
    ) -> None:
        """function(key, state) for every key of this instance with `state_descriptor`'s
        state (Flink's KeyedBroadcastProcessFunction.Context.applyToKeyedState)."""
        assert self.key_group is not None  # (in process_broadcast_element)
        self._operator.apply_to_keyed_state(self.key_group, state_descriptor, function)

    def timer_service(self) -> NoReturn:
        raise RuntimeError(
            "process_broadcast_element has no timer service: a broadcast "
            "element belongs to no key (register timers in process_element)"
        )


def _discard(tag_id: Optional[str], value: Any, timestamp: Optional[int]) -> None:
    pass


class BroadcastProcessOperator(KeyedProcessOperator):
    """A (Keyed)BroadcastProcessFunction: process_element(value, ctx) for the first
    input's records, process_broadcast_element(value, ctx) for the broadcast input's."""

    def __init__(
        self,
        spec: BroadcastSpec,
        backend: KeyedStateBackend,
        name: str,
        subtask_index: int = 0,
        parallelism: int = 1,
        job_parameters: Optional[Mapping[str, str]] = None,
    ) -> None:
        super().__init__(spec.function, backend, name, subtask_index, parallelism, job_parameters)
        self.spec = spec
        self.parallelism = parallelism
        self.ctx = ReadOnlyContext(self)
        self.broadcast_ctx = BroadcastContext(self)
        self._process_broadcast = spec.function.process_broadcast_element

    def process_element(
        self, key: Any, value: Any, timestamp: Optional[int], emit: Emit, input_label: int = 0
    ) -> None:
        if input_label != BROADCAST_INPUT:
            super().process_element(key, value, timestamp, emit)
            return
        key_group = self.active_key_groups[0]
        ctx = self.broadcast_ctx
        ctx.key_group, ctx.current_timestamp = key_group, timestamp
        self._emit = emit if self._keeps_outputs(key_group) else _discard
        self._output_ts = timestamp
        self._collect(self._process_broadcast, value, ctx)

    def process_labelled(
        self,
        values: Sequence[Any],
        stamps: Sequence[Optional[int]],
        inputs: Sequence[int],
        keys: Sequence[Any],
        emit: Emit,
    ) -> None:
        """The broadcast input's records first, then the others, each in order."""
        broadcast = [i for i, label in enumerate(inputs) if label == BROADCAST_INPUT]
        if len(broadcast) < len(inputs):
            order = broadcast + [i for i, label in enumerate(inputs) if label != BROADCAST_INPUT]
            # (each column reordered: of its own type)
            values, stamps, inputs, keys = (  # type: ignore[assignment]
                [column[i] for i in order] for column in (values, stamps, inputs, keys)
            )
        super().process_labelled(values, stamps, inputs, keys, emit)

    def _keeps_outputs(self, key_group: int) -> bool:
        """Whether `key_group` is the first of its parallel instance's range."""
        maxp, parallelism = self.backend.max_parallelism, self.parallelism
        index = operator_index(key_group, maxp, parallelism)
        return key_group == first_key_group(index, maxp, parallelism)

    def apply_to_keyed_state(
        self,
        key_group: int,
        descriptor: StateDescriptor,
        function: Callable[[Any, KeyedState], Any],
    ) -> None:
        backend = self.backend
        pages = backend.key_group_pages(key_group)
        state = self.runtime_context._state(descriptor, descriptor.kind)
        for page_id in range(backend.pages_per_key_group):
            for key in [k for k, e in pages.page(page_id).items() if descriptor.name in e]:
                backend.set_current_key(key)
                self._call(function, key, state)
        backend.set_current_key(None)
