"""Runs a BATCH-mode job as one Spark batch job: Flink's batch execution on Spark.

    source frames (spark.read of every split of each bounded source)
      -> union
      -> stage 1: groupBy(operator uid, key group).applyInArrow(StageBatch)
      -> stage 2: ...
      -> the rows of every sink, written on the driver

No streaming query, state store or checkpoint. Spark calls a stage once per (operator, key
group) with all of its input: the operator processes the records with the watermark at
-infinity (nothing is late), then the end of the input fires every event-time timer and
window, as Flink's batch execution does per key. A key group's state lives only during
that call. The rows between stages are the streaming job's (weir.runtime.wire).
"""

import time
import uuid

from pyspark import cloudpickle
from pyspark.sql import functions as F

from weir.common.job import JobClient, JobExecutionError, JobStatus
from weir.plan.execution import JobOutputs, KeyedRunner, job_result
from weir.plan.physical import PhysicalPlan, compile_plan
from weir.runtime.errors import marked_message
from weir.runtime.gc_pause import paused_gc
from weir.runtime.metrics import MetricsLog
from weir.runtime.state.operator_state import OperatorStateLog
from weir.runtime.state.backend import MemoryPageStore
from weir.runtime.wire import MIN_WATERMARK, WATERMARK, KeyGroupInput
from weir.spark import source as spark_source
from weir.spark.frames import STREAM_COLUMNS, STREAM_SCHEMA_DDL, to_batch
from weir.spark.host import FORWARD
from weir.spark.session import get_session
from weir.spark.shipping import ship_user_modules
from weir.spark.translate import stage_groups, union_all


class StageBatch:
    """The applyInArrow function of one stage: runs a key group of one of the stage's
    keyed operators over all of its input."""

    def __init__(self, plan: PhysicalPlan):
        self.plan_blob = cloudpickle.dumps(plan)
        self.plan, self.runners, self.store = None, {}, None  # built in the Python worker

    def __getstate__(self):
        return {"plan_blob": self.plan_blob, "plan": None, "runners": {}, "store": None}

    def _runner(self, uid: str) -> KeyedRunner:
        if self.plan is None:
            self.plan = cloudpickle.loads(self.plan_blob)
        runner = self.runners.get(uid)
        if runner is None:
            task = next(t for t in self.plan.keyed if t.uid == uid)
            runner = self.runners[uid] = KeyedRunner(task, self.plan,
                                                     lambda key_group: self.store)
        return runner

    def __call__(self, key, table):
        import pyarrow as pa
        uid = key[0].as_py()
        if uid == FORWARD:
            return table.select(STREAM_COLUMNS)
        with paused_gc():
            runner = self._runner(uid)
            self.store = MemoryPageStore()
            rows = zip(*(table.column(name).to_pylist() for name in STREAM_COLUMNS))
            batch = KeyGroupInput(rows, runner.labelled)
            out = runner.run(key[1].as_py(), batch.records, MIN_WATERMARK,
                             int(time.time() * 1000), batch.ended)
            runner.release()
            self.store = None
            return pa.Table.from_batches([to_batch(out)])


def query_frame(spark, plan: PhysicalPlan):
    """The batch frame of every sink's rows (by sink uid in `_to`) and the metrics rows."""
    settings = plan.subset()
    frame = union_all([spark_source.read_batch(spark, task, settings) for task in plan.sources])
    frame = frame.filter(F.col("_to") != F.lit(WATERMARK))  # no watermark: nothing is late
    for stage in plan.stages:
        frame = stage_groups(frame, stage, plan).applyInArrow(
            _group_function(StageBatch(plan.subset(keyed=stage))), STREAM_SCHEMA_DDL)
    return frame


def _group_function(stage: StageBatch):
    """A plain function of (key, table), as applyInArrow inspects its arguments."""
    def run_group(key, table):
        return stage(key, table)
    return run_group


class BatchJob(JobClient):
    def __init__(self, env, graph, sinks, job_name):
        self.job_id = uuid.uuid4().hex
        self.job_name = job_name
        self.spark = get_session(env)
        self.plan = compile_plan(graph.upstream_of(sinks), env)
        self.metrics = MetricsLog()
        self.status = JobStatus.CREATED
        self.started = time.time()
        self.runtime_ms = 0

    def run(self) -> "BatchJob":
        self.status = JobStatus.RUNNING
        ship_user_modules()
        try:
            table = query_frame(self.spark, self.plan).select("_to", "_kg", "_b").toArrow()
        except Exception as exc:  # a Spark or Python worker error: the job failed
            self.status = JobStatus.FAILED
            raise JobExecutionError(
                f"job '{self.job_name}' failed: {marked_message(str(exc))}") from None
        rows = zip(*(column.to_pylist() for column in table.columns))
        JobOutputs(self.plan, self.metrics, OperatorStateLog()).write(rows, 0)  # no restore
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
        return job_result(self.job_id, self.job_name, self.runtime_ms, None, self.plan,
                          self.metrics)
