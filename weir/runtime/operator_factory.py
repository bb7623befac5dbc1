"""Builds the keyed operator a plan node declares: a window operator from a WindowSpec, an
interval join from an IntervalJoinSpec, a broadcast process operator from a BroadcastSpec,
a keyed process operator from any KeyedProcessFunction-shaped function."""

from typing import Any, Callable, Dict, Optional

from weir.runtime.broadcast import BroadcastProcessOperator, BroadcastSpec
from weir.runtime.interval_join import IntervalJoinOperator, IntervalJoinSpec
from weir.runtime.keyed_operator import KeyedStreamOperator
from weir.runtime.keyed_process import KeyedProcessOperator
from weir.runtime.non_keyed import InstanceSpec, NonKeyedOperator
from weir.runtime.state.backend import KeyedStateBackend
from weir.runtime.window.operator import WindowOperator
from weir.runtime.window.spec import WindowSpec

# the spec's type -> its operator's class
_OPERATORS: Dict[type, Callable[..., KeyedStreamOperator]] = {
    WindowSpec: WindowOperator,
    IntervalJoinSpec: IntervalJoinOperator,
    BroadcastSpec: BroadcastProcessOperator,
    InstanceSpec: NonKeyedOperator,
}


def create_keyed_operator(
    function: Any,
    backend: KeyedStateBackend,
    name: str,
    subtask_index: int = 0,
    parallelism: int = 1,
    job_parameters: Optional[Dict[str, str]] = None,
) -> KeyedStreamOperator:
    kind = _OPERATORS.get(type(function), KeyedProcessOperator)
    return kind(function, backend, name, subtask_index, parallelism, job_parameters)


def wakes_every_batch(function: Any) -> bool:
    """Whether an operator of `function` may have processing-time timers, so that every key
    group it owns must run in every micro-batch."""
    if isinstance(function, (WindowSpec, BroadcastSpec)):
        return function.needs_processing_time
    if isinstance(function, (IntervalJoinSpec, InstanceSpec)):
        return False
    return hasattr(function, "on_timer")
