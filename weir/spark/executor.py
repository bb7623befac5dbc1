"""Runs a job as one Spark streaming query; its sinks are written in foreachBatch."""

import json
import os
import shutil
import tempfile
import threading
import time
import uuid
from concurrent.futures import Future
from typing import TYPE_CHECKING, Callable, Optional, Union, cast

from weir.plan import graph as g
from weir.common.job import JobClient, JobExecutionError, JobStatus
from weir.task.job_outputs import JobOutputs, job_result
from weir.control.idleness import WatermarkGroupTracker
from weir.control.plane import ControlPlane
from weir.plan.physical import compile_plan
from weir.runtime.errors import marked_message
from weir.runtime.metrics import MetricsLog
from weir.runtime.sink_writers import atomic_write
from weir.runtime.state.operator_state import OperatorStateLog
from weir.spark.announcements import DUE_FILE, IDLE_FILE, MARKS_FILE, OWN_FILE, Announcements
from weir.spark.batch_mode import BatchJob
from weir.spark.frame_sinks import spark_sinks, written
from weir.spark.frame_sources import snapshot_batch_frames
from weir.plan.describe import describe_plan
from weir.plan.savepoints import apply_savepoint, restore_settings
from weir.runtime.state.savepoint import dispose_savepoint, load_savepoint, saved_batch
from weir.spark.restore import (
    check_max_parallelism,
    checkpoint_identity,
    last_committed_batch,
    load_operator_states,
    resumes_checkpoint,
    save_operator_states,
    state_layout,
)
from weir.spark.progress import job_snapshot
from weir.spark.savepoints import (
    check_savepointable,
    latest_keyed_value,
    prove_writable,
    write_savepoint,
)
from weir.spark.one_shot import eligible_sources, plan_one_shot
from weir.spark.prewarm import warm_python_workers
from weir.spark.session import get_session, is_local, worker_python_error
from weir.spark.shards import ShardLayout
from weir.spark.shipping import ship_python_dependencies, ship_user_modules
from weir.spark.sinks import COLUMNS, tasks_of, write_in_tasks, written_by_tasks
from weir.spark.source import DRAIN, HOLD
from weir.spark.translate import query_frame

if TYPE_CHECKING:
    from pyspark.sql.streaming import StreamingQuery

SAVEPOINT_DIRECTORY = ("execution.checkpointing.savepoint-dir", "state.savepoints.dir")  # Flink's
POLL_S = 0.05
NO_DATA_BATCHES = "spark.sql.streaming.noDataMicroBatches.enabled"
SHUFFLE_PARTITIONS = "spark.sql.shuffle.partitions"
END_GRACE_S = 2.0
HOLD_FILE = "weir-hold"  # while it exists, the sources report no new offsets (or drain)
QUIET_S = 0.1  # how long a query held between micro-batches must stay so to be stopped
FIRST_BATCH_TIMEOUT_S = 300  # how long a savepoint waits for a new run's first batch
# What a micro-batch's sink work raises when weir stopped the query meanwhile (cancel(),
# the end of a bounded job, stop-with-savepoint). Spark recognises a stop's interruption in
# a foreachBatch error by matching its message against a pattern (StreamExecution.
# PROXY_ERROR: this prefix, anything, an interruption's class name) whose matcher recurses
# once per character: on the ~12,000 characters of the Py4JJavaError an interrupted
# toArrow raises, it overflowed the stack and printed a thousand-line StackOverflowError.
STOPPED_MID_BATCH = (
    "py4j.protocol.Py4JJavaError: An error occurred while calling the "
    "sinks: java.lang.InterruptedException (weir stopped the query)"
)
# Queries start one at a time: a bounded job's start sets a session setting for its query
# only, which a query another thread starts meanwhile must not read.
_STARTING = threading.Lock()


class BatchInterrupted(Exception):
    """A micro-batch's sink work interrupted by weir stopping the query (the batch does
    not commit)."""


