"""The in-process executor: runs a job's physical plan without Spark, batch by batch, as
the Spark executor does.

Each micro-batch reads every source from its last offset to its latest, runs the source
tasks, then each stage's keyed tasks per (operator, key group), passing on rows for later
stages, and writes the sinks. Its control decisions (the job's watermark, operators' own
watermarks, idle sources, processing-time ticks) are the control plane's
(weir.control.plane), on an injected clock, and its tasks are the same code as on Spark
(weir.task).
"""

import threading
import time
import uuid
from collections import defaultdict
from functools import partial

from weir.common.job import JobClient, JobStatus
from weir.control.plane import ControlPlane, wall_clock_ms
from weir.plan.physical import compile_plan
from weir.runtime.gc_pause import paused_gc
from weir.runtime.metrics import MetricsLog
from weir.runtime.state.operator_state import OperatorStateLog
from weir.runtime.sources import END_SPLIT
from weir.runtime.state.backend import MemoryPageStore
from weir.runtime.wire import (
    TIMER_SUMMARY_PAGE,
    Channel,
    Control,
    KeyGroupInput,
    engine_watermark_to_flink,
)
from weir.task.job_outputs import JobOutputs, job_result
from weir.task.keyed_runner import KeyedRunner
from weir.task.source_runner import SourceRunner, chunks_of


class _Source:
    def __init__(self, task, plan, group):
        self.task = task
        self.reader = task.node.param("reader")
        self.runner = SourceRunner(task, plan, group.data_watermarks)
        self.offset = self.reader.initial_offset()
        self.next = None

    def poll(self) -> bool:
        self.next = self.reader.latest_offset(self.offset)
        return self.next != self.offset

    def read(self) -> list:
        rows = []
        splits = self.reader.splits(self.offset, self.next)
        for index, split in enumerate(splits):
            chunks = chunks_of(self.reader, split) if split != END_SPLIT else ()
            for produced in self.runner.read(split, index == 0, chunks):
                rows += produced
        self.offset = self.next
        return rows

    def clock(self):
        """The processing time of the next batch on a scripted source's clock, or None."""
        if not hasattr(self.reader, "processing_time"):
            return None
        splits = [s for s in self.reader.splits(self.offset, self.next) if s != END_SPLIT]
        return self.reader.processing_time(splits[0]) if splits else None


