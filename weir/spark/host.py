"""Hosts the keyed operators of one stage in Spark's transformWithState (rows).

Spark groups bundles by (operator uid, shard) (weir.spark.shards) and calls the host once
per group and micro-batch: every keyed operator of a stage shares one Spark stateful
operator, and each operator's state is its own Spark state, keyed by the operator's uid.
A key group's pages (pickled) are one entry of the shard's Spark MapState, and the shard
keeps its key groups' wake times in one Spark ValueState, with one Spark event-time timer
at their earliest: a batch costs a few state calls per touched key group and shard,
whatever the number of keys or records.
"""

import pickle
import uuid

from pyspark.sql import Row
from pyspark.sql.streaming.stateful_processor import StatefulProcessor
from pyspark.sql.types import BinaryType, IntegerType, StructField, StructType

from weir.task.printing import PrintCapture
from weir.task.worker_instances import WorkerInstances
from weir.runtime.pickling import dumps_by_value
from weir.runtime.gc_pause import freeze_long_lived, paused_gc
from weir.runtime.metrics import key_group_state_size
from weir.runtime.state.page_store import PageStore
from weir.runtime.wire import (
    CLOCK_PAGE,
    END_OF_INPUT_THRESHOLD,
    OWN_WATERMARK_PAGE,
    WAKE_PAGE,
    Bundler,
    KeyGroupInput,
    decode_pages,
    encode_pages,
    engine_watermark_to_flink,
)
from weir.spark.frames import STREAM_COLUMNS

KEY_GROUP = StructType([StructField("kg", IntegerType())])
PAGES_VALUE = StructType([StructField("pages", BinaryType())])
WAKES_VALUE = StructType([StructField("wakes", BinaryType())])
FORWARD = "\x00forward"  # the grouping key of rows that only pass through a stage
OutputRow = Row(*STREAM_COLUMNS)


def encode_wakes(wakes: dict) -> bytes:
    return pickle.dumps(wakes, protocol=5)


def decode_wakes(blob: bytes) -> dict:
    """{key group: the time its Spark timer wakes it} of one shard."""
    return pickle.loads(blob)


class SparkPageStore(PageStore):
    """A PageStore over one key group's entry of the shard's Spark MapState, which holds
    all the key group's pages as one pickled dict: the first load reads it (one state
    call), `flush()` writes it back once if any page changed. State calls are the cost
    here (a round trip to the JVM each), so a batch costs two per key group, however many
    pages it touched."""

    def __init__(self, map_state):
        self.map_state = map_state
        self.key_group = None
        self._pages = None
        self._changed = False

    def reset(self, key_group: int) -> None:
        """Forgets the cached pages: the next loads read `key_group`'s."""
        self.key_group, self._pages, self._changed = key_group, None, False

    def _all(self):
        if self._pages is None:
            stored = self.map_state.getValue((self.key_group,))
            self._pages = decode_pages(stored[0]) if stored is not None else {}
        return self._pages

    def load(self, page_id):
        return self._all().get(page_id)

    def store(self, page_id, blob):
        self._all()[page_id] = blob
        self._changed = True

    def remove(self, page_id):
        if self._all().pop(page_id, None) is not None:
            self._changed = True

    def flush(self):
        """Writes the pages back if any changed; their size in bytes then (else None)."""
        if not self._changed:
            return None
        self._changed = False
        if not self._pages:
            self.map_state.removeKey((self.key_group,))
            return 0
        blob = encode_pages(self._pages)
        self.map_state.updateValue((self.key_group,), (blob,))
        return len(blob)


