"""The physical plan: what every executor runs.

A job's operators fall into tasks of two kinds: sources, and keyed operators (each run per
key group). Every other node is stateless and is fused into the task of the operator that
produces its input, as Flink's job-graph generator chains operators: a producer runs the
stateless nodes behind it (a small graph: fan-out, side outputs, unions) and sends each
record straight to each consuming keyed operator or sink. So every operator, stateless or
not, computes each record once, however many consumers its output has.

Keyed operators are placed in stages by shuffle depth (a keyed operator is one stage after
the latest producer feeding it); an executor runs the operators of one stage together (on
Spark: one transformWithState grouped by (operator uid, shard number), a shard holding
key groups of its operator: weir.spark.shards). Rows for a later stage or a sink pass
through the stages in between.

Watermarks: each source reaches at most one watermark assigner through its fused nodes;
sources sharing an assigner form one watermark group (their largest timestamp counts).
An operator's watermark is the minimum over the groups upstream of it (weir.control);
one every group reaches runs with the job's, the minimum over groups, as Spark computes
it (docs/architecture.md, "The control plane").
"""

import dataclasses
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Protocol, Sequence, Set, Tuple, cast

from weir.plan import graph as g
from weir.runtime.broadcast import AllKeyGroups
from weir.runtime.operator_factory import wakes_every_batch

if TYPE_CHECKING:
    from weir.common.watermark_strategy import WatermarkStrategy
    from weir.runtime.state.operator_state import Snapshot

INPUT_NAMES = ("first", "second")
FUSABLE = (g.STATELESS, g.TWO_INPUT, g.WATERMARK, g.UNION, g.SIDE_OUTPUT)


@dataclass(frozen=True)
class Edge:
    """The records of one output (`tag`: None for the main output) of `source`: the task's
    own operator (None) or one of its fused hops (an index), read by its consumer as input
    number `input` (a two-input operator's first or second)."""

    source: Optional[int]
    tag: Optional[str] = None
    input: int = 0


@dataclass
class Target:
    """Where records leave a task: a keyed operator's input or a sink."""

    uid: str
    input: int = 0
    key_selector: Any = None  # None for sinks (a key selector, AllKeyGroups, InstancePartitioning)
    stage: int = 0  # the stage that consumes it; sinks: after the last stage
    side: Optional[str] = None  # the input's name in errors, for operators of two inputs


@dataclass
class Hop:
    """A fused stateless node and the edges it reads (a union reads several)."""

    node: g.Node
    uid: str
    inputs: List[Edge]


@dataclass
class Fused:
    """The stateless nodes a task runs behind its operator, and where their records go."""

    hops: List[Hop] = field(default_factory=list)
    targets: List[Tuple[Edge, Target]] = field(default_factory=list)


@dataclass
class SourceTask:
    node: g.Node
    uid: str
    fused: Fused
    watermark: Optional[int] = None  # the watermark node its records reach
    index: int = 0  # its number among the plan's sources
    ends: Tuple[str, ...] = ()  # uids of the keyed operators downstream of it


@dataclass
class KeyedTask:
    node: g.Node
    uid: str
    index: int
    stage: int
    key_selectors: Tuple[Any, ...]
    fused: Fused
    wakes: bool  # whether every key group must run in every batch (processing time)
    sources: frozenset[int] = frozenset()  # numbers of the sources upstream of it
    watermark_groups: frozenset[int] = frozenset()  # indices of the groups upstream of it


@dataclass
class WatermarkGroup:
    sources: List[str]  # source uids
    delay_ms: int  # the watermark trails the largest timestamp by this
    data_watermarks: bool  # whether records' timestamps move it (else only controls)
    idleness_ms: Optional[int] = None  # idle after this long without records (processing
    # time): weir.control.idleness
    holds: bool = True  # whether it can hold a watermark back (else only its end moves it,
    # to +infinity: it has no timestamp before)

    @property
    def name(self) -> str:
        """What names the group across runs of the job: its sources' uids."""
        return "|".join(self.sources)


# What one run of a plan decides, set by `PhysicalPlan.for_run` (a compiled plan never
# changes: an executor runs the plan for its run, a copy with these)
RUN_FIELDS = (
    "run_id",
    "sink_job_id",
    "restored",
    "restoring",
    "start_offsets",
    "savepoint_files",
    "forward_prints",
)


