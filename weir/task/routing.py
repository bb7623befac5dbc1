"""Routing: a task runs its fused stateless nodes over its operator's output and sends
every record to each consuming operator (in its key group, for a broadcast input in every
key group, for a non-keyed operator's instances in their key groups) or sink, with order
keys (weir.runtime.wire)."""

import pickle
from functools import partial
from operator import is_not
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

from weir.plan import graph as g
from weir.plan.operators import build_chain, build_two_input_chain
from weir.runtime.chain import SideItem, TwoInputChain
from weir.plan.physical import Edge, Fused, Hop, PhysicalPlan, Target
from weir.runtime.broadcast import AllKeyGroups
from weir.runtime.errors import UserFunctionError, wrap_user_error
from weir.runtime.key_groups import KeyGroupAssigner, first_key_group
from weir.runtime.metrics import records_io
from weir.runtime.non_keyed import InstancePartitioning
from weir.runtime.wire import Bundler, make_seq

Columns = Tuple[List[Any], List[Any]]  # records: their values and timestamps
Tagged = Dict[Optional[str], Columns]  # a node's records by output tag (None: main output)


class KeyGrouper:
    """Places records in the key groups of a keyed operator's input, naming the operator
    (and the input, of a two-input operator) when its key selector fails."""

    def __init__(
        self,
        key_selector: Callable[[Any], Any],
        max_parallelism: int,
        operator: str,
        side: Optional[str] = None,
    ) -> None:
        self.key_selector = key_selector
        self.max_parallelism = max_parallelism
        self.operator = operator
        self.side = side
        self._assign: Optional[KeyGroupAssigner] = None

    def keys_and_groups(self, values: List[Any]) -> Tuple[List[Any], List[int]]:
        """(each record's key, its key group): the key selector runs here only, once."""
        if self._assign is None:
            self._assign = KeyGroupAssigner(self.max_parallelism)
        try:  # an unhashable key fails in key_groups: also the key selector's error
            keys = list(map(self.key_selector, values))
            return keys, self._assign.key_groups(keys)
        except Exception as exc:
            raise wrap_user_error(exc, self.operator, self.key_selector, self.side) from exc

    def add(
        self,
        bundler: Bundler,
        target: Target,
        first_seq: int,
        values: List[Any],
        stamps: List[Any],
        subtask: int,
    ) -> None:
        keys, groups = self.keys_and_groups(values)
        bundler.add_all(target.uid, target.input, groups, first_seq, values, stamps, keys=keys)

    def __getstate__(self) -> Dict[str, Any]:
        return {**self.__dict__, "_assign": None}


class EveryKeyGroup:
    """Sends a broadcast input's records to every key group of its operator, pickled once."""

    def __init__(self, max_parallelism: int) -> None:
        self.max_parallelism = max_parallelism

    def add(
        self,
        bundler: Bundler,
        target: Target,
        first_seq: int,
        values: List[Any],
        stamps: List[Any],
        subtask: int,
    ) -> None:
        try:
            bundler.add_to_every_key_group(
                target.uid, target.input, self.max_parallelism, first_seq, values, stamps
            )
        except (pickle.PicklingError, TypeError, AttributeError) as exc:
            kinds = sorted({type(v).__name__ for v in values})
            raise UserFunctionError(
                f"operator '{target.uid}' ({target.side} input): a broadcast element cannot "
                f"be pickled (element types: {', '.join(kinds)}): {type(exc).__name__}: "
                f"{exc}"
            ) from exc


class ToInstances:
    """Sends records to the parallel instances of a non-keyed operator: each to its
    producer's own subtask (forward), or a copy to every instance (broadcast)."""

    def __init__(self, max_parallelism: int, parallelism: int, every: bool) -> None:
        self.max_parallelism, self.parallelism = max_parallelism, parallelism
        self.subtasks = range(parallelism) if every else None

    def add(
        self,
        bundler: Bundler,
        target: Target,
        first_seq: int,
        values: List[Any],
        stamps: List[Any],
        subtask: int,
    ) -> None:
        for instance in self.subtasks or (subtask,):
            bundler.add_all(
                target.uid,
                target.input,
                None,
                first_seq,
                values,
                stamps,
                first_key_group(instance, self.max_parallelism, self.parallelism),
            )


class ToSink:
    """Sends records to a sink, marked with the parallel instance that produced them."""

    def add(
        self,
        bundler: Bundler,
        target: Target,
        first_seq: int,
        values: List[Any],
        stamps: List[Any],
        subtask: int,
    ) -> None:
        bundler.add_all(target.uid, target.input, None, first_seq, values, stamps, subtask)


Placement = Union[ToSink, EveryKeyGroup, ToInstances, KeyGrouper]


def placement(target: Target, plan: PhysicalPlan) -> Placement:
    """How records reach `target`: a sink, a broadcast input, a non-keyed operator's
    instances or a keyed input."""
    selector, max_parallelism = target.key_selector, plan.max_parallelism
    if selector is None:
        return ToSink()
    if isinstance(selector, AllKeyGroups):
        return EveryKeyGroup(max_parallelism)
    if isinstance(selector, InstancePartitioning):
        return ToInstances(max_parallelism, plan.parallelism, selector.every)
    return KeyGrouper(selector, max_parallelism, target.uid, target.side)


