"""JobGraph: the operators of a job and the streams between them.

A node's output stream carries its main output and its side outputs, told apart by tag.
Consumers of the main output read tag None; a `side_output` node selects one tag.
"""

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Dict, Iterable, List, Optional, Set, Tuple

SOURCE = "source"
STATELESS = "stateless"  # params: step (map | flat_map | filter | process | timestamps)
WATERMARK = "watermark"  # params: strategy
KEYED = "keyed"  # params: key_selector, function (KeyedProcessFunction-shaped)
TWO_INPUT = "two_input"  # params: step (map | flat_map | process), function (Co*Function)
UNION = "union"
SIDE_OUTPUT = "side_output"  # params: tag_id
SINK = "sink"  # params: sink

KINDS = (SOURCE, STATELESS, WATERMARK, KEYED, TWO_INPUT, UNION, SIDE_OUTPUT, SINK)


@dataclass(frozen=True)
class Node:
    id: int
    kind: str
    name: str
    inputs: Tuple[int, ...] = ()
    params: Dict[str, Any] = field(default_factory=dict, compare=False)
    uid: Optional[str] = None
    output_type: object = None
    parallelism: Optional[int] = None

    def display_name(self) -> str:
        return self.uid or self.name

    def param(self, key: str) -> Any:
        return self.params[key]


class JobGraph:
    """Nodes in creation order; `sinks()` are the roots that an execute() runs."""

    def __init__(self) -> None:
        self.nodes: Dict[int, Node] = {}
        self._next_id = 0

    def add(
        self,
        kind: str,
        name: str,
        inputs: Iterable[int] = (),
        output_type: object = None,
        **params: Any,
    ) -> Node:
        if kind not in KINDS:
            raise ValueError(f"unknown node kind '{kind}'")
        node = Node(self._next_id, kind, name, tuple(inputs), params, output_type=output_type)
        self.nodes[node.id] = node
        self._next_id += 1
        return node

    def update(self, node_id: int, **changes: Any) -> Node:
        node = dataclasses.replace(self.nodes[node_id], **changes)
        self.nodes[node_id] = node
        return node

    def node(self, node_id: int) -> Node:
        return self.nodes[node_id]

    def sinks(self) -> List[Node]:
        return [n for n in self.nodes.values() if n.kind == SINK]

    def upstream_of(self, roots: List[Node]) -> List[Node]:
        """Every node the roots depend on, in topological (creation) order."""
        needed: Set[int] = set()
        stack = [n.id for n in roots]
        while stack:
            node_id = stack.pop()
            if node_id not in needed:
                needed.add(node_id)
                stack.extend(self.nodes[node_id].inputs)
        return [self.nodes[i] for i in sorted(needed)]


def assign_uids(nodes: List[Node]) -> Dict[int, str]:
    """Stable operator ids: the user's uid, else kind (or the node's `uid_prefix`) and
    position among the nodes of that kind."""
    seen: Dict[int, str] = {}
    uids: Dict[int, str] = {}
    for node in nodes:
        if node.uid:
            if node.uid in seen.values():
                raise ValueError(f"uid '{node.uid}' is used by more than one operator")
            uids[node.id] = node.uid
        else:
            prefix = _uid_prefix(node)
            count = sum(1 for n in nodes[: nodes.index(node)] if _uid_prefix(n) == prefix)
            uids[node.id] = f"{prefix}-{count}"
        seen[node.id] = uids[node.id]
    return uids


def _uid_prefix(node: Node) -> str:
    prefix: str = node.params.get("uid_prefix", node.kind)
    return prefix


def sources_without_watermarks(nodes: List[Node]) -> List[int]:
    """Sources from which no watermark node is reachable through stateless operators.

    Such a source still ends with Flink's +infinity watermark: engines give it a watermark
    that only the end of its input moves.
    """
    passthrough = (STATELESS, TWO_INPUT, UNION, SIDE_OUTPUT)
    result: List[int] = []
    seen: Set[int]
    for source in (n for n in nodes if n.kind == SOURCE):
        frontier, found, seen = [source.id], False, set()
        while frontier and not found:
            node_id = frontier.pop()
            for consumer in (n for n in nodes if node_id in n.inputs):
                if consumer.kind == WATERMARK:
                    found = True
                elif consumer.kind in passthrough and consumer.id not in seen:
                    seen.add(consumer.id)
                    frontier.append(consumer.id)
        if not found:
            result.append(source.id)
    return result
