"""Bounded sources read whole in a job's first micro-batch, without a Python data source.

A source that Spark reads through weir's Python data source (weir.spark.source) costs a
fresh process three Python processes on the way to its first records: Spark starts one to
look up the source's schema when the query is built, one that plans its offsets when the
query starts, and one that plans its reads inside the first micro-batch. A bounded source
whose whole input is known when the job starts (a collection, a generator of a given
count, without a rate) needs no offsets of its own: its splits are planned on the driver,
and Spark's `rate-micro-batch` source gives the job's first micro-batch one row per Spark
task (the row's value numbers the task), which a mapInArrow reads as the data source would
(weir.spark.source.read_task). The first micro-batch reads the whole input and its end.

Only for jobs on Spark's availableNow trigger (bounded, no source that pauses), whose query
ends with the micro-batch in which every input ended: the rate source has rows for every
later micro-batch too, which the reader drops (values past its tasks), so a job restarted
from its checkpoint after that micro-batch runs one micro-batch without records. The
choice is kept in the checkpoint's job file: a restarted query reads its sources as the
run that started the checkpoint did (Spark's offset log fixes each source's kind), and a
savepoint takes the position of such a source from there (its end, once any micro-batch
has committed).
"""

import uuid
from typing import Dict, List, Tuple

from weir.spark.frame_sources import announcing_source, is_frame_source
from weir.spark.frames import STREAM_SCHEMA_DDL
from weir.spark.restore import has_offsets, job_setting, keep_job_setting
from weir.spark.source import decode, encode, read_task, spark_tasks

# In the checkpoint's job file: {source uid: {"position": its end, "tasks": how many}}
SETTING = "one_shot"
RATE_FORMAT = "rate-micro-batch"

Tasks = List[Tuple[list, bool]]  # a source's Spark tasks: (their splits, first or not)


def eligible_sources(plan) -> List[str]:
    """The uids of the sources of `plan` that may be read whole, should their readers know
    their whole input: not those whose micro-batches carry what the driver announces (the
    idle watermarks of their group, their partitions' marks, the operators' own
    watermarks), nor those a savepoint starts elsewhere than at their start."""
    idle = {
        uid
        for group in plan.watermark_groups
        if group.idleness_ms is not None
        for uid in group.sources
    }
    carrier = announcing_source(plan) if plan.own_watermarks else None
    return [
        task.uid
        for task in plan.sources
        if not is_frame_source(task)
        and task.uid not in idle
        and task.uid != carrier
        and task.uid not in plan.partitioned_sources
        and task.uid not in plan.start_offsets
    ]


def plan_one_shot(spark, plan, checkpoint_dir: str, eligible: List[str]) -> Dict[str, Tasks]:
    """{uid: its Spark tasks} of the sources of `plan` read whole in the first micro-batch:
    on a new checkpoint, those of `eligible` (uids) whose reader knows its whole input; on
    a started one, those its first run read so (none where an earlier weir started it),
    which must still be eligible, with the same input and tasks (a replay of the first
    micro-batch reads what it read)."""
    by_uid = {task.uid: task for task in plan.sources}
    if has_offsets(checkpoint_dir):
        kept = job_setting(checkpoint_dir, SETTING, {})
        return {
            uid: _kept_tasks(spark, by_uid.get(uid), uid, eligible, kept[uid], checkpoint_dir)
            for uid in kept
        }
    tasks, chosen = {}, {}
    for uid in eligible:
        end = by_uid[uid].node.param("reader").whole_input()
        if end is not None:
            tasks[uid] = _tasks(spark, by_uid[uid], end)
            chosen[uid] = {"position": end, "tasks": len(tasks[uid])}
    keep_job_setting(checkpoint_dir, SETTING, chosen)
    return tasks


def _tasks(spark, task, end: dict) -> Tasks:
    reader = task.node.param("reader")
    reader.target_splits = spark.sparkContext.defaultParallelism
    return spark_tasks(reader.splits(reader.initial_offset(), end))


def _kept_tasks(spark, task, uid: str, eligible, kept: dict, checkpoint_dir: str) -> Tasks:
    """The tasks of a source the checkpoint's first run read whole, as it read them."""
    end = task.node.param("reader").whole_input() if task is not None and uid in eligible else None
    tasks = _tasks(spark, task, end) if end is not None else None
    if end != kept["position"] or tasks is None or len(tasks) != kept["tasks"]:
        raise RuntimeError(
            f"'{uid}': the job's checkpoint {checkpoint_dir} read this source whole in its "
            f"first micro-batch (up to {kept['position']}, in {kept['tasks']} tasks), and "
            "the job now reads it otherwise (it changed, or starts from a savepoint); "
            "start it in a new checkpoint directory"
        )
    return tasks


def read_one_shot(spark, task, settings, data_watermarks: bool, tasks: Tasks):
    """The streaming frame of a source read whole in the first micro-batch (`tasks`: its
    Spark tasks), with the rows weir.spark.source.read_stream's frame would have."""
    rows = (
        spark.readStream.format(RATE_FORMAT)
        .option("rowsPerBatch", len(tasks))
        .option("numPartitions", len(tasks))
        .load()
    )
    reader = OneShotReader(
        encode(task.node.param("reader")),
        encode((task, settings, data_watermarks)),
        (settings.run_id or uuid.uuid4().hex, task.uid),
        tasks,
    )
    return rows.select("value").mapInArrow(reader, STREAM_SCHEMA_DDL)


class OneShotReader:
    """The mapInArrow function of a source read whole: a row's value numbers the Spark task
    whose splits it reads (values past them, of later micro-batches, read nothing)."""

    def __init__(self, encoded_reader: str, encoded_task: str, run_key, tasks: Tasks):
        self.encoded_reader = encoded_reader
        self.encoded_task = encoded_task
        self.run_key = run_key
        self.tasks = tasks

    def __call__(self, batches):
        reader = None
        for batch in batches:
            for value in batch.column(0).to_pylist():
                if value >= len(self.tasks):
                    continue
                if reader is None:
                    reader = decode(self.encoded_reader)
                splits, first = self.tasks[value]
                yield from read_task(reader, self.encoded_task, splits, first, self.run_key)


def one_shot_positions(checkpoint_dir: str, uids) -> dict:
    """{uid: position} of the sources among `uids` the checkpoint's first micro-batch read
    whole: their end, in a savepoint of any committed micro-batch."""
    kept = job_setting(checkpoint_dir, SETTING, {})
    return {uid: kept[uid]["position"] for uid in uids if uid in kept}
