"""Jobs that run as Spark SQL from end to end: what weir.table.lowering finds Spark
computes as Flink does (bounded JSON file sources, projections, filters and inner
joins, a sink Spark writes) runs as one Spark batch job, no Python on the records' way.

Each write reads its files with Spark's JSON reader (the table's schema; the columns
the query reads, as Flink's json format with projection push-down), builds its output
with the lowering's Spark SQL (integer arithmetic wraps as Java's, whatever the session's
ANSI mode), and writes:
- `noop` (the blackhole connector): nothing;
- a file format (the filesystem connector's lines as `text`): exactly once, as
  SparkSink's files (weir.spark.frame_sinks.FileBatchCommit): staged by Spark, then moved
  into the path with a record of the write, so a rerun of a job restored from its
  checkpoint writes nothing twice.
Flink's json format reads some values Spark's reader does not (a number in quotes): where
Spark's reader fails on a line, nothing is committed and the job runs on weir's
operators instead (`fallback`), which read every line as Flink does.
"""

import contextlib
import threading
import time
import uuid
from dataclasses import dataclass
from typing import Callable, List, Optional, Tuple

from pyspark.sql import Observation
from pyspark.sql import functions as F

from weir.common.job import JobClient, JobExecutionError, JobExecutionResult, JobStatus
from weir.runtime.connectors.spark_interop import SparkSink
from weir.spark.frame_sinks import FileBatchCommit

MALFORMED = "MALFORMED_RECORD_IN_PARSING"  # (Spark's error for a line its reader refuses)
_ANSI = "spark.sql.ansi.enabled"
_BUILDING = threading.Lock()  # (the session's ANSI mode is switched while a plan is built)


@dataclass
class NativeWrite:
    """One insert: its sink's name, the JSON files it reads with their schemas (Spark
    DDL), its output's query text over the sources' views (`sql(views)`), and the
    SparkSink to write."""

    uid: str
    sources: List[Tuple[str, str]]
    sql: Callable
    sink: SparkSink


@contextlib.contextmanager
def legacy_arithmetic(spark):
    """Spark SQL built in this block computes integer arithmetic as Java does (wrapping;
    a remainder by zero is NULL), whatever the session's ANSI mode when it runs."""
    with _BUILDING:
        before = spark.conf.get(_ANSI, None)
        spark.conf.set(_ANSI, "false")
        try:
            yield
        finally:
            if before is None:
                spark.conf.unset(_ANSI)
            else:
                spark.conf.set(_ANSI, before)


def json_source(spark, path: str, schema: str, seen: Optional[Observation] = None):
    """The JSON lines under `path` in the columns of `schema` (a line Spark's reader does
    not read fails the job: MALFORMED); `seen` counts the lines (`read`)."""
    frame = spark.read.schema(schema).option("mode", "FAILFAST").json(path)
    return frame if seen is None else frame.observe(seen, F.count(F.lit(1)).alias("read"))


def query_frame(spark, frames, sql: Callable):
    """The frame of the query text `sql(views)` over `frames`, each a temporary view
    while Spark analyses the text (once, however many steps the query has)."""
    views = [f"_weir_{uuid.uuid4().hex}" for _ in frames]
    for view, frame in zip(views, frames):
        frame.createOrReplaceTempView(view)
    try:
        with legacy_arithmetic(spark):
            return spark.sql(sql(views))
    finally:
        for view in views:
            spark.catalog.dropTempView(view)


def _observed(seen: Observation, name: str) -> int:
    """A count observed on a frame; 0 where Spark dropped the frame from its plan (the
    other side of a join Spark found empty: it was not read)."""
    try:
        return (seen.get or {}).get(name, 0)
    except Exception:  # noqa: BLE001 (Spark's error for metrics it never collected)
        return 0


def _malformed(error) -> bool:
    return MALFORMED in str(error)


def collect_rows(spark, sources, sql) -> Optional[list]:
    """The rows (tuples) of the query text `sql(views)` over the JSON lines of `sources`
    ([(path, schema)]), or None where a line needs Flink's json reading."""
    frame = query_frame(spark, [json_source(spark, path, schema) for path, schema in sources], sql)
    try:
        table = frame.toArrow()
    except Exception as error:  # noqa: BLE001 (one kind is the fallback's)
        if _malformed(error):
            return None
        raise
    return list(zip(*(column.to_pylist() for column in table.columns)))