class LocalJob(JobClient):
    def __init__(self, env, graph, sinks, job_name, clock=wall_clock_ms):
        """`clock`: the processing time (ms) the job runs on."""
        self.job_id = env.job_id or uuid.uuid4().hex
        self.job_name = job_name
        self.plan = compile_plan(graph.upstream_of(sinks), env).for_run(
            sink_job_id=uuid.uuid4().hex[:16]
        )  # never restored: every run is new
        self.status = JobStatus.CREATED
        self.batches = 0
        self.rounds = 0  # times the job has looked at its sources and timers (a micro-batch or not)
        self.scripted_time = None  # a scripted source's processing time, once it has one
        self.idle_announcements = {}  # watermark group index -> timestamp, for the next batch
        self.control = ControlPlane(self.plan, clock)
        self.metrics = MetricsLog()
        self.outputs = JobOutputs(
            self.plan,
            self.metrics,
            OperatorStateLog(
                parallelism=self.plan.parallelism
            ),  # a job in one process is never restored
            self.control,
        )
        self.started = time.time()
        self.failure = None  # what ended the run, if it failed
        self._cancel = threading.Event()  # asked to stop
        self._ended = threading.Event()  # the run has ended (started jobs)
        self._thread = None

    def start(self) -> "LocalJob":
        """Runs the job on a thread of its own, as a cluster runs a submitted job: the client
        returns at once, and can wait for the job or cancel it. The thread is not a
        daemon: a script that ends first still lets its job end (or be cancelled)."""
        self._thread = threading.Thread(
            target=self._run_to_end, name=f"weir-local-{self.job_id[:8]}"
        )
        self.status = JobStatus.RUNNING
        self._thread.start()
        return self

    def _run_to_end(self) -> None:
        try:
            self.run()
        except BaseException as error:  # raised to the client by wait()
            self.failure = error
            self.status = JobStatus.FAILED
        finally:
            self._ended.set()

    # -- tasks ---------------------------------------------------------------------
    def _open(self):
        plan = self.plan
        group_of = {uid: g for g in plan.watermark_groups for uid in g.sources}
        self.group_index = {uid: plan.watermark_groups.index(g) for uid, g in group_of.items()}
        self.sources = [_Source(task, plan, group_of[task.uid]) for task in plan.sources]
        marks = self.control.split_marks
        for source in self.sources:  # (weir.runtime.split_watermarks)
            source.reader.announced_marks = (
                partial(self.control.marks_of, source.task.uid)
                if marks is not None and source.task.uid in marks.idleness
                else None
            )
        self.stores = defaultdict(MemoryPageStore)  # (operator uid, key group) -> pages
        self.runners = {}
        for task in plan.keyed:
            self.runners[task.uid] = KeyedRunner(task, plan)

    def _observe(self, group: int, rows) -> list:
        """Takes the watermark rows (largest timestamps, ends, announced watermarks) of a
        source of watermark group `group`; returns the other rows."""
        kept = []
        for row in rows:
            if row[0] == Channel.WATERMARK:
                self.control.see(group, row[3], row[5])
            else:
                kept.append(row)
        return kept

    def _check_idleness(self) -> None:
        """Idleness timeouts run out while no batch runs too."""
        self.idle_announcements.update(self.control.idle_between_batches() or {})

    def _announce_idle_groups(self) -> None:
        """What the sources of idle groups announce in the next batch, as on Spark (see
        weir.control.idleness)."""
        for group, timestamp in self.idle_announcements.items():
            self.control.see(group, Control.IDLE, timestamp)
        self.idle_announcements = self.control.end_batch() or {}

    def _run_stage(self, stage, rows, job_watermark, processing_time):
        uids = {task.uid for task in stage}
        groups: defaultdict = defaultdict(list)
        passed: list = []
        for row in rows:
            (groups[(row[0], row[2])] if row[0] in uids else passed).append(row)
        for (uid, kg), store in self.stores.items():
            if uid in uids and TIMER_SUMMARY_PAGE in store.pages:  # timers may be due
                groups.setdefault((uid, kg), [])
        for uid, kg in sorted(groups):
            runner = self.runners[uid]
            batch = KeyGroupInput(groups[(uid, kg)], runner.labelled)
            watermark = engine_watermark_to_flink(self.control.watermark_of(uid, job_watermark))
            passed += runner.run(kg, self.stores[(uid, kg)], batch, watermark, processing_time)
            runner.release()
        return passed

    # -- batches -------------------------------------------------------------------
    def _run_batch(self, batch_id, polled) -> set:
        """Runs a micro-batch; returns the numbers of the sources that ended in it."""
        watermark = self.control.job_watermark()
        self.control.advance_own_watermarks()
        clocks = [
            c for c in (s.clock() for s, new in zip(self.sources, polled) if new) if c is not None
        ]
        self.scripted_time = max(clocks) if clocks else self.scripted_time
        processing_time = (
            self.scripted_time if self.scripted_time is not None else self.control.clock()
        )
        with paused_gc():  # as Spark's tasks do (weir.runtime.gc_pause)
            rows = []
            for source, new in zip(self.sources, polled):
                if new:
                    rows += self._observe(self.group_index[source.task.uid], source.read())
            for stage in self.plan.stages:
                rows = self._run_stage(stage, rows, watermark, processing_time)
        finished = self.outputs.write([(row[0], row[2], row[4]) for row in rows], batch_id)
        for source, new in zip(self.sources, polled):
            if new:
                source.reader.commit_offset(source.offset)
        self._announce_idle_groups()
        return finished

    def _processing_timer_due(self) -> bool:
        """Whether a processing-time timer is due while no source has input (never on a
        scripted clock, which only moves with its source)."""
        return self.scripted_time is None and self.control.processing_timer_due()

    def run(self):
        self.status = JobStatus.RUNNING
        self._open()
        finished: set
        batch_id, last_watermark, finished = 0, self.control.watermark, set()
        canceled = False
        while len(finished) < len(self.sources):  # a bounded job ends with its last input
            if self._cancel.is_set():  # (from another thread)
                canceled = True
                break
            self.rounds += 1
            polled = [s.poll() for s in self.sources]
            if any(polled):
                finished |= self._run_batch(batch_id, polled)
            elif self.idle_announcements or (
                self.runners
                and (
                    self.control.job_watermark() > last_watermark
                    or self.control.advance_own_watermarks()
                )
            ):
                finished |= self._run_batch(batch_id, polled)
            elif self._processing_timer_due():
                finished |= self._run_batch(batch_id, polled)  # runs every timer's group
            elif all(
                s.reader.bounded and not getattr(s.reader, "may_pause", False) for s in self.sources
            ):
                break
            else:
                time.sleep(0.05)
                self._check_idleness()
                continue
            last_watermark = self.control.watermark
            batch_id += 1
        self.batches = batch_id
        for runner in self.runners.values():
            runner.close()
        for source in self.sources:
            source.runner.close()
        self.status = JobStatus.CANCELED if canceled else JobStatus.FINISHED

    # -- JobClient -----------------------------------------------------------------
    def get_job_id(self):
        return self.job_id

    def get_job_status(self):
        return self.status

    def cancel(self):
        """Stops the job after its current micro-batch; returns once it has stopped (as a
        Spark job's cancel returns once its query has), unless called from the job."""
        self._cancel.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._ended.wait()

    def wait(self, timeout_s=None):
        """The job's status once it has ended (or `timeout_s` has passed); raises the
        error a failed job failed with. Interrupted (Ctrl-C), it cancels the job and
        raises KeyboardInterrupt once the job has stopped."""
        if self._thread is not None:
            try:
                self._ended.wait(timeout_s)
            except KeyboardInterrupt:
                self.cancel()
                raise
        if self.failure is not None:
            raise self.failure
        return self.status

    def get_job_execution_result(self):
        self.wait()
        return job_result(
            self.job_id,
            self.job_name,
            int((time.time() - self.started) * 1000),
            self.batches,
            self.plan,
            self.metrics,
        )


def submit(env, graph, sinks, job_name):
    return LocalJob(env, graph, sinks, job_name, env.executor_clock or wall_clock_ms).start()
