"""What a restarted job restores beside Spark's state: the operator state of its non-keyed
instances and sink functions (weir.runtime.state.operator_state).

Within a run, Spark keeps each non-keyed instance's operator state with its key group. A
restart needs every instance's lists at once (union lists go to every instance; with a
new parallelism, list states are dealt out again), and sink functions run on the driver,
so the driver keeps every snapshot too: after each micro-batch that changed one, a file
named after the batch in the checkpoint directory. A restore reads the newest file of a
batch Spark committed (a later one belongs to a batch Spark will run again).
"""

import json
import os
import pickle
import uuid

from weir.runtime import pickling
from weir.runtime.sink_writers import atomic_write

DIRECTORY = "weir-operator-state"
KEEP = 2
JOB_FILE = "weir-job.json"  # what a restore must keep: max parallelism, state layout
SHARDED = "shards-1"  # the state layout: keyed state grouped by shard (weir.spark.shards)
IDENTITY_FILE = "weir-identity"  # the job's identity (checkpoint_identity)


def _batch_ids(directory: str) -> list:
    if not os.path.isdir(directory):
        return []
    return sorted(int(name) for name in os.listdir(directory) if name.isdigit())


def last_committed_batch(checkpoint_dir: str):
    """The id of the last micro-batch Spark committed, or None."""
    committed = _batch_ids(os.path.join(checkpoint_dir, "commits"))
    return committed[-1] if committed else None


def checkpoint_identity(checkpoint_dir: str) -> str:
    """The identity of the job whose checkpoint this is (made on its first run, kept
    by every restore): sinks key their replay markers by it."""
    path = os.path.join(checkpoint_dir, IDENTITY_FILE)
    if not os.path.exists(path):
        atomic_write(path, uuid.uuid4().hex[:16].encode())
    with open(path, encoding="ascii") as handle:
        return handle.read().strip()


def check_max_parallelism(checkpoint_dir: str, max_parallelism: int) -> None:
    """Keyed state lives in max-parallelism key groups, so a checkpoint restores only at
    the max parallelism it was written with (Flink refuses the same). A checkpoint with
    nothing committed yet records it (again); one written before weir recorded it is
    taken as it is."""
    written = _job_file(checkpoint_dir).get("max_parallelism")
    if last_committed_batch(checkpoint_dir) is None or written is None:
        _update_job_file(checkpoint_dir, max_parallelism=max_parallelism)
        return
    if written != max_parallelism:
        raise ValueError(
            f"the checkpoint in {checkpoint_dir} was written with max parallelism {written} "
            f"and cannot be restored with max parallelism {max_parallelism}: keyed state is "
            f"split into max-parallelism key groups (set_max_parallelism({written}) to "
            "restore it, or start from a new checkpoint directory)"
        )


def state_layout(checkpoint_dir: str, partitions: int, keyed: bool = True) -> int:
    """The shuffle partitions the query's keyed state is laid out by (weir.spark.shards):
    those of the checkpoint's run, or those its offset log names, or `partitions` (what
    a new query starts with). Refuses a checkpoint with keyed state that an earlier weir
    wrote with one Spark group per key group (`keyed`: the job has keyed stages)."""
    job = _job_file(checkpoint_dir)
    committed = last_committed_batch(checkpoint_dir) is not None
    if committed and job.get("state_layout") == SHARDED:
        return job["shuffle_partitions"]
    if committed and keyed:
        raise ValueError(
            f"the checkpoint in {checkpoint_dir} was written by an earlier weir, which kept "
            "keyed state in one Spark group per key group; this weir groups it by shard and "
            "cannot resume it: take a savepoint with the earlier weir and start this job "
            "from it in a new checkpoint directory, or start from a new checkpoint directory"
        )
    partitions = _offset_log_partitions(checkpoint_dir) or partitions
    _update_job_file(checkpoint_dir, state_layout=SHARDED, shuffle_partitions=partitions)
    return partitions


def _offset_log_partitions(checkpoint_dir: str):
    """The shuffle partitions in the newest offset log entry of a checkpoint (Spark runs
    a restarted query with those, whatever the session says), or None."""
    batches = _batch_ids(os.path.join(checkpoint_dir, "offsets"))
    if not batches:
        return None
    path = os.path.join(checkpoint_dir, "offsets", str(batches[-1]))
    with open(path, encoding="utf-8") as handle:
        lines = handle.read().splitlines()
    metadata = json.loads(lines[1]) if len(lines) > 1 else {}
    value = metadata.get("conf", {}).get("spark.sql.shuffle.partitions")
    return None if value is None else int(value)


def resumes_checkpoint(checkpoint_dir: str, savepoint: str) -> bool:
    """Whether the run in `checkpoint_dir` started from `savepoint` (then its checkpoint,
    not the savepoint, restores it); refuses a savepoint for a checkpoint of another run:
    a savepoint restores into a new checkpoint."""
    if last_committed_batch(checkpoint_dir) is None:
        _update_job_file(checkpoint_dir, savepoint=os.path.abspath(savepoint))
        return False
    if _job_file(checkpoint_dir).get("savepoint") == os.path.abspath(savepoint):
        return True
    raise ValueError(
        f"the job is to start from savepoint {savepoint}, but its checkpoint directory "
        f"{checkpoint_dir} already holds another run's micro-batches: a savepoint restores "
        "into a new checkpoint (point the checkpoint storage at an empty directory)"
    )


def has_offsets(checkpoint_dir: str) -> bool:
    """Whether a query on the checkpoint has planned a micro-batch (its offset log)."""
    return bool(_batch_ids(os.path.join(checkpoint_dir, "offsets")))


def job_setting(checkpoint_dir: str, key: str, default=None):
    """A setting the checkpoint's job file keeps (what a restore must keep)."""
    return _job_file(checkpoint_dir).get(key, default)


def keep_job_setting(checkpoint_dir: str, key: str, value) -> None:
    _update_job_file(checkpoint_dir, **{key: value})


def _job_file(checkpoint_dir: str) -> dict:
    path = os.path.join(checkpoint_dir, JOB_FILE)
    if not os.path.exists(path):
        return {}
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)


def _update_job_file(checkpoint_dir: str, **values) -> None:
    atomic_write(
        os.path.join(checkpoint_dir, JOB_FILE),
        json.dumps({**_job_file(checkpoint_dir), **values}).encode(),
    )


def load_operator_states(checkpoint_dir: str, batch_id=None):
    """The operator state log saved for the last committed micro-batch (or as of
    `batch_id`), or None."""
    committed = last_committed_batch(checkpoint_dir) if batch_id is None else batch_id
    directory = os.path.join(checkpoint_dir, DIRECTORY)
    kept = [b for b in _batch_ids(directory) if committed is not None and b <= committed]
    if not kept:
        return None
    with open(os.path.join(directory, str(kept[-1])), "rb") as handle:
        return pickle.load(handle)


def save_operator_states(checkpoint_dir: str, batch_id: int, latest: dict) -> None:
    """Keeps `latest` as of `batch_id`, and the newest files before it only."""
    directory = os.path.join(checkpoint_dir, DIRECTORY)
    atomic_write(os.path.join(directory, str(batch_id)), pickling.dumps(latest))
    for old in [b for b in _batch_ids(directory) if b < batch_id][: -(KEEP - 1) or None]:
        os.remove(os.path.join(directory, str(old)))