@dataclass(frozen=True)
class PhysicalPlan:
    sources: List[SourceTask]
    keyed: List[KeyedTask]
    sinks: Dict[str, g.Node]  # uid -> sink node
    watermark_groups: List[WatermarkGroup]
    max_parallelism: int
    parallelism: int
    job_parameters: Dict[str, str]
    ticked: List[str]  # uids of keyed operators whose every key group runs in every batch
    batch: bool = False  # BATCH mode: rolling aggregations emit only final results
    run_id: str = ""  # the executor's run of the job (a restore starts a new run)
    # the job's identity for sinks' replay markers: the same in every run restored from
    # one checkpoint, new for a job started afresh (see connectors.sink_base)
    sink_job_id: str = ""
    # restored operator state: {uid: [(checkpoints, snapshot) per instance]}
    restored: Dict[str, List[Tuple[int, "Snapshot"]]] = field(default_factory=dict)
    restoring: bool = False  # the run starts from a checkpoint (is_restored() is true)
    scripted: bool = False  # a scripted source (TestStream) drives the processing time
    # restored from a savepoint (weir.plan.savepoints): {source uid: its position} and
    # {keyed operator uid: the file of its keyed state}
    start_offsets: Dict[str, Dict[str, Any]] = field(default_factory=dict)
    savepoint_files: Dict[str, str] = field(default_factory=dict)
    # what user functions print in tasks goes to the driver's standard output (a local
    # run on an engine whose workers are processes of their own: weir.task.printing)
    forward_prints: bool = False

    def for_run(self, **facts: Any) -> "PhysicalPlan":
        """This plan with what one run of it decides (RUN_FIELDS: its run and sink ids,
        what it restores and where its sources start, where its tasks' prints go)."""
        unknown = sorted(set(facts) - set(RUN_FIELDS))
        if unknown:
            raise TypeError(
                f"{', '.join(unknown)}: not what a run decides (a compiled "
                f"plan is frozen; a run sets {', '.join(RUN_FIELDS)})"
            )
        return dataclasses.replace(self, **facts)

    @property
    def own_watermarks(self) -> List[KeyedTask]:
        """The keyed tasks whose watermark is their own (the minimum over the watermark
        groups upstream of them, as Flink's) rather than the job's: those that some group
        does not reach (weir.control.watermarks)."""
        if self.batch:
            return []
        holding = {i for i, group in enumerate(self.watermark_groups) if group.holds}
        return [task for task in self.keyed if holding - task.watermark_groups]

    @property
    def own_watermark_uids(self) -> frozenset[str]:
        """The uids of `own_watermarks`."""
        return frozenset(task.uid for task in self.own_watermarks)

    @property
    def partitioned_sources(self) -> Dict[str, Optional[int]]:
        """{uid: idleness timeout (ms) or None} of the sources that keep a watermark per
        partition (weir.runtime.split_watermarks): partitioned readers whose records carry
        a watermark."""
        if self.batch:
            return {}
        group_of = {uid: group for group in self.watermark_groups for uid in group.sources}
        return {
            task.uid: group_of[task.uid].idleness_ms
            for task in self.sources
            if getattr(task.node.param("reader"), "partitioned", False)
            and task.watermark is not None
            and group_of[task.uid].data_watermarks
        }

    @property
    def processing_time_operators(self) -> List[str]:
        """The uids of the keyed operators that may hold processing-time timers: when one
        is due, a stream without input still gets a micro-batch that runs them."""
        return [task.uid for task in self.keyed if task.wakes]

    @property
    def stages(self) -> List[List[KeyedTask]]:
        count = max((task.stage for task in self.keyed), default=0)
        return [[t for t in self.keyed if t.stage == s] for s in range(1, count + 1)]

    def subset(
        self, sources: Sequence[SourceTask] = (), keyed: Sequence[KeyedTask] = ()
    ) -> "PhysicalPlan":
        """This plan with only the given tasks (and only the operator state they restore):
        what one Spark operator needs shipped."""
        uids = {task.uid for task in keyed}
        restored = {uid: states for uid, states in self.restored.items() if uid in uids}
        return dataclasses.replace(
            self, sources=list(sources), keyed=list(keyed), restored=restored
        )


def _wakes(node: g.Node) -> bool:
    return wakes_every_batch(node.param("function"))


def _watermark_delay(strategy: "WatermarkStrategy") -> int:
    # Without data watermarks only controls (end of input, a scripted source's watermark)
    # move the watermark, and they carry it exactly.
    return (strategy.out_of_orderness_ms or 0) + 1 if strategy.emits_watermarks else 0


