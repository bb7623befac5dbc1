"""Runs a BATCH-mode job as one Spark batch job: Flink's batch execution on Spark.

    source frames (spark.read of every split of each bounded source)
      -> union
      -> stage 1: repartitionById(subtask of the key group), sorted by (operator uid,
                  key group), mapInArrow(StageBatch)
      -> stage 2: ...
      -> the rows of every sink, written on the driver

No streaming query, state store or checkpoint. As Flink's batch execution sorts a keyed
input, a stage's Spark partition is one subtask's key-group range (Flink's assignment, so
the partitions are even where a hash of the groups left one with a quarter more work),
sorted so that each (operator, key group) comes whole: the operator processes its records
with the watermark at -infinity (nothing is late), then the end of the input fires every
event-time timer and window, as Flink's batch execution does per key. A key group's state
lives only while it runs. The rows between stages are the streaming job's
(weir.runtime.wire).
"""

import pickle
import shutil
import tempfile
import time
import uuid
from typing import Dict, Optional, Tuple

from pyspark.sql import functions as F

from weir.common.job import JobClient, JobExecutionError, JobStatus
from weir.control.plane import ControlPlane
from weir.task.job_outputs import JobOutputs, job_result
from weir.task.keyed_runner import KeyedRunner
from weir.task.printing import PrintCapture
from weir.plan.physical import PhysicalPlan, compile_plan
from weir.runtime.pickling import dumps_by_value
from weir.runtime.errors import marked_message
from weir.runtime.gc_pause import freeze_long_lived, paused_gc
from weir.runtime.metrics import MetricsLog
from weir.runtime.state.operator_state import OperatorStateLog
from weir.runtime.state.backend import MemoryPageStore
from weir.runtime.wire import MIN_WATERMARK, Channel, KeyGroupInput
from weir.spark import source as spark_source
from weir.spark.frame_sinks import spark_sinks, written
from weir.spark.frame_sources import snapshot_batch_frames
from weir.spark.frames import STREAM_COLUMNS, STREAM_SCHEMA_DDL, to_batch
from weir.spark.prewarm import warm_python_workers
from weir.spark.session import get_session, is_local
from weir.spark.shards import key_group_range
from weir.spark.shipping import ship_user_modules
from weir.spark.translate import union_all


class StageBatch:
    """The mapInArrow function of one stage: runs each key group of the stage's keyed
    operators in a partition over all of its input (rows for later stages and sinks pass
    through)."""

    def __init__(self, plan: PhysicalPlan):
        self.plan_blob = dumps_by_value(plan)
        self.stage_uids = frozenset(task.uid for task in plan.keyed)
        self.plan: Optional[PhysicalPlan] = None  # built in the Python worker
        self.runners: Dict[str, KeyedRunner] = {}

    def __getstate__(self):
        return {
            "plan_blob": self.plan_blob,
            "stage_uids": self.stage_uids,
            "plan": None,
            "runners": {},
        }

    def _runner(self, uid: str) -> KeyedRunner:
        if self.plan is None:
            self.plan = pickle.loads(self.plan_blob)
        runner = self.runners.get(uid)
        if runner is None:
            task = next(t for t in self.plan.keyed if t.uid == uid)
            runner = self.runners[uid] = KeyedRunner(task, self.plan)
        return runner

    def __call__(self, batches):
        """The partition's output batches; `batches` are sorted by (uid, key group)."""
        import pyarrow as pa
        import pyarrow.compute as pc

        freeze_long_lived()
        with paused_gc():
            stage_uids = pa.array(sorted(self.stage_uids), pa.string())
            group: Optional[Tuple[str, int]]  # (uid, key group) of `rows`
            rows: list
            group, rows = None, []
            for batch in batches:
                here = pc.is_in(batch.column("_to"), value_set=stage_uids)
                passing = batch.filter(pc.invert(here))  # for later stages and sinks
                if passing.num_rows:
                    yield passing.select(STREAM_COLUMNS)
                mine = batch.filter(here)
                for row in zip(*(mine.column(name).to_pylist() for name in STREAM_COLUMNS)):
                    if (row[0], row[2]) != group:  # (uid, key group)
                        if rows:
                            assert group is not None  # (set with the first row)
                            yield self._run(*group, rows)
                        group, rows = (row[0], row[2]), [row]
                    else:
                        rows.append(row)
            if rows:
                assert group is not None  # (set with the first row)
                yield self._run(*group, rows)

    def _run(self, uid: str, key_group: int, rows):
        runner = self._runner(uid)
        batch = KeyGroupInput(rows, runner.labelled)
        assert self.plan is not None  # (loaded by _runner)
        with PrintCapture(self.plan.forward_prints) as printed:
            out = runner.run(
                key_group, MemoryPageStore(), batch, MIN_WATERMARK, int(time.time() * 1000)
            )
        runner.release()
        return to_batch(printed.rows() + out)


