"""Runs the tasks of a physical plan: the same code on every executor.

An executor moves rows (weir.runtime.wire) between tasks and keeps their state; what a task
does with its rows is here: a source task reads a split, a keyed task runs its operator for
one key group, and both then run their fused stateless nodes and route every record to its
consumers (Router).
"""

import time
from collections import Counter
from typing import List

from weir.common.job import JobExecutionResult
from weir.plan.idleness import WatermarkGroupTracker
from weir.plan.operators import build_keyed_operator, output_converter
from weir.plan.physical import KeyedTask, PhysicalPlan, SourceTask
from weir.plan.routing import Router
from weir.runtime.errors import UserFunctionError, source_error
from weir.runtime.key_groups import operator_index
from weir.runtime.keyed_batch import process_key_group_batch
from weir.runtime.metrics import (RECORDS_IN, RECORDS_OUT, is_breakdown, merge_report,
                                  records_io, records_received, task_io)
from weir.runtime.connectors.sink_base import commit_tasks
from weir.runtime.sink_writers import CheckpointedSink, sink_writer, write_batch
from weir.runtime.sources import END_SPLIT, RECORDS_IN_ERRORS, DeadLetter
from weir.runtime.split_watermarks import SplitMarks
from weir.runtime.state.backend import KeyedStateBackend
from weir.runtime.state.operator_state import OperatorStateLog
from weir.runtime.timers import PROCESSING_TIME
from weir.runtime.wire import (AFTER_WATERMARK, ANNOUNCE, BEFORE_WATERMARK, COMMITS, DUE,
                               END, END_OF_INPUT_TS, ENDED_PAGE, FINISHED,
                               MAX_BUNDLE_RECORDS, METRICS, OPERATOR_STATE, PHASE_SHIFT, SEEN,
                               SNAPSHOT, SPLIT_WATERMARKS, TIMERS, WATERMARK, Bundler,
                               bundle_columns, dumps, loads, read_watermark_report)


TASK_IO = (f".{RECORDS_IN}", f".{RECORDS_OUT}")  # every operator's counts of records


def job_result(job_id: str, job_name: str, runtime_ms: int, batches: int,
               plan: PhysicalPlan, metrics_log) -> JobExecutionResult:
    """A job's result, with the records its sources read and its sinks received (and the
    metrics operators kept; the tasks' own counts of records are for the REST API)."""
    metrics = result_metrics(plan, metrics_log.totals())
    read = sum(metrics.get(f"{task.uid}.{RECORDS_OUT}", 0) for task in plan.sources)
    written = sum(metrics.get(f"{uid}.{RECORDS_IN}", 0) for uid in plan.sinks)
    return JobExecutionResult(job_id, runtime_ms, batches, metrics, job_name, (read, written))


def result_metrics(plan: PhysicalPlan, totals: dict) -> dict:
    """The user's metrics, the records the sources read and those the sinks received;
    not every operator's records in and out, nor those per key group."""
    kept = {f"{task.uid}.{RECORDS_OUT}" for task in plan.sources} | {
        f"{uid}.{RECORDS_IN}" for uid in plan.sinks}
    return {name: value for name, value in totals.items()
            if name in kept or not (name.endswith(TASK_IO) or is_breakdown(name))}