class _Planner:
    def __init__(self, nodes: List[g.Node]) -> None:
        self.nodes = nodes
        self.by_id = {n.id: n for n in nodes}
        self.uids = g.assign_uids(nodes)
        self.consumers = {n.id: [c for c in nodes if n.id in c.inputs] for n in nodes}
        self.stage_of: Dict[int, int] = {}

    def fused(self, producer: g.Node) -> Fused:
        """The stateless nodes reachable from `producer` without crossing a keyed operator
        or a sink, in topological order, and the targets they (and it) feed."""
        fused = Fused()
        hop_of: Dict[int, Optional[int]] = {producer.id: None}
        for node in self._reachable(producer.id):
            edges = [
                self._edge(hop_of, upstream, node, label)
                for label, upstream in enumerate(node.inputs)
                if upstream in hop_of
            ]
            hop_of[node.id] = len(fused.hops)
            fused.hops.append(Hop(node, self.uids[node.id], edges))
        for node_id in hop_of:
            for consumer in self.consumers[node_id]:
                if consumer.kind not in (g.KEYED, g.SINK):
                    continue
                for label, upstream in enumerate(consumer.inputs):
                    if upstream == node_id:
                        fused.targets.append(
                            (
                                self._edge(hop_of, node_id, consumer, label),
                                self._target(consumer, label),
                            )
                        )
        return fused

    def _edge(
        self, hop_of: Dict[int, Optional[int]], upstream_id: int, consumer: g.Node, label: int
    ) -> Edge:
        tag = consumer.param("tag_id") if consumer.kind == g.SIDE_OUTPUT else None
        return Edge(hop_of[upstream_id], tag, label)

    def _target(self, consumer: g.Node, label: int) -> Target:
        uid = self.uids[consumer.id]
        if consumer.kind == g.SINK:
            return Target(uid)
        selectors = _key_selectors(consumer)
        side = (
            None
            if len(selectors) == 1
            else "broadcast"
            if isinstance(selectors[label], AllKeyGroups)
            else INPUT_NAMES[label]
        )
        return Target(uid, label, selectors[label], side=side)

    def _reachable(self, start: int) -> List[g.Node]:
        seen: Set[int]
        seen, stack = set(), [start]
        while stack:
            for consumer in self.consumers[stack.pop()]:
                if consumer.kind in FUSABLE and consumer.id not in seen:
                    seen.add(consumer.id)
                    stack.append(consumer.id)
        return [self.by_id[i] for i in sorted(seen)]  # creation order is topological

    def stage(self, node: g.Node) -> int:
        """0 for sources; a keyed operator runs one stage after its latest producer."""
        if node.kind == g.SOURCE:
            return 0
        if node.id not in self.stage_of:
            self.stage_of[node.id] = 1 + max(self.stage(p) for p in self._producers(node))
        return self.stage_of[node.id]

    def _producers(self, node: g.Node) -> List[g.Node]:
        """The sources and keyed operators whose tasks send records to `node`."""
        found: List[g.Node]
        seen: Set[int]
        found, stack, seen = [], list(node.inputs), set()
        while stack:
            upstream = self.by_id[stack.pop()]
            if upstream.id in seen:
                continue
            seen.add(upstream.id)
            if upstream.kind in (g.SOURCE, g.KEYED):
                found.append(upstream)
            else:
                stack.extend(upstream.inputs)
        return found

    def sources_of(self, node: g.Node) -> frozenset[int]:
        """The ids of the source nodes upstream of `node`."""
        found: Set[int] = set()
        for producer in self._producers(node):
            found |= {producer.id} if producer.kind == g.SOURCE else self.sources_of(producer)
        return frozenset(found)

    @staticmethod
    def watermark_of(task_uid: str, fused: Fused) -> Optional[int]:
        """The watermark assigner whose timestamps and watermarks hold where this task's
        records leave it. As in Flink, an assigner replaces those of the assigners before
        it, so what counts is the nearest assigner before each target."""
        marks: Set[int] = set()
        for edge, _ in fused.targets:
            marks |= _nearest_marks(fused, edge.source)
        if len(marks) > 1:
            raise NotImplementedError(
                f"'{task_uid}': records of one source reach its consumers under "
                f"{len(marks)} different watermark strategies; weir supports one watermark "
                "strategy per source for now (Spark keeps one watermark per query)"
            )
        return marks.pop() if marks else None


def _nearest_marks(fused: Fused, hop: Optional[int]) -> Set[int]:
    """The watermark nodes nearest before hop number `hop` (None: the task's operator)."""
    if hop is None:
        return set()
    node = fused.hops[hop]
    if node.node.kind == g.WATERMARK:
        return {node.node.id}
    return set().union(*(_nearest_marks(fused, edge.source) for edge in node.inputs))


def _key_selectors(node: g.Node) -> Tuple[Any, ...]:
    selectors = node.params.get("key_selectors")
    return tuple(selectors) if selectors is not None else (node.param("key_selector"),)


