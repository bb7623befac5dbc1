"""Savepoints of a job running on Spark, and the keyed state a restored job starts with.

A savepoint is the state as of the last micro-batch Spark committed: the keyed operators'
pages read with Spark's `statestore` data source at that batch (Spark's `state-metadata`
lists the query's stateful operators), each source's end offset of that batch from the
offset log, and the driver's copy of the operator state. The query may go on meanwhile.
A restored job starts a new checkpoint: Spark hands each key group's pages to the host
once, in the new query's first batch (transformWithState's `initialState`).
"""

import json
import os
import shutil
import uuid

from pyspark.sql import functions as F

from weir.runtime import pickling
from weir.runtime.key_groups import stable_key_hash
from weir.runtime.state.backend import DEFAULT_PAGES_PER_KEY_GROUP, loads
from weir.runtime.state.savepoint import SavepointError, SavepointWriter, savepoint_path
from weir.runtime.wire import WAKE_PAGE, decode_pages
from weir.spark.frame_sources import is_frame_source
from weir.spark.host import decode_wakes
from weir.spark.restore import last_committed_batch, load_operator_states
from weir.spark.one_shot import one_shot_positions
from weir.spark.source import SOURCE_KEY, inner_offset

PAGES, WAKES = "pages", "wakes"  # the host's state variables (weir.spark.host)


def check_savepointable(plan) -> None:
    """Refuses a job whose positions weir cannot keep: one reading a Spark DataFrame."""
    frames = [task.uid for task in plan.sources if is_frame_source(task)]
    if frames:
        raise SavepointError(
            f"a job reading a Spark DataFrame (from_spark: {', '.join(frames)}) cannot take "
            "a savepoint yet: the DataFrame's source keeps its positions in Spark's "
            "checkpoint only"
        )


def prove_writable(target_directory: str) -> None:
    """Refuses a savepoint target this process cannot write, before anything is done to the
    job: the directory is created where missing, and a probe file written and removed."""
    probe = os.path.join(target_directory, f".weir-probe-{uuid.uuid4().hex[:12]}")
    try:
        os.makedirs(target_directory, exist_ok=True)
        with open(probe, "wb") as handle:
            handle.write(b"weir")
        os.remove(probe)
    except OSError as error:
        raise SavepointError(
            f"cannot write a savepoint to {target_directory}: "
            f"{error.strerror or error}; the job was left as it was"
        ) from None


def write_savepoint(spark, job, target_directory: str) -> str:
    """Writes a savepoint of `job` (a weir.spark.executor.SparkJob) as of its last committed
    micro-batch into a new directory in `target_directory`; returns its path. A savepoint
    whose writing fails leaves nothing behind (its new directory is removed)."""
    check_savepointable(job.plan)
    checkpoint = job.checkpoint_dir
    batch = last_committed_batch(checkpoint)
    if batch is None:
        raise SavepointError(
            f"job {job.job_id} has not completed a micro-batch yet: there is "
            "no state to save; try again once it has"
        )
    path = savepoint_path(target_directory, job.job_id)
    try:
        return _write(spark, job, SavepointWriter(path), batch)
    except BaseException:
        shutil.rmtree(path, ignore_errors=True)  # a new directory of its own (a unique name)
        raise


def _write(spark, job, writer: SavepointWriter, batch: int) -> str:
    checkpoint = job.checkpoint_dir
    for uid, rows in sorted(keyed_pages(spark, checkpoint, batch).items()):
        writer.write_keyed(uid, rows)
    saved = load_operator_states(checkpoint, batch)
    by_uid: dict = {}
    for (uid, index), (count, snapshot) in (saved or {}).get("snapshots", {}).items():
        by_uid.setdefault(uid, []).append((index, count, pickling.dumps(snapshot)))
    for uid, instances in sorted(by_uid.items()):
        writer.write_operator_state(uid, sorted(instances))
    parallelism = saved["parallelism"] if saved else job.plan.parallelism
    return writer.finish(
        job.job_name,
        job.job_id,
        batch,
        job.plan.max_parallelism,
        parallelism,
        source_positions(checkpoint, batch, job.plan),
    )


def keyed_pages(spark, checkpoint: str, batch: int) -> dict:
    """{operator uid: [(key group, page id, page bytes)]} as of micro-batch `batch`, with
    a WAKE_PAGE for each key group's wake time (kept per shard: weir.spark.host)."""
    pages: dict = {}
    for operator in _operators(spark, checkpoint):
        table = _pages(spark, checkpoint, operator, batch).toArrow()
        for uid, key_group, blob in zip(*(column.to_pylist() for column in table.columns)):
            rows = pages.setdefault(uid, [])
            rows.extend(
                (key_group, page, data) for page, data in sorted(decode_pages(blob).items())
            )
        table = _wakes(spark, checkpoint, operator, batch).toArrow()
        for uid, blob in zip(*(column.to_pylist() for column in table.columns)):
            pages.setdefault(uid, []).extend(
                (key_group, WAKE_PAGE, str(at).encode())
                for key_group, at in sorted(decode_wakes(blob).items())
            )
    return {uid: sorted(rows) for uid, rows in pages.items()}