class ShardWakes:
    """When each key group of a shard must run again for its event-time timers, and the
    shard's one Spark timer at the earliest of those times. `begin()` reads them (one
    state call), `finish()` moves the timer and writes them back where they changed: a
    timer no longer needed is deleted rather than left to wake the shard for nothing."""

    def __init__(self, value_state, handle):
        self.value_state = value_state
        self.handle = handle
        self.wakes = self._read = {}

    def begin(self) -> None:
        stored = self.value_state.get()
        self._read = {} if stored is None else decode_wakes(stored[0])
        self.wakes = dict(self._read)

    def set(self, key_group: int, wake_at) -> None:
        if wake_at is None:
            self.wakes.pop(key_group, None)
        else:
            self.wakes[key_group] = wake_at

    def due(self, watermark: int) -> list:
        """The key groups whose wake time the watermark has reached, in order."""
        return sorted(key_group for key_group, at in self.wakes.items() if at <= watermark)

    def finish(self, expiring=None) -> None:
        """`expiring`: the Spark timer being handled (Spark deletes it)."""
        if self.wakes == self._read:
            return
        before = min(self._read.values(), default=None)
        after = min(self.wakes.values(), default=None)
        if after != before:
            if before is not None and before != expiring:
                self.handle.deleteTimer(before)
            if after is not None:
                self.handle.registerTimer(after)
        if self.wakes:
            self.value_state.update((encode_wakes(self.wakes),))
        else:
            self.value_state.clear()


RUNNERS = WorkerInstances()  # this worker process's operators: (run id, uid) -> KeyedRunner