class _Environment(Protocol):
    """What compiling reads of the job's StreamExecutionEnvironment (a layer above: typed
    by its shape)."""

    @property
    def parallelism(self) -> int: ...

    @property
    def max_parallelism(self) -> int: ...

    @property
    def job_parameters(self) -> Dict[str, str]: ...

    def is_batch_mode(self) -> bool: ...


def compile_plan(nodes: List[g.Node], env: _Environment) -> PhysicalPlan:
    """The physical plan of `nodes` (every node the job's sinks depend on)."""
    if env.parallelism > env.max_parallelism:
        raise ValueError(
            f"the job's parallelism {env.parallelism} is larger than its max parallelism "
            f"{env.max_parallelism}: keyed state is split into max-parallelism key groups, "
            "so no more subtasks than that can own them (lower the parallelism, or raise "
            "set_max_parallelism before the job first runs)"
        )
    planner = _Planner(nodes)
    sources: List[SourceTask] = []
    keyed: List[KeyedTask] = []
    for node in nodes:
        # (None for the other nodes, which do not use it)
        fused = cast(Fused, None if node.kind not in (g.SOURCE, g.KEYED) else planner.fused(node))
        uid = planner.uids[node.id]
        if node.kind == g.SOURCE:
            sources.append(
                SourceTask(node, uid, fused, planner.watermark_of(uid, fused), len(sources))
            )
        elif node.kind == g.KEYED:
            if planner.watermark_of(uid, fused) is not None:
                raise NotImplementedError(
                    f"'{uid}': assign_timestamps_and_watermarks after a keyed operator is not "
                    "supported yet; assign timestamps and watermarks before the first key_by"
                )
            keyed.append(
                KeyedTask(
                    node,
                    uid,
                    len(keyed),
                    planner.stage(node),
                    _key_selectors(node),
                    fused,
                    _wakes(node),
                    planner.sources_of(node),
                )
            )
    _number_sources(sources, keyed)
    # A scripted source (TestStream) drives the clock of every keyed operator.
    scripted = any(hasattr(s.node.param("reader"), "processing_time") for s in sources)
    stages = {task.uid: task.stage for task in keyed}
    last = max(stages.values(), default=0) + 1
    for task in sources + keyed:
        for _, target in task.fused.targets:
            target.stage = stages.get(target.uid, last)
    groups = _watermark_groups(sources, planner, env.is_batch_mode())
    _name_groups(sources, keyed, groups)
    return PhysicalPlan(
        sources,
        keyed,
        {planner.uids[n.id]: n for n in nodes if n.kind == g.SINK},
        groups,
        env.max_parallelism,
        env.parallelism,
        dict(env.job_parameters),
        [t.uid for t in keyed if t.wakes or scripted],
        env.is_batch_mode(),
        scripted=scripted,
    )


def _name_groups(
    sources: List[SourceTask], keyed: List[KeyedTask], groups: List["WatermarkGroup"]
) -> None:
    """Keyed tasks name the watermark groups of their upstream sources by index."""
    index_of = {uid: index for index, group in enumerate(groups) for uid in group.sources}
    for task in keyed:
        task.watermark_groups = frozenset(index_of[sources[number].uid] for number in task.sources)


def _number_sources(sources: List[SourceTask], keyed: List[KeyedTask]) -> None:
    """Keyed tasks name their upstream sources by number; sources list their keyed tasks
    (an end of input goes to each)."""
    number = {source.node.id: source.index for source in sources}
    for task in keyed:
        task.sources = frozenset(number[node_id] for node_id in task.sources)
    for source in sources:
        source.ends = tuple(t.uid for t in keyed if source.index in t.sources)


def _watermark_groups(
    sources: List[SourceTask], planner: _Planner, batch_mode: bool
) -> List[WatermarkGroup]:
    by_mark: Dict[int, List[str]] = {}  # watermark assigner -> its sources' uids
    groups: List[WatermarkGroup] = []
    for source in sources:
        if source.watermark is None:  # its own group: only its end of input moves it
            scripted = hasattr(source.node.param("reader"), "announced_watermark")
            groups.append(WatermarkGroup([source.uid], 0, False, holds=scripted))
        else:
            by_mark.setdefault(source.watermark, []).append(source.uid)
    for mark, uids in by_mark.items():
        strategy = planner.by_id[mark].param("strategy")
        data = strategy.emits_watermarks and not batch_mode
        groups.append(
            WatermarkGroup(
                uids,
                _watermark_delay(strategy),
                data,
                strategy.idleness_ms if data else None,
                holds=data,
            )
        )
    return groups
