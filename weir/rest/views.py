"""The JSON documents of the REST API, shaped as Flink's (field names and all), made from
the job directory (weir.jobs.directory): a job's record and what its process reports."""

import os
import time

from weir.jobs.directory import TERMINAL, JobRecord
from weir.common.job import JobStatus
from weir.rest.operators import watermark_millis

VERSION = "weir 0.1.0"


def _times(info: dict):
    start = info.get("started") or info["created"]
    end = info.get("ended") if info["status"] in TERMINAL else None
    now = int(time.time() * 1000)
    return start, (end or -1), (end or now) - start


def job_overview(record: JobRecord) -> dict:
    info = record.read()
    start, end, duration = _times(info)
    plan = record.snapshot().get("plan") or {}
    operators = len(plan.get("nodes", ()))
    state = info["status"]
    return {
        "jid": record.job_id,
        "name": info["name"],
        "state": state,
        "start-time": start,
        "end-time": end,
        "duration": duration,
        "last-modification": info.get("ended") or start,
        "tasks": {
            "total": operators,
            "running": operators if state == JobStatus.RUNNING.value else 0,
            "finished": operators if state == JobStatus.FINISHED.value else 0,
            "canceled": operators if state == JobStatus.CANCELED.value else 0,
            "failed": operators if state == JobStatus.FAILED.value else 0,
        },
    }


def cluster_overview(records: list) -> dict:
    states = [record.status() for record in records]
    return {
        "taskmanagers": 1,
        "slots-total": os.cpu_count() or 1,
        "slots-available": os.cpu_count() or 1,
        "jobs-running": states.count(JobStatus.RUNNING.value),
        "jobs-finished": states.count(JobStatus.FINISHED.value),
        "jobs-cancelled": states.count(JobStatus.CANCELED.value),
        "jobs-failed": states.count(JobStatus.FAILED.value),
        "flink-version": VERSION,
        "flink-commit": "",
    }


def job_details(record: JobRecord) -> dict:
    info = record.read()
    snapshot = record.snapshot()
    start, end, duration = _times(info)
    metrics = snapshot.get("metrics", {})
    plan = snapshot.get("plan") or {"jid": record.job_id, "name": info["name"], "nodes": []}
    vertices = [
        {
            "id": node["id"],
            "name": node["description"],
            "parallelism": node["parallelism"],
            "status": info["status"],
            "metrics": {
                "read-records": metrics.get(f"{node['id']}.numRecordsIn", 0),
                "write-records": metrics.get(f"{node['id']}.numRecordsOut", 0),
            },
        }
        for node in plan["nodes"]
    ]
    return {
        "jid": record.job_id,
        "name": info["name"],
        "isStoppable": False,
        "state": info["status"],
        "start-time": start,
        "end-time": end,
        "duration": duration,
        "now": int(time.time() * 1000),
        "maxParallelism": snapshot.get("max_parallelism", -1),
        "parallelism": snapshot.get("parallelism", info.get("parallelism")),
        "micro-batches": snapshot.get("batches", 0),
        "timestamps": {
            info["status"]: info.get("ended") or start,
            JobStatus.CREATED.value: info["created"],
        },
        "vertices": vertices,
        "plan": plan,
    }


def checkpoints(record: JobRecord) -> dict:
    """Each committed micro-batch is a checkpoint (Spark's commit is weir's checkpoint)."""
    history = [
        {
            "id": batch["id"],
            "status": "COMPLETED",
            "is_savepoint": False,
            "latest_ack_timestamp": batch["timestamp"],
            "end_to_end_duration": batch["duration"],
            "state_size": batch.get("size", 0),
            "num_input_rows": batch["numInputRows"],
        }
        for batch in reversed(record.snapshot().get("history", []))
    ]
    info = record.read()
    savepoint = (
        {"status": "COMPLETED", "is_savepoint": True, "external_path": info["last_savepoint"]}
        if info.get("last_savepoint")
        else None
    )
    return {
        "counts": {
            "restored": 1 if info.get("savepoint") else 0,
            "total": len(history),
            "in_progress": 0,
            "completed": len(history),
            "failed": 0,
        },
        "latest": {
            "completed": history[0] if history else None,
            "savepoint": savepoint,
            "failed": None,
            "restored": None,
        },
        "history": history,
    }


def exceptions(record: JobRecord) -> dict:
    info = record.read()
    entries = [
        {
            "exceptionName": entry.get("name", "JobExecutionError"),
            "stacktrace": entry["message"],
            "timestamp": entry["timestamp"],
            "taskName": entry.get("operator"),
        }
        for entry in reversed(info.get("exceptions", []))
    ]
    return {
        "root-exception": entries[0]["stacktrace"] if entries else None,
        "timestamp": entries[0]["timestamp"] if entries else None,
        "all-exceptions": [],
        "truncated": False,
        "exceptionHistory": {"entries": entries, "truncated": False},
    }


def job_metrics(record: JobRecord) -> dict:
    """{metric id: value} of a job: job-level metrics by Flink's names, and each
    operator's as '<uid>.<name>'."""
    info = record.read()
    snapshot = record.snapshot()
    history = snapshot.get("history", [])
    last = history[-1] if history else {}
    metrics = dict(snapshot.get("metrics", {}))
    plan = snapshot.get("plan") or {"nodes": []}
    sources = [n["id"] for n in plan["nodes"] if n["operator"] == "source"]
    sinks = [n["id"] for n in plan["nodes"] if n["operator"] == "sink"]
    metrics.update(
        {
            "uptime": _times(info)[2],
            "numRestarts": info.get("restarts", 0),
            "lastCheckpointDuration": last.get("duration", 0),
            "lastCheckpointSize": last.get("size", 0),
            "totalNumberOfCheckpoints": snapshot.get("batches", 0),
            "currentInputWatermark": watermark_millis(last.get("watermark")),
            "numRecordsIn": sum(metrics.get(f"{uid}.numRecordsOut", 0) for uid in sources),
            "numRecordsOut": sum(metrics.get(f"{uid}.numRecordsIn", 0) for uid in sinks),
            "numRecordsInPerSecond": round(
                sum(snapshot.get("rates", {}).get(f"{uid}.numRecordsOut", 0.0) for uid in sources),
                3,
            ),
        }
    )
    return metrics
