"""Builds runtime operators from plan nodes: the same for every engine."""

import copy
import dataclasses
from typing import Any, Callable, List, Mapping, Optional

from weir.plan.graph import Node
from weir.runtime.adapters import FinalReduce, KeyedReduce
from weir.plan.physical import PhysicalPlan
from weir.runtime.chain import TWO_INPUT_METHODS, ChainStep, StatelessChain, Step, TwoInputChain
from weir.runtime.keyed_operator import KeyedStreamOperator
from weir.runtime.non_keyed import InstanceSpec
from weir.runtime.operator_factory import create_keyed_operator
from weir.runtime.state.backend import KeyedStateBackend


class _Convert:
    """Converts each record to the operator's declared output type (as PyFlink does: a
    tuple for a ROW becomes a Row, a FLOAT is 32 bits), naming the operator and the field
    where a record does not fit."""

    def __init__(self, type_info: Any, operator: str) -> None:
        self.type_info = type_info  # the node's output type: one with convert()
        self.operator = operator

    def map(self, value: Any) -> Any:
        try:
            return self.type_info.convert(value)
        except TypeError as exc:
            raise TypeError(
                f"operator '{self.operator}' produced a record that does not match "
                f"its declared output type {self.type_info!r}: {exc}"
            ) from None


def _converts(node: Node) -> bool:
    type_info = node.output_type
    return (
        type_info is not None
        and type(type_info).__name__ != "PickledBytesTypeInfo"
        and (hasattr(type_info, "convert"))
    )


def build_chain(nodes: List[Node], uids: Mapping[int, str]) -> StatelessChain:
    steps: List[ChainStep] = []
    for node in nodes:
        name = uids.get(node.id, node.name)
        function = copy.deepcopy(node.param("function"))
        steps += _steps(node, node.param("step"), function, name)
    return StatelessChain(steps, "->".join(s.name for s in steps))


def _step(kind: str, function: Any, name: str) -> ChainStep:
    if kind == "async":  # asyncio is imported by the jobs that use it only
        from weir.runtime.async_io import AsyncWaitStep

        return AsyncWaitStep(function, name)
    return Step(kind, function, name)


def _steps(node: Node, kind: str, function: Any, name: str) -> List[ChainStep]:
    """The step of `function`, then the conversion to the node's output type, if any."""
    steps = [_step(kind, function, name)]
    if kind in ("map", "flat_map", "process", "async") and _converts(node):
        steps.append(Step("map", _Convert(node.output_type, name), name))
    return steps


def build_two_input_chain(node: Node, uid: str) -> TwoInputChain:
    """The chain of a stateless node of two inputs: each input's records through the
    function's method for that input."""
    function = copy.deepcopy(node.param("function"))
    kind = node.param("step")
    return TwoInputChain(
        function,
        uid,
        [
            StatelessChain(_steps(node, kind, getattr(function, method), uid), uid)
            for method in TWO_INPUT_METHODS[kind]
        ],
    )


def build_keyed_operator(
    node: Node, uid: str, backend: KeyedStateBackend, plan: PhysicalPlan, subtask_index: int = 0
) -> KeyedStreamOperator:
    """The operator of a keyed node of `plan`; in BATCH mode a rolling reduce emits only
    each key's final result and timers fire only at the end of the input, and a non-keyed
    operator with instances learns the run it belongs to and what it restores."""
    function = copy.deepcopy(node.param("function"))
    if plan.batch and type(function) is KeyedReduce:
        function = FinalReduce(function)
    if type(function) is InstanceSpec:
        function = dataclasses.replace(
            function, run_id=plan.run_id, restored=plan.restored.get(uid), restoring=plan.restoring
        )
    operator = create_keyed_operator(
        function, backend, uid, subtask_index, plan.parallelism, plan.job_parameters
    )
    operator.batch_execution = plan.batch
    return operator


def output_converter(node: Node, uid: str) -> Optional[Callable[[Any], Any]]:
    """A callable converting main outputs of a keyed node to its output type, or None."""
    return _Convert(node.output_type, uid).map if _converts(node) else None
