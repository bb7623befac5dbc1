"""Hosts the keyed operators of one stage in Spark's transformWithState (rows).

Spark groups bundles by (operator uid, key group) and calls the host once per group and
micro-batch: every keyed operator of a stage shares one Spark stateful operator, and the
state of each (operator, key group) is its own Spark state, keyed by the operator's uid.
Keyed state lives in pages (pickled), all pages of a key group in one Spark ValueState, and
one Spark event-time timer per key group wakes it at its earliest weir timer: a batch costs
a few state calls per touched key group, whatever the number of keys or records.
"""

import uuid

from pyspark import cloudpickle
from pyspark.sql import Row
from pyspark.sql.streaming.stateful_processor import StatefulProcessor
from pyspark.sql.types import BinaryType, StructField, StructType

from weir.task.worker_instances import WorkerInstances
from weir.runtime.gc_pause import freeze_long_lived, paused_gc
from weir.runtime.metrics import key_group_state_size
from weir.runtime.wire import (CLOCK_PAGE, END_OF_INPUT_THRESHOLD, OWN_WATERMARK_PAGE,
                               WAKE_PAGE, Bundler, KeyGroupInput, decode_pages, encode_pages,
                               engine_watermark_to_flink)
from weir.spark.frames import STREAM_COLUMNS

PAGES_VALUE = StructType([StructField("pages", BinaryType())])
FORWARD = "\x00forward"  # the grouping key of rows that only pass through a stage
OutputRow = Row(*STREAM_COLUMNS)


class SparkPageStore:
    """A PageStore over the current key group's Spark ValueState, which holds all the key
    group's pages as one pickled dict: the first load reads it (one state call), `flush()`
    writes it back once if any page changed. State calls are the cost here (a round trip to
    the JVM each, ~1 ms on a loaded machine), so a batch costs two per key group, however
    many pages it touched."""

    def __init__(self, value_state):
        self.value_state = value_state
        self._pages = None
        self._changed = False

    def reset(self) -> None:
        """Forgets the cached pages: the next key group reads its own."""
        self._pages, self._changed = None, False

    def _all(self):
        if self._pages is None:
            stored = self.value_state.get()
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
            self.value_state.clear()
            return 0
        blob = encode_pages(self._pages)
        self.value_state.update((blob,))
        return len(blob)


RUNNERS = WorkerInstances()  # this worker process's operators: (run id, uid) -> KeyedRunner


class StageHost(StatefulProcessor):
    """Hosts every keyed operator of one stage; Spark calls it per (operator uid, key
    group) and micro-batch. Rows for later stages and sinks arrive in a few FORWARD groups
    and leave unchanged.

    Operators are built on first use, not in `init`: Spark also calls `init` in a
    short-lived driver-side Python process, only to learn the state variables, and that
    process need not unpickle the user's functions (and import their modules). A worker
    process keeps the operators it built for the tasks of later micro-batches of the same
    run (weir.task.worker_instances), so they are opened once per process, not per task."""

    def __init__(self, plan):
        self.plan_blob = cloudpickle.dumps(plan)
        self.run_id = plan.run_id or uuid.uuid4().hex  # a run of its own, if none is named

    def init(self, handle):
        self.handle = handle
        self.store = SparkPageStore(handle.getValueState("pages", PAGES_VALUE))
        self.plan = None

    def _runner(self, uid):
        return RUNNERS.get(self.run_id, uid, lambda: self._build(uid))

    def _build(self, uid):
        # Imported here, not at the top: Spark's driver-side process that calls `init`
        # imports this module too, and starts ~70 ms sooner without the operators' code.
        from weir.task.keyed_runner import KeyedRunner
        if self.plan is None:  # a task's first operator
            freeze_long_lived()  # here, not in init: the driver-side planner calls init
            self.plan = cloudpickle.loads(self.plan_blob)
        task = next(t for t in self.plan.keyed if t.uid == uid)
        return KeyedRunner(task, self.plan)

    def handleInputRows(self, key, rows, timerValues):
        uid = key[0]
        if uid == FORWARD:
            return [OutputRow(*row[:6]) for row in rows]
        with paused_gc():
            runner = self._runner(uid)
            batch = KeyGroupInput([row[:6] for row in rows], runner.labelled)
            return self._run(uid, runner, int(key[1]), batch, timerValues)

    def handleInitialState(self, key, initialState, timerValues):
        """A page of the key group's state in a job restored from a savepoint (Spark hands
        each row once, in the new query's first batch); the page of its Spark timer
        registers the timer again."""
        self.store.reset()
        page, data = initialState["page"], initialState["data"]
        self.store.store(page, data)
        if page == WAKE_PAGE:
            self.handle.registerTimer(int(data))
        self.store.flush()

    def handleExpiredTimer(self, key, timerValues, expiredTimerInfo):
        with paused_gc():
            runner = self._runner(key[0])  # (woken by its timer: no input)
            return self._run(key[0], runner, int(key[1]), KeyGroupInput((), runner.labelled),
                             timerValues, expiring=expiredTimerInfo.getExpiryTimeInMs())

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

    def _run(self, uid, runner, key_group, batch, timer_values, expiring=None):
        """The key group's output rows for this batch (`batch`: its KeyGroupInput);
        `expiring` is the Spark timer being handled (Spark deletes it). A failure drops
        the operator from the worker's instances: it may be half-way through the batch."""
        self.store.reset()
        try:
            spark_watermark = timer_values.getCurrentWatermarkInMs()
            watermark = self._own_watermark(batch.own_watermark) if runner.own_watermark \
                else spark_watermark
            processing_time = self._processing_time(timer_values, batch.clock)
            rows = runner.run(key_group, self.store, batch,
                              engine_watermark_to_flink(watermark), processing_time)
            # (never at or below Spark's watermark: an own watermark's moves wake the group)
            self._schedule_wake(runner.earliest_event_timer(key_group),
                                max(watermark, spark_watermark), expiring)
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

    def _schedule_wake(self, earliest, engine_watermark, expiring):
        """Keeps exactly one Spark timer per key group, at its earliest weir event-time
        timer (none without one): a timer that is no longer needed is deleted rather than
        left to wake the key group for nothing."""
        # Timers beyond the end-of-input time still fire at the end (+infinity watermark).
        wake_at = None if earliest is None else min(max(earliest, engine_watermark + 1),
                                                    END_OF_INPUT_THRESHOLD)
        stored = self.store.load(WAKE_PAGE)
        current = None if stored is None else int(stored)
        if wake_at == current:
            return
        if current is not None and current != expiring:
            self.handle.deleteTimer(current)
        if wake_at is None:
            self.store.remove(WAKE_PAGE)
            return
        self.handle.registerTimer(wake_at)
        self.store.store(WAKE_PAGE, str(wake_at).encode())

    def close(self):
        """The task's end: its operators stay with the worker process for later tasks."""
