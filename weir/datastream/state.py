"""Keyed state descriptors and TTL, with PyFlink's names (`pyflink.datastream.state`)."""

from weir.runtime.state.descriptors import (  # noqa: F401
    AggregatingStateDescriptor,
    ListStateDescriptor,
    MapStateDescriptor,
    ReducingStateDescriptor,
    StateDescriptor,
    StateTtlConfig,
    ValueStateDescriptor,
)
from weir.runtime.state.states import (  # noqa: F401
    AggregatingState,
    ListState,
    MapState,
    ReducingState,
    ValueState,
)
from weir.runtime.state.operator_state import (  # noqa: F401
    FunctionInitializationContext,
    FunctionSnapshotContext,
    OperatorStateStore,
)
from weir.common.gaps import module_gaps  # noqa: E402

__getattr__ = module_gaps(
    __name__, "pyflink.datastream.state", ["BroadcastState", "ReadOnlyBroadcastState"]
)
