"""A keyed task: runs a keyed operator for one key group's share of a micro-batch, then
the stateless nodes fused behind it, and routes the output (weir.task.routing); the same
code on every executor."""

from typing import List

from weir.plan.operators import build_keyed_operator, output_converter
from weir.plan.physical import KeyedTask, PhysicalPlan
from weir.runtime.key_groups import operator_index
from weir.runtime.keyed_batch import process_key_group_batch
from weir.runtime.metrics import task_io
from weir.runtime.state.backend import KeyedStateBackend
from weir.runtime.timers import PROCESSING_TIME
from weir.runtime.wire import (AFTER_WATERMARK, BEFORE_WATERMARK, DUE, ENDED_PAGE,
                               OPERATOR_STATE, PHASE_SHIFT, SNAPSHOT, TIMERS, Bundler, dumps,
                               loads)
from weir.task.routing import Router


class KeyedRunner:
    """Runs a keyed operator for one key group at a time, then routes its output. Each
    parallel instance (subtask) of the operator, and of the stateless nodes fused behind
    it, is built and opened on the first key group of its range that runs here, with its
    own copy of the user's functions, as Flink opens one per subtask."""

    def __init__(self, task: KeyedTask, plan: PhysicalPlan, pages):
        """`pages`: key group -> the PageStore of this operator's state in it."""
        self.task = task
        self.plan = plan
        self.pages = pages
        self.convert = output_converter(task.node, task.uid)
        self.selectors = task.key_selectors[0] if len(task.key_selectors) == 1 \
            else task.key_selectors
        self.producer_base = task.index * plan.max_parallelism
        self.max_parallelism, self.parallelism = plan.max_parallelism, plan.parallelism
        # whether it runs with a watermark of its own (weir.control.watermarks)
        self.own_watermark = task.uid in plan.own_watermark_uids
        self.subtasks = {}  # subtask index -> (operator, router)
        self.operator = self.router = None  # those of the key group that ran last

    def _enter(self, key_group: int) -> int:
        """Makes the instance of `key_group`'s subtask current; returns its index."""
        subtask = operator_index(key_group, self.max_parallelism, self.parallelism)
        instance = self.subtasks.get(subtask)
        if instance is None:
            task, plan = self.task, self.plan
            backend = KeyedStateBackend(self.pages, plan.max_parallelism)  # its own clock
            operator = build_keyed_operator(task.node, task.uid, backend, plan, subtask)
            operator.open()
            instance = self.subtasks[subtask] = (operator, Router(task.fused, plan, subtask))
        self.operator, self.router = instance
        return subtask

    @property
    def labelled(self) -> bool:
        """Whether records must carry their input label (an operator of several inputs)."""
        return len(self.task.key_selectors) > 1

    def run(self, key_group: int, records, watermark: int, processing_time: int,
            ended=frozenset()) -> List:
        """The rows this key group's batch produces (`ended`: the numbers of the sources
        whose end of input reached it in this batch); the operator's pages stay loaded
        until `release()` (an engine may still read its timers)."""
        subtask = self._enter(key_group)
        outputs = process_key_group_batch(self.operator, self.selectors, key_group, records,
                                          watermark, processing_time, self.convert,
                                          self._input_ends(key_group, ended))
        by_phase = ({}, {})  # BEFORE_WATERMARK, AFTER_WATERMARK: {tag: (values, stamps)}
        for seq, tag, value, ts in outputs:
            by_tag = by_phase[seq >> PHASE_SHIFT]
            tagged = by_tag.get(tag)
            if tagged is None:
                tagged = by_tag[tag] = ([], [])
            tagged[0].append(value)
            tagged[1].append(ts)
        bundler = Bundler()
        counter, producer = 0, self.producer_base + key_group
        for phase in (BEFORE_WATERMARK, AFTER_WATERMARK):
            if by_phase[phase]:
                counter = self.router.route(by_phase[phase], phase, producer, counter,
                                            bundler, None, subtask)
        if self.task.wakes:
            bundler.add_control(TIMERS, DUE, payload=(
                self.task.uid, key_group,
                self.operator.timers_of(key_group).earliest(PROCESSING_TIME)))
        snapshot = self.operator.snapshot_operator_state(key_group)
        if snapshot is not None:
            bundler.add_control(OPERATOR_STATE, SNAPSHOT,
                                payload={(self.task.uid, subtask): snapshot})
        increments = self.operator.runtime_context.get_metrics_group().take_increments()
        bundler.add_metrics({**{f"{self.task.uid}.{name}": n for name, n in increments.items()},
                             **task_io(self.task.uid, key_group, subtask, len(records),
                                       len(outputs)),
                             **self.router.take_metrics(subtask)})
        return bundler.rows()

    def _input_ends(self, key_group: int, ended: frozenset) -> bool:
        """Whether every upstream source has now ended for this key group (sources that
        end in different batches are remembered in a page until the last one does)."""
        if not ended:
            return False
        store = self.operator.backend.key_group_pages(key_group).store
        stored = store.load(ENDED_PAGE)
        so_far = ended | (frozenset(loads(stored)) if stored is not None else frozenset())
        if so_far >= self.task.sources:
            if stored is not None:
                store.remove(ENDED_PAGE)
            return True
        store.store(ENDED_PAGE, dumps(sorted(so_far)))
        return False

    def release(self) -> None:
        if self.operator is not None:
            self.operator.release()

    def close(self) -> None:
        for operator, router in self.subtasks.values():
            operator.close()
            router.close()