class NativeJob(JobClient):
    """The writes of one job (all or none committed), run in a thread."""

    def __init__(
        self,
        spark,
        writes: List[NativeWrite],
        job_name: str,
        identity: str,
        fallback: Callable[[], JobClient],
    ):
        self.spark, self.writes, self.job_name = spark, writes, job_name
        self.identity, self.fallback = identity, fallback
        self.job_id = uuid.uuid4().hex
        self.status = JobStatus.CREATED
        self.started = time.time()
        self.error: Optional[BaseException] = None
        self.result: Optional[JobExecutionResult] = None
        self.delegate: Optional[JobClient] = None  # the fallback's job, once it runs
        self._done = threading.Event()

    def start(self) -> "NativeJob":
        self.status = JobStatus.RUNNING
        threading.Thread(
            target=self._run, daemon=True, name=f"weir-native-{self.job_id[:8]}"
        ).start()
        return self

    def _run(self) -> None:
        try:
            self.spark.sparkContext.setJobGroup(self.job_id, f"weir: {self.job_name}", True)
            counts = self._write_all()
            if counts is None:
                self.delegate = self.fallback()
            else:
                runtime = int((time.time() - self.started) * 1000)
                self.result = JobExecutionResult(
                    self.job_id, runtime, None, {}, self.job_name, counts
                )
                self.status = JobStatus.FINISHED
        except BaseException as error:  # noqa: BLE001 (the job's failure, for its waiter)
            self.error = error
            self.status = (
                JobStatus.CANCELED if self.status == JobStatus.CANCELED else JobStatus.FAILED
            )
        finally:
            self._done.set()

    def _write_all(self):
        """(records read, written), or None: some line needs Flink's json reading."""
        staged: list
        staged, read, written = [], 0, 0
        try:
            for write in self.writes:
                observed = self._write(write, staged)
                read, written = read + observed["read"], written + observed["written"]
            for commit in staged:
                commit.commit()
            staged = []
            return read, written
        except Exception as error:  # noqa: BLE001 (one kind is the fallback's)
            if _malformed(error):
                return None
            raise
        finally:
            for commit in staged:
                commit.discard()

    def _write(self, write: NativeWrite, staged: list) -> dict:
        sources_seen = [Observation() for _ in write.sources]
        output_seen = Observation()
        frames = [
            json_source(self.spark, path, schema, seen)
            for (path, schema), seen in zip(write.sources, sources_seen)
        ]
        output = query_frame(self.spark, frames, write.sql)
        output = output.observe(output_seen, F.count(F.lit(1)).alias("written"))
        sink = write.sink
        if sink.format == "noop":
            output.write.format("noop").mode("append").save()
        else:
            commit = FileBatchCommit(sink, write.uid, 0, self.identity)
            try:
                if not commit.stage(output):  # committed by an earlier run of the job
                    return {"read": 0, "written": 0}
            except BaseException:
                commit.discard()
                raise
            staged.append(commit)
        return {
            "read": sum(_observed(seen, "read") for seen in sources_seen),
            "written": _observed(output_seen, "written"),
        }

    # -- the client -------------------------------------------------------------------
    def get_job_id(self) -> str:
        return self.job_id

    def get_job_status(self) -> JobStatus:
        if self.delegate is not None:
            return self.delegate.get_job_status()
        return self.status

    def cancel(self) -> None:
        if self.delegate is not None:
            return self.delegate.cancel()
        if not self._done.is_set():
            self.status = JobStatus.CANCELED
            self.spark.sparkContext.cancelJobGroup(self.job_id)
        self._done.wait()

    def wait(self, timeout_s: Optional[float] = None) -> JobStatus:
        self._done.wait(timeout_s)
        if self.delegate is not None:
            return self.delegate.wait(timeout_s)
        return self.status

    def get_job_execution_result(self) -> JobExecutionResult:
        self._done.wait()
        if self.delegate is not None:
            return self.delegate.get_job_execution_result()
        if self.error is not None:
            raise JobExecutionError(
                f"job '{self.job_name}' failed: {_message(self.error)}"
            ) from self.error
        assert self.result is not None  # (set where the job ends without an error)
        return self.result

    def trigger_savepoint(self, savepoint_directory=None):
        raise NotImplementedError(_NO_SAVEPOINTS)

    def stop_with_savepoint(self, advance_to_end_of_time=False, savepoint_directory=None):
        raise NotImplementedError(_NO_SAVEPOINTS)


_NO_SAVEPOINTS = (
    "this job runs as one Spark SQL batch job (a bounded file input, no "
    "state: see docs/table.md, 'What runs where'), which has no savepoints; "
    "it reads its input whole and commits its output once"
)


def _message(error) -> str:
    text = str(error).strip().splitlines()
    return f"{type(error).__name__}: {text[0] if text else ''}"
