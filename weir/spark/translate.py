"""Turns a physical plan into one linear streaming DataFrame.

    source frames (each with the stateless operators fused behind it)
      -> withWatermark per watermark group -> union
      -> stage 1: transformWithState grouped by (operator uid, shard)
      -> stage 2: ...
      -> the rows of every sink (and the operators' metrics)

Every DataFrame is read by exactly one consumer: Spark plans a DataFrame read twice as two
copies (stateful operators included), so a fan-out in the job never becomes a fan-out in
the query. Records are routed by their producers instead (weir.task).
"""

from functools import reduce

from pyspark.sql import functions as F

from weir.control.idleness import WatermarkGroupTracker
from weir.runtime.wire import REPORT_SEPARATOR, Channel
from weir.spark import frame_sources, source as spark_source
from weir.spark.frames import STREAM_SCHEMA_DDL
from weir.spark.host import FORWARD, StageHost
from weir.spark.one_shot import read_one_shot
from weir.spark.savepoints import initial_state
from weir.spark.shards import ShardLayout


def union_all(frames):
    return reduce(lambda a, b: a.unionByName(b), frames)


def _with_watermark(frame, delay_ms: int, report_as=None):
    """The watermark follows the `_ts` of watermark rows (largest timestamps, ends of input,
    announced watermarks), which leave the frame after it (or, with `report_as` a watermark
    group's index, go on to the driver, which tracks idle groups). The event-time column is
    then dropped: Spark tracks the watermark but does not filter late rows before stateful
    operators, so weir's operators see them. (The filter reads the event-time column, so
    Spark cannot push it below the watermark node.)"""
    event_ms = F.when(F.col("_to") == F.lit(Channel.WATERMARK), F.col("_ts"))
    frame = frame.withColumn("_wm", F.timestamp_millis(event_ms)).withWatermark(
        "_wm", f"{delay_ms} milliseconds"
    )
    if report_as is None:
        return frame.filter(F.col("_wm").isNull()).drop("_wm")
    report = F.col("_wm").isNotNull()
    return (
        frame.withColumn("_kg", F.when(report, F.lit(report_as)).otherwise(F.col("_kg")))
        .withColumn(
            "_b",
            F.when(
                report,
                F.encode(
                    F.concat_ws(REPORT_SEPARATOR, F.col("_ctl"), F.col("_ts").cast("string")),
                    "UTF-8",
                ),
            ).otherwise(F.col("_b")),
        )
        .drop("_wm")
    )


def _sources_frame(spark, plan, announcements, one_shot):
    by_uid = {task.uid: task for task in plan.sources}
    settings = plan.subset()  # what a source task needs of the plan: no other task
    groups, report = [], WatermarkGroupTracker.tracks(plan)
    idle_file, own_file, due_file, marks_file, hold_file = announcements
    partitioned = plan.partitioned_sources
    # The first of weir's own sources carries the operators' own watermarks
    # (weir.control.watermarks) and the ticks for due processing-time timers (None: the job
    # needs neither); a DataFrame's source (weir.spark.frame_sources) carries none.
    first = frame_sources.announcing_source(plan)
    own_source = (
        (own_file, [task.uid for task in plan.own_watermarks]) if plan.own_watermarks else None
    )
    due_source = (due_file, plan.processing_time_operators) if due_file is not None else None
    frame_sources.check_announcements(plan, first, own_source, due_source)
    for index, group in enumerate(plan.watermark_groups):
        idle_source = (group.name, idle_file) if group.idleness_ms is not None else None
        frames = [
            frame_sources.read_frame(
                spark, by_uid[uid], settings, group.data_watermarks, idle_source
            )
            if frame_sources.is_frame_source(by_uid[uid])
            else read_one_shot(spark, by_uid[uid], settings, group.data_watermarks, one_shot[uid])
            if uid in one_shot
            else spark_source.read_stream(
                spark,
                by_uid[uid],
                settings,
                group.data_watermarks,
                idle_source,
                *((own_source, due_source) if uid == first else (None, None)),
                marks_file=marks_file if uid in partitioned else None,
                hold_file=hold_file,
            )
            for uid in group.sources
        ]
        groups.append(_with_watermark(union_all(frames), group.delay_ms, index if report else None))
    return union_all(groups)


def _stage_groups(frame, stage, plan, layout):
    """`frame` grouped for one stage: by (operator uid, shard number) for the stage's
    keyed operators (weir.spark.shards); rows for later stages and sinks in a few FORWARD
    groups (by key group and Spark partition), which pass them through."""
    uids = [task.uid for task in stage]
    here = F.col("_to").isin(uids)
    buckets = F.lit(max(1, plan.parallelism))
    number = layout.number_column(F.col("_to"), F.col("_kg"), uids)
    frame = frame.withColumn("_g", F.when(here, F.col("_to")).otherwise(F.lit(FORWARD))).withColumn(
        "_gk",
        F.when(here, number).otherwise(F.pmod(F.col("_kg") + F.spark_partition_id(), buckets)),
    )
    return frame.groupBy("_g", "_gk")


def _stage_frame(spark, frame, stage, plan, layout):
    """One transformWithState for every keyed operator of `stage` (which in a job restored
    from a savepoint starts with the savepoint's keyed state)."""
    # Spark's row-based form: a group's input and output are a few bundle rows, for which
    # pandas frames cost more than the rows themselves (~0.5 ms per key group).
    return _stage_groups(frame, stage, plan, layout).transformWithState(
        statefulProcessor=StageHost(plan.subset(keyed=stage)),
        outputStructType=STREAM_SCHEMA_DDL,
        outputMode="Append",
        timeMode="EventTime",
        initialState=initial_state(spark, stage, plan, layout),
    )


def query_frame(
    spark, plan, announcements=(None, None, None, None, None), layout=None, one_shot=None
):
    """The frame of every sink's rows (by sink uid in `_to`) and the metrics rows (and in
    a job whose driver tracks watermark groups, their watermark rows; `announcements`:
    the files where the driver announces the watermarks of idle groups to their sources,
    the operators' own watermarks, the earliest pending processing-time timer (None
    where a job has no ticks for them), the marks of partitioned sources' partitions
    (weir.runtime.split_watermarks) and the file that holds the sources while it exists).
    `layout` groups keyed work by shard (weir.spark.shards); None, by key group: a query
    the user starts (to_spark()) may restart with other shuffle partitions. `one_shot`:
    the Spark tasks of the sources read whole in the first micro-batch, by uid
    (weir.spark.one_shot)."""
    frame = _sources_frame(spark, plan, announcements, one_shot or {})
    layout = layout or ShardLayout(plan.max_parallelism)
    for stage in plan.stages:
        frame = _stage_frame(spark, frame, stage, plan, layout)
    return frame
