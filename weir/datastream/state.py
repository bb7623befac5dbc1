"""Keyed state descriptors and TTL, with PyFlink's names (`pyflink.datastream.state`)."""

from weir.runtime.state.descriptors import (  # noqa: F401
    AggregatingStateDescriptor, ListStateDescriptor, MapStateDescriptor,
    ReducingStateDescriptor, StateDescriptor, StateTtlConfig, ValueStateDescriptor)
from weir.runtime.state.states import (  # noqa: F401
    AggregatingState, ListState, MapState, ReducingState, ValueState)
