"""Runs a job as one Spark streaming query; its sinks are written in foreachBatch."""

import re
import shutil
import tempfile
import threading
import time
import uuid
from collections import defaultdict

from weir.plan import graph as g
from weir.plan.job import JobClient, JobExecutionError, JobExecutionResult, JobStatus
from weir.runtime.errors import MARKER
from weir.runtime.wire import METRIC_PREFIX
from weir.runtime.sink_writers import write_batch
from weir.spark.frames import loads
from weir.spark.session import get_session
from weir.spark.shipping import ship_user_modules
from weir.spark.translate import Translation


def _user_error(exc) -> str:
    text = str(exc)
    match = re.search(re.escape(MARKER) + r": (.*)", text)
    return match.group(1).strip() if match else text


class SparkJob(JobClient):
    def __init__(self, env, graph, sinks, job_name):
        self.job_id = uuid.uuid4().hex
        self.job_name = job_name
        self.sinks = sinks
        self.spark = get_session(env)
        self.nodes = graph.upstream_of(sinks)
        checkpoint = env.checkpoint_config.get_checkpoint_storage()
        self._temporary = checkpoint is None
        self.checkpoint_dir = checkpoint or tempfile.mkdtemp(prefix="weir-checkpoint-")
        self.bounded = all(n.param("reader").bounded for n in self.nodes if n.kind == g.SOURCE)
        self.interval_ms = env.checkpoint_config.get_checkpoint_interval()
        self.env = env
        self.started = time.time()
        self.batches = 0
        self.metrics = defaultdict(int)
        self._lock = threading.Lock()
        self.query = None
        self.canceled = False

    def start(self) -> "SparkJob":
        ship_user_modules()
        frame = Translation(self.spark, self.env, self.nodes).sink_frame(self.sinks)
        writer = (frame.writeStream.queryName(f"weir-{self.job_name}-{self.job_id[:8]}")
                  .foreachBatch(self._write_batch)
                  .option("checkpointLocation", self.checkpoint_dir))
        if self.bounded:
            writer = writer.trigger(availableNow=True)
        elif self.interval_ms:
            writer = writer.trigger(processingTime=f"{int(self.interval_ms)} milliseconds")
        self.query = writer.start()
        return self

    def _write_batch(self, batch_frame, batch_id):
        table = batch_frame.toArrow()
        columns = [table.column(c).to_pylist() for c in ("_sink", "_b", "_tag", "_ts")]
        per_sink = [[] for _ in self.sinks]
        counted = defaultdict(int)  # (metric, sink): each sink's branch counts all of it
        for sink_index, blob, tag, count in zip(*columns):
            if tag is None:
                per_sink[sink_index].extend(value for _, value, _ in loads(blob))
            else:
                counted[(tag[len(METRIC_PREFIX):], sink_index)] += count
        for node, records in zip(self.sinks, per_sink):
            write_batch(node.param("sink"), records, batch_id)
        with self._lock:
            self.batches += 1
            for name in {name for name, _ in counted}:
                self.metrics[name] += max(c for (n, _), c in counted.items() if n == name)

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
        self.query.stop()

    def wait(self, timeout_s=None):
        try:
            if timeout_s is None:
                self.query.awaitTermination()
            else:
                self.query.awaitTermination(timeout_s)
        except Exception as exc:  # StreamingQueryException: the job failed
            self._cleanup()
            raise JobExecutionError(f"job '{self.job_name}' failed: {_user_error(exc)}") from None
        status = self.get_job_status()
        if status.is_globally_terminal_state():
            self._cleanup()
        return status

    def get_job_execution_result(self):
        self.wait()
        return JobExecutionResult(self.job_id, int((time.time() - self.started) * 1000),
                                  self.batches, self.metrics)

    def _cleanup(self):
        if self._temporary:
            shutil.rmtree(self.checkpoint_dir, ignore_errors=True)


def submit(env, graph, sinks, job_name):
    return SparkJob(env, graph, sinks, job_name).start()