class StageHost(StatefulProcessor):
    """Hosts every keyed operator of one stage; Spark calls it per (operator uid, shard)
    and micro-batch, and it runs each key group of the shard with input or a due timer.
    Rows for later stages and sinks arrive in a few FORWARD groups and leave unchanged.

    Operators are built on first use, not in `init`: Spark also calls `init` in a
    short-lived driver-side Python process, only to learn the state variables, and that
    process need not unpickle the user's functions (and import their modules). A worker
    process keeps the operators it built for the tasks of later micro-batches of the same
    run (weir.task.worker_instances), so they are opened once per process, not per task."""

    def __init__(self, plan):
        self.plan_blob = dumps_by_value(plan)
        self.run_id = plan.run_id or uuid.uuid4().hex  # a run of its own, if none is named

    def init(self, handle):
        self.handle = handle
        self.store = SparkPageStore(handle.getMapState("pages", KEY_GROUP, PAGES_VALUE))
        self.wakes = ShardWakes(handle.getValueState("wakes", WAKES_VALUE), handle)
        self.plan = None

    def _runner(self, uid):
        return RUNNERS.get(self.run_id, uid, lambda: self._build(uid))

    def _build(self, uid):
        # Imported here, not at the top: Spark's driver-side process that calls `init`
        # imports this module too, and starts ~70 ms sooner without the operators' code.
        from weir.task.keyed_runner import KeyedRunner

        if self.plan is None:  # a task's first operator
            freeze_long_lived()  # here, not in init: the driver-side planner calls init
            self.plan = pickle.loads(self.plan_blob)
        task = next(t for t in self.plan.keyed if t.uid == uid)
        return KeyedRunner(task, self.plan)

    def handleInputRows(self, key, rows, timerValues):
        uid = key[0]
        if uid == FORWARD:
            return [OutputRow(*row[:6]) for row in rows]
        with paused_gc():
            runner = self._runner(uid)
            by_key_group: dict = {}
            for row in rows:
                by_key_group.setdefault(row[2], []).append(row[:6])
            self.wakes.begin()
            out = []
            with PrintCapture(runner.plan.forward_prints) as printed:
                for key_group, group_rows in sorted(by_key_group.items()):
                    out += self._run(
                        uid,
                        runner,
                        key_group,
                        KeyGroupInput(group_rows, runner.labelled),
                        timerValues,
                    )
            self.wakes.finish()
            return out + [OutputRow(*row) for row in printed.rows()]

    def handleInitialState(self, key, initialState, timerValues):
        """A page of a key group's state in a job restored from a savepoint (Spark hands
        each row once, in the new query's first batch); the page of its Spark timer
        (weir.spark.savepoints) becomes its wake time again."""
        key_group, page, data = (
            initialState["key_group"],
            initialState["page"],
            initialState["data"],
        )
        if page == WAKE_PAGE:
            self.wakes.begin()
            self.wakes.set(key_group, int(data))
            self.wakes.finish()
            return
        self.store.reset(key_group)
        self.store.store(page, data)
        self.store.flush()

    def handleExpiredTimer(self, key, timerValues, expiredTimerInfo):
        """The shard's timer: runs every key group whose wake time has come."""
        with paused_gc():
            expiring = expiredTimerInfo.getExpiryTimeInMs()
            self.wakes.begin()
            due = self.wakes.due(max(expiring, timerValues.getCurrentWatermarkInMs()))
            runner = self._runner(key[0]) if due else None  # (woken by its timer: no input)
            out = []
            # (runner is None only where nothing is due)
            with PrintCapture(bool(due) and runner.plan.forward_prints) as printed:  # type: ignore[union-attr]
                for key_group in due:
                    out += self._run(
                        key[0],
                        runner,
                        key_group,
                        KeyGroupInput((), runner.labelled),  # type: ignore[union-attr]
                        timerValues,
                    )
            self.wakes.finish(expiring)
            return out + [OutputRow(*row) for row in printed.rows()]

    def _processing_time(self, timer_values, clock):
        """Spark's batch time, unless a scripted source runs the job on its test clock."""
        stored = self.store.load(CLOCK_PAGE)
        if clock is not None:
            encoded = str(clock).encode()
            if stored != encoded:  # an unchanged clock costs no state write
                self.store.store(CLOCK_PAGE, encoded)
            return clock
        if stored is not None:
            return int(stored)
        return timer_values.getCurrentProcessingTimeInMs()

    def _run(self, uid, runner, key_group, batch, timer_values):
        """The key group's output rows for this batch (`batch`: its KeyGroupInput). A
        failure drops the operator from the worker's instances: it may be half-way through
        the batch."""
        self.store.reset(key_group)
        try:
            spark_watermark = timer_values.getCurrentWatermarkInMs()
            watermark = (
                self._own_watermark(batch.own_watermark)
                if runner.own_watermark
                else spark_watermark
            )
            processing_time = self._processing_time(timer_values, batch.clock)
            rows = runner.run(
                key_group, self.store, batch, engine_watermark_to_flink(watermark), processing_time
            )
            # (never at or below Spark's watermark: an own watermark's moves wake the group)
            self._schedule_wake(
                key_group, runner.earliest_event_timer(key_group), max(watermark, spark_watermark)
            )
            runner.release()
        except BaseException:
            RUNNERS.drop(self.run_id, uid)
            raise
        size = self.store.flush()
        if size is not None:  # (the dashboard's state size per key group)
            reported = Bundler()
            reported.add_metrics(key_group_state_size(uid, key_group, size))
            rows = rows + reported.rows()
        return [OutputRow(*row) for row in rows]

    def _own_watermark(self, announced) -> int:
        """The operator's own watermark (weir.control.watermarks): the one announced in this
        batch, kept for the batches that announce none; 0 before the first."""
        stored = self.store.load(OWN_WATERMARK_PAGE)
        own = 0 if stored is None else int(stored)
        if announced is not None and announced > own:
            self.store.store(OWN_WATERMARK_PAGE, str(announced).encode())
            return announced
        return own

    def _schedule_wake(self, key_group, earliest, engine_watermark):
        """The key group's wake time: its earliest weir event-time timer (none without
        one), never at or below the watermark it ran at."""
        # Timers beyond the end-of-input time still fire at the end (+infinity watermark).
        self.wakes.set(
            key_group,
            None
            if earliest is None
            else min(max(earliest, engine_watermark + 1), END_OF_INPUT_THRESHOLD),
        )

    def close(self):
        """The task's end: its operators stay with the worker process for later tasks."""