class SourceRunner:
    """Reads a source's splits into rows: records routed to their consumers, the source's
    largest timestamps for the watermark, ticks and a scripted source's controls. The
    stateless nodes fused behind the source are opened once per subtask and kept until
    `close()`."""

    def __init__(self, task: SourceTask, plan: PhysicalPlan, data_watermarks: bool):
        self.task = task
        self.plan = plan
        self.reader = task.node.param("reader")
        self.data_watermarks = data_watermarks and task.watermark is not None
        self.routers = {}  # subtask index -> Router

    def close(self) -> None:
        for router in self.routers.values():
            router.close()
        self.routers.clear()

    def read(self, split, first: bool, chunks):
        """Yields lists of rows for `split`; `chunks` yields its (values, timestamps)."""
        bundler = Bundler()
        scripted = hasattr(self.reader, "processing_time")
        if first:
            clock = self.reader.processing_time(split) if scripted and split != END_SPLIT \
                else None
            for uid in self.plan.ticked:
                bundler.add_ticks(uid, self.plan.max_parallelism, clock)
        if split == END_SPLIT:
            self._end(bundler)
            yield bundler.rows()
            return
        announced = self.reader.announced_watermark(split) if scripted else None
        if announced is not None:
            bundler.add_control(WATERMARK, ANNOUNCE, announced)
        bound = self.reader.split_watermark(split) if self.data_watermarks else None
        if bound is not None and bound[0] is None:  # the source's watermark, announced
            bundler.add_control(WATERMARK, ANNOUNCE, bound[2])
            bound = None
        yield from self._read_records(split, chunks, bundler, bound)

    def _end(self, bundler) -> None:
        """The end of this source's input: every key group of the keyed operators downstream
        learns it in this micro-batch (and fires its end-of-input timers once all its
        sources have ended), the driver learns it, and the watermark group's watermark
        stops holding the others back."""
        for uid in self.task.ends:
            bundler.add_ends(uid, self.plan.max_parallelism, self.task.index)
        bundler.add_finished(self.task.index)
        bundler.add_control(WATERMARK, END, END_OF_INPUT_TS)

    def _read_records(self, split, chunks, bundler, bound=None):
        """`bound`: (partition, its mark, floor) of a partitioned source's split (see
        weir.runtime.split_watermarks), or None."""
        subtask = split[0] % self.plan.parallelism
        router = self.routers.get(subtask)
        if router is None:
            router = self.routers[subtask] = Router(self.task.fused, self.plan, subtask,
                                                    self.task.watermark)
        counter, seen, read = 0, [] if self.data_watermarks else None, 0
        dead_letters, split_largest = 0, None
        for values, stamps in _named_errors(chunks, self.task.node.display_name()):
            read += len(values)
            outputs = {None: (values, stamps)}
            if self.reader.dead_letter_tag is not None:
                outputs = self._dead_letters_apart(values, stamps)
                dead_letters += len(outputs[self.reader.dead_letter_tag][0])
            counter = router.route(outputs, AFTER_WATERMARK, split[0],
                                   counter, bundler, seen, subtask)
            if seen:
                largest = max(seen)
                seen.clear()
                if bound is not None:
                    split_largest = max(largest, split_largest or largest)
                    largest = _floored(split_largest, bound)
                if largest is not None:
                    bundler.add_control(WATERMARK, SEEN, largest)
            yield bundler.rows()
        if split_largest is not None:
            bundler.add_control(SPLIT_WATERMARKS, SEEN,
                                payload=(self.task.uid, bound[0], split_largest))
        metrics = router.take_metrics(subtask)
        if read:
            metrics.update(records_io(self.task.uid, subtask, 0, read - dead_letters))
        bundler.add_metrics(metrics)
        if dead_letters:
            bundler.add_metrics({f"{self.task.uid}.{RECORDS_IN_ERRORS}": dead_letters})
        if bundler.done:
            yield bundler.rows()

    def _dead_letters_apart(self, values, stamps) -> dict:
        """{None: the records read, tag: the dead letters, as Rows}."""
        main, dead = ([], []), ([], [])
        source = self.task.node.display_name()
        for value, stamp in zip(values, stamps):
            if isinstance(value, DeadLetter):
                dead[0].append(value.as_row(source))
                dead[1].append(stamp)
            else:
                main[0].append(value)
                main[1].append(stamp)
        return {None: main, self.reader.dead_letter_tag: dead}


def _floored(largest: int, bound):
    """What a partitioned source's split reports for the watermark: its partition's
    largest timestamp, at most its floor (None: nothing)."""
    _, mark, floor = bound
    if floor is None:
        return None
    return min(max(largest, mark if mark is not None else largest), floor)


def _named_errors(chunks, source: str):
    """`chunks`, with an error of the reader's named after its source."""
    try:
        yield from chunks
    except UserFunctionError:
        raise
    except Exception as exc:
        raise source_error(exc, source) from exc