class Router:
    """Runs a task's fused stateless nodes over its operator's output and sends every
    record to each consuming operator (in its key group) or sink, with order keys."""

    def __init__(
        self,
        fused: Fused,
        plan: PhysicalPlan,
        subtask_index: int = 0,
        watermark: Optional[int] = None,
    ) -> None:
        self.hops = fused.hops
        self.watermark = watermark  # the node id of the watermark assigner that counts
        # hop index -> its StatelessChain or TwoInputChain (by the hop's kind)
        self.chains: Dict[int, Any] = {}
        for index, hop in enumerate(fused.hops):
            if hop.node.kind in (g.STATELESS, g.TWO_INPUT):
                chain = (
                    build_chain([hop.node], {hop.node.id: hop.uid})
                    if hop.node.kind == g.STATELESS
                    else build_two_input_chain(hop.node, hop.uid)
                )
                chain.open(
                    subtask_index=subtask_index,
                    parallelism=plan.parallelism,
                    job_parameters=plan.job_parameters,
                )
                self.chains[index] = chain
        self.targets = [(edge, target, placement(target, plan)) for edge, target in fused.targets]
        self.counted = [[0, 0] for _ in self.hops]  # records in and out of each hop

    def close(self) -> None:
        for chain in self.chains.values():
            chain.close()

    def route(
        self,
        outputs: Tagged,
        phase: int,
        producer: int,
        counter: int,
        bundler: Bundler,
        seen: Optional[List[int]] = None,
        subtask: int = 0,
    ) -> int:
        """Routes `outputs` ({tag: (values, timestamps)}) of one phase; returns the next
        counter. With a list `seen`, the watermark assigner that counts appends the largest
        timestamp it saw.
        Records for a sink carry `subtask`, the parallel instance that produced them."""
        results: Dict[Optional[int], Tagged] = {None: outputs}  # (None: the producer's)
        for index, hop in enumerate(self.hops):
            if hop.node.kind == g.TWO_INPUT:
                results[index] = self._run_two_inputs(self.chains[index], hop, results)
            else:
                values, stamps = _gather(results, hop.inputs)
                results[index] = self._run_hop(index, hop, values, stamps, seen)
                if hop.node.kind == g.WATERMARK:  # a source's side outputs pass through
                    results[index] = {**_side_outputs(results, hop.inputs), **results[index]}
            self._count(index, hop, results)
        for edge, target, place in self.targets:
            # (the empty tuples of an output not there never go further: skipped below)
            values, stamps = results[edge.source].get(  # type: ignore[assignment]
                edge.tag, ((), ())
            )
            if not values:
                continue
            first_seq = make_seq(phase, producer, counter)
            counter += len(values)
            place.add(bundler, target, first_seq, values, stamps, subtask)
        return counter

    def _count(self, index: int, hop: Hop, results: Dict[Optional[int], Tagged]) -> None:
        counted = self.counted[index]
        for edge in hop.inputs:
            counted[0] += len(results[edge.source].get(edge.tag, ((), ()))[0])
        for values, _ in results[index].values():
            counted[1] += len(values)

    def take_metrics(self, subtask: int) -> Dict[str, Any]:
        """What the fused functions' metric groups report, and each fused operator's
        records in and out (as instance `subtask`), under their operators' uids, since
        the last call (a runner reports them once per split or key group)."""
        reported: Dict[str, Any] = {}
        for index, hop in enumerate(self.hops):
            chain = self.chains.get(index)
            reports = chain.take_metrics() if chain is not None else {}
            reported.update({f"{hop.uid}.{name}": report for name, report in reports.items()})
            reported.update(records_io(hop.uid, subtask, *self.counted[index]))
            self.counted[index] = [0, 0]
        return reported

    def _run_hop(
        self, index: int, hop: Hop, values: List[Any], stamps: List[Any], seen: Optional[List[int]]
    ) -> Tagged:
        chain = self.chains.get(index)
        if chain is None:
            if seen is not None and hop.node.id == self.watermark:
                largest = max(filter(partial(is_not, None), stamps), default=None)
                if largest is not None:
                    seen.append(largest)
            return {None: (values, stamps)}
        if not values:
            return {}
        return _by_tag(*chain.run_columns(values, stamps))

    @staticmethod
    def _run_two_inputs(
        chain: TwoInputChain, hop: Hop, results: Dict[Optional[int], Tagged]
    ) -> Tagged:
        """Each input's records through the chain of that input; outputs by tag."""
        out: Tagged = {}
        for edge in hop.inputs:
            values, stamps = results[edge.source].get(edge.tag, ((), ()))
            if values:  # (then not the empty tuples of an output not there: lists)
                for tag, (more_values, more_stamps) in _by_tag(
                    *chain.run_input(edge.input, values, stamps)  # type: ignore[arg-type]
                ).items():
                    tagged = out.setdefault(tag, ([], []))
                    tagged[0].extend(more_values)
                    tagged[1].extend(more_stamps)
        return out


def _by_tag(values: List[Any], stamps: List[Any], side: List[SideItem]) -> Tagged:
    """{tag: (values, timestamps)} of a chain's main outputs (tag None) and side outputs."""
    out: Tagged = {None: (values, stamps)}
    for tag, value, ts in side:
        tagged = out.get(tag)
        if tagged is None:
            tagged = out[tag] = ([], [])
        tagged[0].append(value)
        tagged[1].append(ts)
    return out


def _side_outputs(results: Dict[Optional[int], Tagged], edges: Sequence[Edge]) -> Tagged:
    """The side outputs of the one producer of a node's main input (a source's dead
    letters, seen from its stream after the watermark assigner)."""
    if len(edges) != 1 or edges[0].tag is not None:
        return {}
    return {tag: out for tag, out in results[edges[0].source].items() if tag is not None}


def _gather(results: Dict[Optional[int], Tagged], edges: Sequence[Edge]) -> Columns:
    if len(edges) == 1:
        edge = edges[0]
        return results[edge.source].get(edge.tag, ([], []))
    values: List[Any]
    stamps: List[Any]
    values, stamps = [], []
    for edge in edges:
        more_values, more_stamps = results[edge.source].get(edge.tag, ((), ()))
        values += more_values
        stamps += more_stamps
    return values, stamps
