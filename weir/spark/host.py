"""Hosts a keyed runtime operator in Spark's transformWithState (rows), per key group.

Spark groups bundles by key group and calls the host once per key group and micro-batch.
Keyed state lives in pages (pickled), all pages of a key group in one Spark ValueState, and
one Spark event-time timer per key group wakes it at its earliest weir timer: a batch costs
a few state calls per touched key group, whatever the number of keys or records.
"""

import pickle
from collections import Counter
from operator import itemgetter

from pyspark import cloudpickle
from pyspark.sql import Row
from pyspark.sql.streaming.stateful_processor import StatefulProcessor
from pyspark.sql.types import BinaryType, StructField, StructType

from weir.plan.operators import build_keyed_operator, output_validator
from weir.runtime.gc_pause import freeze_long_lived, paused_gc
from weir.runtime.keyed_batch import process_key_group_batch
from weir.runtime.wire import END_OF_INPUT_THRESHOLD, METRIC_PREFIX, engine_watermark_to_flink
from weir.runtime.state.backend import KeyedStateBackend
from weir.runtime.timers import EVENT_TIME
from weir.spark.frames import END_TAG, STREAM_COLUMNS, TICK_TAG, Bundler, loads

PAGES_VALUE = StructType([StructField("pages", BinaryType())])
WAKE_PAGE = -2  # the Spark timer registered for this key group, kept beside the pages
CLOCK_PAGE = -4  # the last scripted processing time (weir.testing.TestStream) seen
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
            self._pages = pickle.loads(stored[0]) if stored is not None else {}
        return self._pages

    def load(self, page_id):
        return self._all().get(page_id)

    def store(self, page_id, blob):
        self._all()[page_id] = blob
        self._changed = True

    def remove(self, page_id):
        if self._all().pop(page_id, None) is not None:
            self._changed = True

    def flush(self) -> None:
        if not self._changed:
            return
        if self._pages:
            self.value_state.update((pickle.dumps(self._pages, protocol=5),))
        else:
            self.value_state.clear()
        self._changed = False


class KeyGroupHost(StatefulProcessor):
    """The operator is built on first use, not in `init`: Spark also calls `init` in a
    short-lived driver-side Python process, only to learn the state variables, and that
    process need not unpickle the user's functions (and import their modules)."""

    def __init__(self, node, uid, max_parallelism, parallelism, job_parameters):
        self.node_blob = cloudpickle.dumps(node)
        self.uid = uid
        self.max_parallelism = max_parallelism
        self.parallelism = parallelism
        self.job_parameters = job_parameters

    def init(self, handle):
        self.handle = handle
        self.store = SparkPageStore(handle.getValueState("pages", PAGES_VALUE))
        self.operator = None

    def _open_operator(self):
        node = cloudpickle.loads(self.node_blob)
        backend = KeyedStateBackend(lambda key_group: self.store, self.max_parallelism)
        self.operator = build_keyed_operator(node, self.uid, backend, self.parallelism,
                                             job_parameters=self.job_parameters)
        self.key_selector = node.param("key_selector")
        self.validate = output_validator(node, self.uid)
        self.operator.open()

    def handleInputRows(self, key, rows, timerValues):
        with paused_gc():
            records, has_end, clock = self._gather(rows)
            return self._run(int(key[0]), records, timerValues, has_end, clock)

    def handleExpiredTimer(self, key, timerValues, expiredTimerInfo):
        self.metrics = Counter()
        with paused_gc():
            return self._run(int(key[0]), [], timerValues, False,
                             expiring=expiredTimerInfo.getExpiryTimeInMs())

    def _gather(self, rows):
        """(records in order, whether the input ends, a scripted clock) of the input rows
        (Spark Rows of the columns _b, _ts, _tag, _kg in that order); upstream metrics go to
        self.metrics."""
        records, has_end, clock, self.metrics = [], False, None, Counter()
        for row in rows:
            blob, stamp, tag = row[0], row[1], row[2]
            if tag is None:
                records.extend(loads(blob))
            elif tag == END_TAG:
                has_end = True
            elif tag == TICK_TAG and stamp is not None:
                clock = stamp
            elif tag.startswith(METRIC_PREFIX):  # an upstream operator's: pass it on
                self.metrics[tag] += stamp
        records.sort(key=itemgetter(0))
        return records, has_end, clock

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

    def _run(self, key_group, records, timer_values, has_end, clock=None, expiring=None):
        """The key group's output rows for this batch; `expiring` is the Spark timer being
        handled (Spark deletes it)."""
        if self.operator is None:  # a task's first key group
            freeze_long_lived()  # here, not in init: the driver-side planner calls init too
            self._open_operator()
        self.store.reset()
        watermark = engine_watermark_to_flink(timer_values.getCurrentWatermarkInMs())
        outputs = process_key_group_batch(
            self.operator, self.key_selector, key_group, records, watermark,
            self._processing_time(timer_values, clock), self.validate)
        self._schedule_wake(self.operator.timers_of(key_group).earliest(EVENT_TIME),
                            timer_values.getCurrentWatermarkInMs(), expiring)
        self.operator.release()
        self.store.flush()
        bundler = Bundler()
        for seq, tag, value, ts in outputs:
            if tag is not None and tag.startswith(METRIC_PREFIX):
                self.metrics[f"{METRIC_PREFIX}{self.uid}.{tag[len(METRIC_PREFIX):]}"] += 1
            else:
                bundler.add(tag, 0, (seq, value, ts))
        for tag, count in self.metrics.items():
            bundler.add_control(tag, count)
        if has_end:
            bundler.add_end()
        blobs, timestamps, tags, _ = bundler.to_columns()
        return [OutputRow(*row) for row in zip(blobs, timestamps, tags)]

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
        if self.operator is not None:
            self.operator.close()
