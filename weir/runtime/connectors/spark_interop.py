"""What a job's graph holds of Spark's own sources and sinks (env.from_spark,
stream.to_spark, SparkSink): plain descriptions, no pyspark. Only the Spark executor
(weir.spark.frame_sources, weir.spark.frame_sinks) runs them; the in-process executor
refuses them with a clear error, since it has no Spark to read or write with.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, Iterable, Optional

from weir.runtime.connectors.sink_base import BatchWriter
from weir.runtime.sources import SourceReader

if TYPE_CHECKING:
    from weir.common.typeinfo import TypeInformation
    from weir.runtime.sources import Offset

SPARK_ONLY = (
    "{what} runs on the Spark executor only (the in-process executor has no "
    "Spark session); leave the environment's executor at 'spark'"
)


class SparkFrameReader(SourceReader):
    """A source that is a Spark DataFrame (env.from_spark). A streaming DataFrame joins the
    job's streaming query as it is (unbounded); a batch DataFrame is bounded: the Spark
    executor snapshots it once into the job's checkpoint and reads the snapshot as a file
    source (`snapshot_reader`), so a replay reads the same records.

    The DataFrame stays on the driver: a pickled reader (shipped to Spark's tasks) has
    none."""

    def __init__(self, frame: Any, streaming: bool, columns: Iterable[str]) -> None:
        self.frame = frame
        self.streaming = streaming
        self.bounded = not streaming
        self.columns = tuple(columns)

    def __getstate__(self) -> Dict[str, Any]:
        return {**self.__dict__, "frame": None}

    def initial_offset(self) -> Offset:
        raise RuntimeError(SPARK_ONLY.format(what="from_spark()"))

    def available(self, start_pos: int) -> int:
        raise RuntimeError(SPARK_ONLY.format(what="from_spark()"))


FILE_FORMATS = ("parquet", "orc", "json", "csv", "text", "avro")


class SparkSink:
    """A sink that is one of Spark's data sources, written by Spark from the job's
    micro-batches: `SparkSink("parquet", {"path": "/data/out"})`.

    Guarantees (each micro-batch is written inside the job's foreachBatch, before Spark
    commits the batch):
    - file formats (FILE_FORMATS) in mode "append": exactly-once. Spark writes the batch
      with its own file commit protocol into a staging directory under the path, then the
      driver moves the files into the path under names keyed by (job, batch) and records
      the batch in `<path>/_weir_commits`; a replayed batch finds its record and writes
      nothing (or, cut short before it, replaces its own files);
    - "delta": exactly-once through Delta's idempotent writes (txnAppId, txnVersion);
    - any other format, and tables: at-least-once (a replayed batch is written again).
    The record type is the stream's declared type (Types.ROW_NAMED, Types.ROW,
    Types.TUPLE, or one atomic type as a column `value`).
    """

    executor_side = True  # written from the tasks' side, never on the driver's rows

    def __init__(
        self,
        format: str,
        options: Optional[Dict[str, Any]] = None,
        mode: str = "append",
        table_name: Optional[str] = None,
    ) -> None:
        if not isinstance(format, str) or not format:
            raise ValueError(f"SparkSink needs a Spark data source format, got {format!r}")
        if format in FILE_FORMATS and mode != "append":
            raise ValueError(
                f"SparkSink({format!r}): a file format is written in mode "
                f"'append' (each micro-batch adds files), got {mode!r}"
            )
        if (
            format in FILE_FORMATS + ("delta",)
            and table_name is None
            and "path" not in (options or {})
        ):
            raise ValueError(f"SparkSink({format!r}) needs a 'path' option")
        self.format = format
        self.options = {key: str(value) for key, value in (options or {}).items()}
        self.mode = mode
        self.table_name = table_name
        # the stream's declared type, set by sink_to
        self.record_type: Optional[TypeInformation] = None

    @classmethod
    def table(cls, name: str, mode: str = "append", format: Optional[str] = None) -> SparkSink:
        """A sink to the catalog table `name` (saveAsTable; at-least-once)."""
        return cls(format or "table", None, mode, name)

    @property
    def exactly_once(self) -> bool:
        return self.table_name is None and (self.format in FILE_FORMATS or self.format == "delta")

    def sink_spec(self) -> SparkSink:
        return self

    def batch_writer(self, uid: str, job: str, batch_id: int, task: int) -> BatchWriter:
        raise RuntimeError(SPARK_ONLY.format(what="SparkSink"))


class SparkFrameSink:
    """The sink behind stream.to_spark(): its records become the rows of the returned
    streaming DataFrame (never written by weir)."""

    executor_side = True

    def __init__(self, record_type: Optional[TypeInformation]) -> None:
        self.record_type = record_type

    def batch_writer(self, uid: str, job: str, batch_id: int, task: int) -> BatchWriter:
        raise RuntimeError(SPARK_ONLY.format(what="to_spark()"))