def latest_keyed_value(spark, checkpoint: str, plan, uid: str, state_name: str, key):
    """The value of keyed state `state_name` of `key` in operator `uid` as of the job's
    last committed micro-batch (what Flink's queryable state gave); LookupError where
    there is none."""
    if uid not in {task.uid for task in plan.keyed}:
        raise LookupError(f"the job has no keyed operator '{uid}'")
    batch = last_committed_batch(checkpoint)
    if batch is None:
        raise LookupError("the job has not committed a micro-batch yet")
    key_hash = stable_key_hash(key)
    key_group = key_hash % plan.max_parallelism
    page_id = (key_hash // plan.max_parallelism) % DEFAULT_PAGES_PER_KEY_GROUP
    for operator in _operators(spark, checkpoint):
        rows = (
            _pages(spark, checkpoint, operator, batch)
            .where((F.col("uid") == uid) & (F.col("key_group") == key_group))
            .select("pages")
            .collect()
        )
        if rows:
            page = decode_pages(rows[0][0]).get(page_id)
            entry = {} if page is None else loads(page).get(key, {})
            if state_name in entry:
                return entry[state_name]
            break
    raise LookupError(f"key {key!r} has no state '{state_name}' in '{uid}'")


def _operators(spark, checkpoint: str) -> list:
    """The ids of the query's stateful operators (Spark's state-metadata)."""
    return [
        row.operatorId for row in spark.read.format("state-metadata").load(checkpoint).collect()
    ]


def _state(spark, checkpoint: str, operator: int, batch: int, name: str):
    return (
        spark.read.format("statestore")
        .option("operatorId", operator)
        .option("stateVarName", name)
        .option("batchId", batch)
        .load(checkpoint)
    )


def _pages(spark, checkpoint: str, operator: int, batch: int):
    """The (uid, key_group, pages) rows of one stateful operator at micro-batch `batch`:
    the entries of each shard's map of key groups' pages."""
    return _state(spark, checkpoint, operator, batch, PAGES).select(
        F.col("key._g").alias("uid"),
        F.col("user_map_key.kg").alias("key_group"),
        F.col("user_map_value.pages").alias("pages"),
    )


def _wakes(spark, checkpoint: str, operator: int, batch: int):
    """The (uid, wakes) rows of one stateful operator: each shard's key groups' wake
    times (weir.spark.host)."""
    return _state(spark, checkpoint, operator, batch, WAKES).select(
        F.col("key._g").alias("uid"), F.col("value.wakes").alias("wakes")
    )


def source_positions(checkpoint: str, batch: int, plan) -> dict:
    """{source uid: its offset at the end of micro-batch `batch`} from Spark's offset log."""
    with open(os.path.join(checkpoint, "offsets", str(batch)), encoding="utf-8") as handle:
        lines = handle.read().splitlines()[2:]  # a version line, then the batch's metadata
    # (the sources read whole in the first micro-batch: weir.spark.one_shot)
    positions = one_shot_positions(checkpoint, [task.uid for task in plan.sources])
    for line in lines:
        offset = json.loads(line) if line.strip().startswith("{") else None
        if isinstance(offset, dict) and SOURCE_KEY in offset:
            positions[offset[SOURCE_KEY]] = inner_offset(offset)
    missing = [task.uid for task in plan.sources if task.uid not in positions]
    if missing:
        raise SavepointError(
            f"the offsets of micro-batch {batch} in {checkpoint} name no position for "
            f"{', '.join(missing)} (a checkpoint an earlier weir wrote): let the job run "
            "one more micro-batch and take the savepoint again"
        )
    return positions


def initial_state(spark, stage, plan, layout):
    """The grouped frame of the savepoint's keyed state of `stage`'s operators (None: the
    stage restores none): one row per (operator uid, key group, page), grouped as the
    stage's input is (weir.spark.shards)."""
    paths = [plan.savepoint_files[task.uid] for task in stage if task.uid in plan.savepoint_files]
    if not paths:
        return None
    frame = spark.read.parquet(*paths).select(
        F.col("uid").alias("_g"), F.col("key_group").cast("int").alias("key_group"), "page", "data"
    )
    number = layout.number_column(F.col("_g"), F.col("key_group"), [task.uid for task in stage])
    return frame.withColumn("_gk", number).groupBy("_g", "_gk")
