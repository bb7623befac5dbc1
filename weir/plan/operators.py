"""Builds runtime operators from plan nodes: the same for every engine."""

import copy
from typing import List

from weir.plan.graph import Node
from weir.runtime.chain import StatelessChain, Step
from weir.runtime.keyed_operator import KeyedStreamOperator
from weir.runtime.operator_factory import create_keyed_operator


class _Validate:
    """Checks each record against the operator's declared output type."""

    def __init__(self, type_info, operator):
        self.type_info = type_info
        self.operator = operator

    def filter(self, value):
        try:
            self.type_info.validate(value)
        except TypeError as exc:
            raise TypeError(f"operator '{self.operator}' produced a record that does not match "
                            f"its declared output type {self.type_info!r}: {exc}") from None
        return True


def _validates(node: Node) -> bool:
    type_info = node.output_type
    return type_info is not None and type(type_info).__name__ != "PickledBytesTypeInfo" and (
        hasattr(type_info, "validate"))


def build_chain(nodes: List[Node], uids) -> StatelessChain:
    steps = []
    for node in nodes:
        name = uids.get(node.id, node.name)
        function = copy.deepcopy(node.param("function"))
        steps.append(Step(node.param("step"), function, name))
        if node.param("step") in ("map", "flat_map", "process") and _validates(node):
            steps.append(Step("filter", _Validate(node.output_type, name), name))
    return StatelessChain(steps, "->".join(s.name for s in steps))


def build_keyed_operator(node: Node, uid: str, backend, parallelism=1, subtask_index=0,
                         job_parameters=None) -> KeyedStreamOperator:
    function = copy.deepcopy(node.param("function"))
    return create_keyed_operator(function, backend, uid, subtask_index, parallelism,
                                 job_parameters)


def output_validator(node: Node, uid: str):
    """A callable checking main outputs of a keyed node, or None."""
    return _Validate(node.output_type, uid).filter if _validates(node) else None
