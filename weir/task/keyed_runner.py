"""A keyed task: runs a keyed operator for one key group's share of a micro-batch, then
the stateless nodes fused behind it, and routes the output (weir.task.routing); the same
code on every executor."""

from typing import Any, Dict, List, Optional, Tuple

from weir.plan.operators import build_keyed_operator, output_converter
from weir.plan.physical import KeyedTask, PhysicalPlan
from weir.runtime.key_groups import operator_index
from weir.runtime.keyed_batch import process_key_group_batch
from weir.runtime.keyed_operator import KeyedStreamOperator
from weir.runtime.metrics import task_io
from weir.runtime.state.backend import KeyedStateBackend
from weir.runtime.state.page_store import PageStore
from weir.runtime.timers import EVENT_TIME, PROCESSING_TIME
from weir.runtime.wire import (
    AFTER_WATERMARK,
    BEFORE_WATERMARK,
    ENDED_PAGE,
    Bundler,
    Channel,
    Control,
    DueTimer,
    KeyGroupInput,
    dumps,
    loads,
)
from weir.task.routing import Router


class KeyedRunner:
    """Runs a keyed operator for one key group at a time, then routes its output. Each
    parallel instance (subtask) of the operator, and of the stateless nodes fused behind
    it, is built and opened on the first key group of its range that runs here, with its
    own copy of the user's functions, as Flink opens one per subtask.

    The engine's seam: `run(key_group, store, batch, ...)` with the key group's PageStore
    (weir.runtime.state.backend), which the operator reads and writes until `release()`."""

    def __init__(self, task: KeyedTask, plan: PhysicalPlan):
        self.task = task
        self.plan = plan
        self.store: Optional[PageStore] = None  # the PageStore of the key group running now
        self.convert = output_converter(task.node, task.uid)
        self.producer_base = task.index * plan.max_parallelism
        self.max_parallelism, self.parallelism = plan.max_parallelism, plan.parallelism
        # whether it runs with a watermark of its own (weir.control.watermarks)
        self.own_watermark = task.uid in plan.own_watermark_uids
        # subtask index -> (operator, router)
        self.subtasks: Dict[int, Tuple[KeyedStreamOperator, Router]] = {}
        # those of the key group that ran last
        self.operator: Optional[KeyedStreamOperator] = None
        self.router: Optional[Router] = None

    def _enter(self, key_group: int) -> int:
        """Makes the instance of `key_group`'s subtask current; returns its index."""
        subtask = operator_index(key_group, self.max_parallelism, self.parallelism)
        instance = self.subtasks.get(subtask)
        if instance is None:
            task, plan = self.task, self.plan
            backend = KeyedStateBackend(self._store_of, plan.max_parallelism)  # own clock
            operator = build_keyed_operator(task.node, task.uid, backend, plan, subtask)
            operator.open()
            instance = self.subtasks[subtask] = (operator, Router(task.fused, plan, subtask))
        self.operator, self.router = instance
        return subtask

    @property
    def labelled(self) -> bool:
        """Whether records must carry their input label (an operator of several inputs)."""
        return len(self.task.key_selectors) > 1

    def _store_of(self, key_group: int) -> PageStore:
        if self.store is None:
            raise RuntimeError(
                f"operator '{self.task.uid}': the state of key group "
                f"{key_group} is read outside of its run"
            )
        return self.store

    def run(
        self,
        key_group: int,
        store: PageStore,
        batch: KeyGroupInput,
        watermark: int,
        processing_time: int,
    ) -> List[Tuple[Any, ...]]:
        """The rows key group `key_group` produces from `batch` (its share of a micro-batch)
        with its state in `store`; the state stays loaded until `release()` (an engine may
        still read its timers)."""
        self.store = store
        subtask = self._enter(key_group)
        assert self.operator is not None and self.router is not None  # (_enter set them)
        records = batch.records
        outputs = process_key_group_batch(
            self.operator,
            key_group,
            records,
            watermark,
            processing_time,
            self.convert,
            self._input_ends(batch.ended),
        )
        bundler = Bundler()
        counter, producer = 0, self.producer_base + key_group
        for phase in (BEFORE_WATERMARK, AFTER_WATERMARK):
            if outputs.phases[phase]:
                counter = self.router.route(
                    outputs.phases[phase], phase, producer, counter, bundler, None, subtask
                )
        if self.task.wakes:
            bundler.add_control(
                Channel.TIMERS,
                Control.DUE,
                payload=DueTimer(
                    self.task.uid,
                    key_group,
                    self.operator.timers_of(key_group).earliest(PROCESSING_TIME),
                ),
            )
        snapshot = self.operator.snapshot_operator_state(key_group)
        if snapshot is not None:
            bundler.add_control(
                Channel.OPERATOR_STATE,
                Control.SNAPSHOT,
                payload={(self.task.uid, subtask): snapshot},
            )
        increments = self.operator.runtime_context.get_metrics_group().take_increments()
        bundler.add_metrics(
            {
                **{f"{self.task.uid}.{name}": n for name, n in increments.items()},
                **task_io(self.task.uid, key_group, subtask, len(records), outputs.count),
                **self.router.take_metrics(subtask),
            }
        )
        return bundler.rows()

    def _input_ends(self, ended: frozenset[int]) -> bool:
        """Whether every upstream source has now ended for this key group (sources that
        end in different batches are remembered in a page until the last one does)."""
        if not ended:
            return False
        store = self.store
        assert store is not None  # (run's)
        stored = store.load(ENDED_PAGE)
        so_far = ended | (frozenset(loads(stored)) if stored is not None else frozenset())
        if so_far >= self.task.sources:
            if stored is not None:
                store.remove(ENDED_PAGE)
            return True
        store.store(ENDED_PAGE, dumps(sorted(so_far)))
        return False

    def earliest_event_timer(self, key_group: int) -> Optional[int]:
        """The key group's earliest event-time timer (None without one), read before
        `release()`: an engine wakes the key group then."""
        assert self.operator is not None  # (the key group ran)
        return self.operator.timers_of(key_group).earliest(EVENT_TIME)

    def release(self) -> None:
        if self.operator is not None:
            self.operator.release()
        self.store = None

    def close(self) -> None:
        for operator, router in self.subtasks.values():
            operator.close()
            router.close()
