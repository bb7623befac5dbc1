"""What a running Spark job reports about itself (weir.cli writes it to the job directory
for `weir list`, the REST API and the dashboard): micro-batches, operator metrics by
Flink's names, the watermark, input rates and each micro-batch as a checkpoint."""

import os
import time

HISTORY = 60  # micro-batches kept in a snapshot's history


def _checkpoint_size(checkpoint_dir: str, batch_id: int) -> int:
    """Bytes Spark wrote for the state of micro-batch `batch_id` (state version id + 1)."""
    total, version = 0, f"{batch_id + 1}."
    state = os.path.join(checkpoint_dir, "state")
    for root, _, files in os.walk(state):
        total += sum(
            os.path.getsize(os.path.join(root, name)) for name in files if name.startswith(version)
        )
    return total


def batch_history(query, checkpoint_dir: str) -> list:
    """The recent micro-batches: id, end time, duration, input rows and rate, watermark."""
    history = []
    for progress in (query.recentProgress or [])[-HISTORY:]:
        durations = progress.get("durationMs") or {}
        history.append(
            {
                "id": progress["batchId"],
                "timestamp": progress.get("timestamp"),
                "duration": durations.get("triggerExecution", 0),
                "numInputRows": progress.get("numInputRows", 0),
                "inputRowsPerSecond": progress.get("inputRowsPerSecond") or 0.0,
                "processedRowsPerSecond": progress.get("processedRowsPerSecond") or 0.0,
                "watermark": (progress.get("eventTime") or {}).get("watermark"),
            }
        )
    if history:
        history[-1]["size"] = _checkpoint_size(checkpoint_dir, history[-1]["id"])
    return history


def job_snapshot(job) -> dict:
    """A SparkJob's state now (weir.spark.executor.SparkJob)."""
    query = job.query
    history = batch_history(query, job.checkpoint_dir) if query is not None else []
    return {
        "time": int(time.time() * 1000),
        "status": job.get_job_status().value,
        "batches": job.batches,
        "parallelism": job.plan.parallelism,
        "max_parallelism": job.plan.max_parallelism,
        "metrics": job.metrics.totals(),
        "history": history,
        "plan": job.description,
    }