class SparkJob(JobClient):
    def __init__(self, env, graph, sinks, job_name):
        self.job_id = env.job_id or uuid.uuid4().hex
        self.job_name = job_name
        self.spark = get_session(env)
        self.nodes = graph.upstream_of(sinks)
        self.plan = compile_plan(self.nodes, env)
        # (while the query is planned: weir.spark.prewarm)
        warm_python_workers(self.spark, keyed=bool(self.plan.stages))
        self.description = describe_plan(self.nodes, self.job_id, job_name, env.parallelism)
        checkpoint = env.checkpoint_config.get_checkpoint_storage()
        self._temporary = checkpoint is None
        self.checkpoint_dir = checkpoint or tempfile.mkdtemp(prefix="weir-checkpoint-")
        check_max_parallelism(self.checkpoint_dir, self.plan.max_parallelism)
        self.plan = self.plan.for_run(
            restoring=last_committed_batch(self.checkpoint_dir) is not None
        )
        states = OperatorStateLog(self._restored_operator_states(env), self.plan.parallelism)
        # a local run shows what functions print on its standard output (weir.task.printing)
        self.plan = self.plan.for_run(
            run_id=self.job_id,
            forward_prints=is_local(self.spark),
            sink_job_id=checkpoint_identity(self.checkpoint_dir),
            restored=states.restored,
        )
        self.bounded = all(n.param("reader").bounded for n in self.nodes if n.kind == g.SOURCE)
        # A bounded job with a source that may have nothing new before its end cannot use
        # Spark's availableNow trigger (which ends at the first batch without data): it
        # runs on the usual trigger, and weir stops it once every input has ended.
        self.pausing = self.bounded and any(
            getattr(n.param("reader"), "may_pause", False) for n in self.nodes if n.kind == g.SOURCE
        )
        self.interval_ms = env.checkpoint_config.get_checkpoint_interval()
        self.env = env
        self.started = time.time()
        self.batches = 0
        self.metrics = MetricsLog()
        self.spark_sinks = spark_sinks(self.plan)  # written by Spark (weir.spark.frame_sinks)
        self.task_sinks = {
            uid: sink
            for uid, sink in written_by_tasks(self.plan).items()
            if uid not in self.spark_sinks
        }
        # An unbounded job ticks for due processing-time timers while no input comes (not
        # on a scripted clock: only its source's batches move it)
        self.ticks = (
            not self.bounded
            and not self.plan.scripted
            and bool(self.plan.processing_time_operators)
        )
        self.control = ControlPlane(self.plan, restoring=self.ticks and self.plan.restoring)
        self.outputs = JobOutputs(
            self.plan,
            self.metrics,
            states,
            self.control,
            frozenset(self.task_sinks) | frozenset(self.spark_sinks),
        )
        self.outputs.run_in_tasks = tasks_of(self.spark)
        self._lock = threading.Lock()
        self._savepointing = threading.Lock()
        self.query: Optional["StreamingQuery"] = None  # (set by start)
        self.canceled = False
        self.stopping = False  # weir is stopping the query (_stop_query)
        self.last_batch = None  # the batch in which the last source ended
        self.announcements = Announcements(self.checkpoint_dir, self.plan, self.control)

    def _restored_operator_states(self, env):
        """What the run restores beside Spark's state: from its checkpoint, or from the
        savepoint the job's configuration names (weir.plan.savepoints), which also sets
        where its sources start and the keyed state its first micro-batch loads."""
        restore = restore_settings(env)
        if restore is None or resumes_checkpoint(self.checkpoint_dir, restore[0]):
            return load_operator_states(self.checkpoint_dir)
        savepoint = load_savepoint(restore[0])
        check_savepointable(self.plan)
        self.plan, restored = apply_savepoint(self.plan, savepoint, restore[1])
        return restored

    def start(self) -> "SparkJob":
        ship_user_modules()
        ship_python_dependencies(self.spark, getattr(self.env, "python_dependencies", None))
        if os.path.exists(self._hold_file()):  # left by a run killed while stopping
            os.remove(self._hold_file())
        snapshot_batch_frames(self.spark, self.plan, self.checkpoint_dir)  # from_spark()
        marks = self.control.split_marks is not None
        self.announcements.start(self.ticks, marks)
        announced = self.announcements.path
        self.layout = self._shard_layout()
        available_now = self.bounded and not self.pausing
        eligible = eligible_sources(self.plan) if available_now else []
        one_shot = plan_one_shot(self.spark, self.plan, self.checkpoint_dir, eligible)
        frame = query_frame(
            self.spark,
            self.plan,
            (
                announced(IDLE_FILE),
                announced(OWN_FILE),
                announced(DUE_FILE) if self.ticks else None,
                announced(MARKS_FILE) if marks else None,
                self._hold_file(),
            ),
            self.layout,
            one_shot,
        )
        writer = (
            frame.writeStream.queryName(f"weir-{self.job_name}-{self.job_id[:8]}")
            .foreachBatch(self._write_batch)
            .option("checkpointLocation", self.checkpoint_dir)
        )
        if available_now:
            writer = writer.trigger(availableNow=True)
        elif self.interval_ms:
            writer = writer.trigger(processingTime=f"{int(self.interval_ms)} milliseconds")
        self._writer = writer
        self.query = self._start(writer)
        if WatermarkGroupTracker.needed(self.plan.watermark_groups):
            threading.Thread(
                target=self._watch_idleness, daemon=True, name=f"weir-idleness-{self.job_id[:8]}"
            ).start()
        return self

    def _start(self, writer):
        """Starts the query, with the settings Spark reads when a query starts (set for
        this query only). A bounded job runs no micro-batch without data: the batch that
        reads the end of its last input fires every end-of-input timer and window, so
        Spark's batch for its watermark after it would only be stopped half-way. A job
        restored from a savepoint starts a new checkpoint at its own parallelism."""
        settings = self._query_settings()
        with _STARTING:
            conf = self.spark.conf
            before = {key: conf.get(key, None) for key in settings}
            for key, value in settings.items():
                conf.set(key, value)
            try:
                return writer.start()
            finally:
                for key, value in before.items():
                    if value is None:
                        conf.unset(key)
                    else:
                        conf.set(key, value)

    def _query_settings(self) -> dict:
        settings = {}
        if self.bounded:
            settings[NO_DATA_BATCHES] = "false"
        # The partitions keyed work is grouped by (a resumed query's are its checkpoint's)
        settings[SHUFFLE_PARTITIONS] = str(self.layout.partitions)
        return settings

    def _shard_layout(self) -> ShardLayout:
        """How the query groups keyed work: by the shuffle partitions it starts with (the
        session's, or the job's parallelism where it restores a savepoint), or those of
        the checkpoint it resumes, which Spark keeps."""
        if self.plan.start_offsets or self.plan.savepoint_files:
            partitions = self.plan.parallelism
        else:
            with _STARTING:  # (not a value another job sets while it starts)
                partitions = int(cast(str, self.spark.conf.get(SHUFFLE_PARTITIONS)))  # (Spark's)
        return ShardLayout(
            self.plan.max_parallelism,
            state_layout(self.checkpoint_dir, partitions, keyed=bool(self.plan.stages)),
        )

    def _write_batch(self, batch_frame, batch_id):
        try:
            self._write_outputs(batch_frame, batch_id)
        except Exception:
            if not self.stopping:
                raise
            raise BatchInterrupted(STOPPED_MID_BATCH) from None

    def _write_outputs(self, batch_frame, batch_id):
        # (a micro-batch after every input ended runs too, without records: its stateful
        # operators commit their state's version; weir.spark.one_shot)
        frame = batch_frame.select(*COLUMNS)
        if self.task_sinks:
            frame = write_in_tasks(frame, self.task_sinks, batch_id, self.plan.sink_job_id)
        with written(frame, self.spark_sinks, batch_id, self.plan.sink_job_id) as frame:
            table = frame.toArrow()
        rows = zip(*(column.to_pylist() for column in table.columns))
        with self._lock:
            self.outputs.write(rows, batch_id)
            changed = self.outputs.operator_states.take_changed()
            if changed is not None:
                save_operator_states(self.checkpoint_dir, batch_id, changed)
            self.announcements.idle(self.control.end_batch())
            self.announcements.split_marks()
            self.batches += 1
            if self.last_batch is None and self.control.input_ended():
                self.last_batch = batch_id
            if self.last_batch is None:
                self.announcements.own_watermarks()
            if self.ticks:
                self.announcements.due_timer(self.control.next_tick())

    @property
    def due(self) -> Optional[int]:
        """The earliest processing-time timer announced to the sources (None: none)."""
        return self.announcements.due

    def _watch_idleness(self) -> None:
        """Idleness timeouts run out between micro-batches too: while no batch runs, check
        every so often (a source that reads an announcement starts the next batch)."""
        every_s = self.control.idleness_check_s()
        assert every_s is not None and self.query is not None  # (a group idles; started)
        while self.query.isActive:
            time.sleep(every_s)
            with self._lock:
                self.announcements.idle(self.control.idle_between_batches())
                self.announcements.split_marks()

    def query_state(self, uid: str, state_name: str, key):
        """The value of `key`'s keyed state `state_name` in operator `uid` as of the last
        committed micro-batch (Flink's queryable state); LookupError where it has none."""
        return latest_keyed_value(self.spark, self.checkpoint_dir, self.plan, uid, state_name, key)

    def snapshot(self) -> dict:
        """The job's state now: status, micro-batches, metrics, plan (weir.spark.progress)."""
        return job_snapshot(self)

    # -- JobClient -----------------------------------------------------------------
    def get_job_id(self):
        return self.job_id

    def get_job_status(self):
        if self.query is None:
            return JobStatus.CREATED
        if self.query.isActive:
            return JobStatus.RUNNING
        if self.canceled:
            return JobStatus.CANCELED
        return JobStatus.FAILED if self.query.exception() is not None else JobStatus.FINISHED

    def cancel(self):
        self.canceled = True
        self._stop_query()

    def _stop_query(self) -> None:
        self.stopping = True
        assert self.query is not None  # (a client's job has started)
        self.query.stop()

    def trigger_savepoint(self, savepoint_directory=None):
        """Takes a savepoint as of the last committed micro-batch; the job goes on.
        Returns a completed future of the savepoint's path (PyFlink's JobClient)."""
        target = self._target(savepoint_directory)
        prove_writable(target)
        with self._savepointing:
            self._await_first_batch()
            return _done(write_savepoint(self.spark, self, target))

    def stop_with_savepoint(self, advance_to_end_of_time=False, savepoint_directory=None):
        """Stops the job between two micro-batches (the current one finishes and commits
        its sinks) with a savepoint of its state then; the job ends FINISHED.
        `advance_to_end_of_time` (drain): the sources end where they are first, so the
        watermark reaches the end of time and every timer and window fires before.

        The savepoint is written while the query is held, before it stops: should it fail
        (a target that cannot be written, a full disk), the sources are let go and the
        job runs on, RUNNING, and the error says why. A micro-batch that commits between
        the savepoint and the stop (one without data) gets a savepoint of its own."""
        target = self._target(savepoint_directory)
        check_savepointable(self.plan)
        prove_writable(target)
        with self._savepointing:
            self._await_first_batch()
            atomic_write(self._hold_file(), DRAIN if advance_to_end_of_time else HOLD)
            query = self.query
            try:
                if advance_to_end_of_time:
                    self._await_drained()
                self._await_between_batches()
                path = write_savepoint(self.spark, self, target)
                self._stop_query()
            except BaseException:
                os.remove(self._hold_file())
                self._resume_held(query)
                raise
            os.remove(self._hold_file())
            if last_committed_batch(self.checkpoint_dir) != saved_batch(path):
                newer = write_savepoint(self.spark, self, target)
                dispose_savepoint(path)
                path = newer
            return _done(path)

    def _resume_held(self, query) -> None:
        """A query on Spark's availableNow trigger ends by itself once its held sources
        report nothing new: where a stop's savepoint then failed, the job runs on in a new
        query on the same checkpoint (from the micro-batch it ended at)."""
        if not query.isActive and query.exception() is None and not self.stopping:
            self.query = self._start(self._writer)

    def _target(self, savepoint_directory):
        configuration = self.env.configuration
        target = savepoint_directory or next(
            (
                configuration.get_string(key)
                for key in SAVEPOINT_DIRECTORY
                if configuration is not None and configuration.get_string(key)
            ),
            None,
        )
        if not target:
            raise ValueError(
                f"no savepoint directory: pass one, or configure '{SAVEPOINT_DIRECTORY[0]}'"
            )
        if self.query is None or not self.query.isActive:
            raise ValueError(
                f"job {self.job_id} is {self.get_job_status().value}: only a "
                "running job takes a savepoint"
            )
        return target

    def _hold_file(self) -> str:
        return os.path.join(self.checkpoint_dir, HOLD_FILE)

    def _await_first_batch(self, timeout_s: float = FIRST_BATCH_TIMEOUT_S) -> None:
        """A savepoint is of a committed micro-batch: a job just started (or restored)
        takes one once its first has committed."""
        deadline = time.time() + timeout_s
        assert self.query is not None  # (_target checked it)
        while (
            last_committed_batch(self.checkpoint_dir) is None
            and self.query.isActive
            and time.time() < deadline
        ):
            time.sleep(QUIET_S)

    def _await_drained(self) -> None:
        """Waits until the micro-batch in which every drained source ended (and which
        fired every timer and window) has committed."""
        assert self.query is not None  # (_target checked it)
        while self.query.isActive:
            last, committed = self.last_batch, last_committed_batch(self.checkpoint_dir)
            if last is not None and committed is not None and committed >= last:
                return
            time.sleep(QUIET_S)

    def _await_between_batches(self) -> None:
        """Waits until the held sources let the query rest between micro-batches: no
        trigger active, and the last committed batch unchanged, QUIET_S apart."""
        before = None
        assert self.query is not None  # (_target checked it)
        while self.query.isActive:
            now = (self.query.status["isTriggerActive"], last_committed_batch(self.checkpoint_dir))
            if not now[0] and now == before:
                return
            before = now
            time.sleep(QUIET_S)

    def wait(self, timeout_s=None):
        try:
            self._await(timeout_s)
        except Exception as exc:  # StreamingQueryException: the job failed
            self._cleanup()
            reason = worker_python_error(self.spark, exc) or marked_message(str(exc))
            raise JobExecutionError(f"job '{self.job_name}' failed: {reason}") from None
        status = self.get_job_status()
        if status.is_globally_terminal_state():
            self._cleanup()
        return status

    def _await(self, timeout_s) -> None:
        """Waits for the query to end, or until `timeout_s`. A bounded job ends with the
        micro-batch that read the end of its last input: Spark ends the query once it
        has committed that batch (it runs no batch without data, see `_start`); should a
        source still report new offsets then, the query is stopped after END_GRACE_S."""
        deadline = None if timeout_s is None else time.time() + timeout_s
        done_at = None
        while not self._ended():
            if done_at is None and self._inputs_done():
                done_at = time.time()
            grace = 0 if self.pausing else END_GRACE_S  # (nothing else would end it)
            if done_at is not None and time.time() >= done_at + grace:
                self._stop_query()
                return
            if deadline is not None and time.time() >= deadline:
                return

    def _ended(self) -> bool:
        """Whether the job's query has ended (POLL_S at most): a stop-with-savepoint under
        way decides first, as it may run the job on in a new query (_resume_held)."""
        query = self.query
        assert query is not None  # (a client's job has started)
        # (pyspark types timeout int, takes a float: int(timeout * 1000))
        if not query.awaitTermination(POLL_S):  # type: ignore[arg-type]
            return False
        with self._savepointing:
            return self.query is query

    def _inputs_done(self) -> bool:
        """Whether the batch in which the last source ended has committed. A restored
        run may have seen some sources end before it started: for a job on the usual
        trigger, its last progress then shows every source's offset at its end."""
        if not self.bounded:
            return False
        assert self.query is not None  # (a client's job has started)
        progress = self.query.lastProgress
        if progress is None:
            return False
        if self.last_batch is not None:
            return progress["batchId"] >= self.last_batch
        return self.pausing and _every_source_ended(progress)

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

    def _cleanup(self):
        if self._temporary:
            with self._savepointing:  # (a savepoint being taken reads the checkpoint)
                shutil.rmtree(self.checkpoint_dir, ignore_errors=True)


def _done(path: str) -> Future:
    future: Future = Future()
    future.set_result(path)
    return future


def submit(env, graph, sinks, job_name):
    job: Union[BatchJob, "SparkJob"]
    start: Callable[[], JobClient]
    if env.is_batch_mode():
        job = BatchJob(env, graph, sinks, job_name)
        start = job.run
    else:
        job = SparkJob(env, graph, sinks, job_name)
        start = job.start
    try:
        return start()
    except Exception as error:
        unusable = worker_python_error(job.spark, error)
        if unusable is None:
            raise
        raise JobExecutionError(f"job '{job_name}' failed: {unusable}") from None


def _every_source_ended(progress: dict) -> bool:
    """Whether a query's progress shows each source's end offset at its end of input."""
    sources = progress.get("sources") or []
    for source in sources:
        offset = source.get("endOffset")
        if isinstance(offset, str):
            try:
                offset = json.loads(offset)
            except ValueError:
                return False
        if not isinstance(offset, dict) or not offset.get("end"):
            return False
    return bool(sources)