def chunks_of(reader, split):
    """(values, timestamps) of a split, in chunks of at most MAX_BUNDLE_RECORDS."""
    return reader.split_chunks(split, MAX_BUNDLE_RECORDS)


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
        # whether it runs with a watermark of its own (weir.plan.watermarks)
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


class JobOutputs:
    """The driver's end of every micro-batch: writes the (to, subtask, payload) rows that
    reach it (records to their sinks, metric increments to `metrics` per batch id, so that
    a replay replaces them) and keeps every operator state snapshot in `operator_states`
    (sink functions with operator state are snapshotted here); in a job whose sources can
    become idle or whose operators have watermarks of their own, the watermark rows go
    to `group_tracker`."""

    def __init__(self, plan: PhysicalPlan, metrics, operator_states: OperatorStateLog,
                 written_by_tasks=frozenset()):
        """`written_by_tasks`: the uids of the sinks the tasks write themselves (their
        counts still come here, as metrics)."""
        self.plan = plan
        self.metrics = metrics
        self.operator_states = operator_states
        self.group_tracker = WatermarkGroupTracker(plan.watermark_groups,
                                                   int(time.time() * 1000)) \
            if WatermarkGroupTracker.tracks(plan) else None
        partitioned = plan.partitioned_sources
        self.split_marks = SplitMarks(partitioned, int(time.time() * 1000)) \
            if partitioned else None
        # (uid, key group) -> its earliest processing-time timer (None: none), as reported
        self.processing_timers = {}
        self.writers = {uid: sink_writer(node.param("sink"), uid, plan,
                                         operator_states.restored.get(uid))
                        for uid, node in plan.sinks.items() if uid not in written_by_tasks}
        self.committers = {uid: plan.sinks[uid].param("sink") for uid in written_by_tasks}
        self.run_in_tasks = None  # the engine's tasks for work after a commit (None: here)

    def write(self, rows, batch_id: int) -> set:
        """Writes a micro-batch's rows; returns the numbers of the sources that ended in
        it."""
        per_sink = {uid: ([], [], []) for uid in self.writers}
        counts, finished, prepared = {}, set(), {}
        now_ms = int(time.time() * 1000)
        for to, subtask, blob in rows:
            if to == METRICS:
                for name, report in loads(blob).items():
                    merge_report(counts, name, report)
            elif to == COMMITS:
                for uid, committables in loads(blob).items():
                    prepared.setdefault(uid, []).extend(committables)
            elif to == FINISHED:
                finished.add(subtask)
            elif to == OPERATOR_STATE:
                self.operator_states.record(loads(blob))
            elif to == WATERMARK:
                self.group_tracker.observe(subtask, *read_watermark_report(blob))
            elif to == SPLIT_WATERMARKS:
                self.split_marks.observe(loads(blob), now_ms)
            elif to == TIMERS:
                uid, key_group, earliest = loads(blob)
                self.processing_timers[uid, key_group] = earliest
            else:
                values, subtasks, stamps = per_sink[to]
                records, times = bundle_columns(blob)
                values.extend(records)
                stamps.extend(times or [None] * len(records))
                subtasks.extend([subtask] * len(records))
        for uid, writer in self.writers.items():
            values, subtasks, stamps = per_sink[uid]
            received = {(uid, index): count for index, count in Counter(subtasks).items()}
            for name, n in records_received(received).items():
                merge_report(counts, name, n)
            write_batch(writer, values, batch_id,
                        subtasks if self.plan.parallelism > 1 else None, stamps)
            if isinstance(writer, CheckpointedSink):
                self.operator_states.record(writer.snapshot())
        for uid, committables in prepared.items():
            commit_tasks(self.committers[uid], batch_id, committables, self.run_in_tasks)
        self.metrics.record(batch_id, counts)
        return finished

    def next_processing_timer(self):
        """The earliest processing-time timer pending in any key group, as the key groups
        last reported (None: none); a stream without input needs a micro-batch then."""
        return min((t for t in self.processing_timers.values() if t is not None), default=None)

    def all_timers_reported(self) -> bool:
        """Whether every key group of each operator that may hold processing-time timers
        has reported them."""
        plan = self.plan
        return len(self.processing_timers) >= (len(plan.processing_time_operators)
                                               * plan.max_parallelism)