def query_frame(spark, plan: PhysicalPlan):
    """The batch frame of every sink's rows (by sink uid in `_to`) and the metrics rows."""
    settings = plan.subset()
    frame = union_all([spark_source.read_batch(spark, task, settings) for task in plan.sources])
    frame = frame.filter(F.col("_to") != F.lit(Channel.WATERMARK))  # no watermark: nothing is late
    partitions = stage_partitions(spark, plan)
    for stage in plan.stages:
        frame = _by_key_group_range(frame, stage, plan, partitions).mapInArrow(
            StageBatch(plan.subset(keyed=stage)), STREAM_SCHEMA_DDL
        )
    return frame


def stage_partitions(spark, plan: PhysicalPlan) -> int:
    """A stage's Spark partitions: one per subtask, or as many as the session's shuffle
    partitions where those are more (a user's session on a cluster), at most one per key
    group."""
    shuffle = int(spark.conf.get("spark.sql.shuffle.partitions"))
    return max(1, min(max(plan.parallelism, shuffle), plan.max_parallelism))


def _by_key_group_range(frame, stage, plan, partitions: int):
    """`frame` in `partitions` partitions of contiguous key-group ranges (with one per
    subtask, Flink's ranges), each sorted by (operator uid, key group); rows for later
    stages and sinks stay spread."""
    here = F.col("_to").isin([task.uid for task in stage])
    partition = F.when(
        here, key_group_range(F.col("_kg"), plan.max_parallelism, partitions)
    ).otherwise(F.pmod(F.col("_kg") + F.spark_partition_id(), F.lit(partitions)))
    return frame.repartitionById(partitions, partition.cast("int")).sortWithinPartitions(
        "_to", "_kg"
    )


class BatchJob(JobClient):
    def __init__(self, env, graph, sinks, job_name):
        self.job_id = env.job_id or uuid.uuid4().hex
        self.job_name = job_name
        self.spark = get_session(env)
        self.plan = compile_plan(graph.upstream_of(sinks), env).for_run(
            sink_job_id=uuid.uuid4().hex[:16],  # never restored: every run is new
            forward_prints=is_local(self.spark),
        )  # (weir.task.printing)
        # (while the job is planned: weir.spark.prewarm)
        warm_python_workers(self.spark, keyed=False)
        self.metrics = MetricsLog()
        self.status = JobStatus.CREATED
        self.started = time.time()
        self.runtime_ms = 0

    def run(self) -> "BatchJob":
        self.status = JobStatus.RUNNING
        ship_user_modules()
        snapshots = tempfile.mkdtemp(prefix="weir-batch-")  # from_spark()'s batch frames
        sinks = spark_sinks(self.plan)  # written by Spark (weir.spark.frame_sinks)
        try:
            snapshot_batch_frames(self.spark, self.plan, snapshots)
            frame = query_frame(self.spark, self.plan).select("_to", "_kg", "_b")
            with written(frame, sinks, 0, self.plan.sink_job_id) as frame:
                table = frame.toArrow()
        except Exception as exc:  # a Spark or Python worker error: the job failed
            self.status = JobStatus.FAILED
            raise JobExecutionError(
                f"job '{self.job_name}' failed: {marked_message(str(exc))}"
            ) from None
        finally:
            shutil.rmtree(snapshots, ignore_errors=True)
        rows = zip(*(column.to_pylist() for column in table.columns))
        JobOutputs(
            self.plan,
            self.metrics,
            OperatorStateLog(),  # no restore
            ControlPlane(self.plan),
            frozenset(sinks),
        ).write(rows, 0)
        self.runtime_ms = int((time.time() - self.started) * 1000)
        self.status = JobStatus.FINISHED
        return self

    # -- JobClient -----------------------------------------------------------------
    def get_job_id(self):
        return self.job_id

    def get_job_status(self):
        return self.status

    def cancel(self):
        raise RuntimeError("a BATCH-mode job runs to its end inside execute()")

    def wait(self, timeout_s=None):
        return self.status

    def get_job_execution_result(self):
        return job_result(
            self.job_id, self.job_name, self.runtime_ms, None, self.plan, self.metrics
        )
