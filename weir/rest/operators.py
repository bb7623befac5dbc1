"""The REST API's documents about one operator (Flink's "vertex") and the micro-batches,
made from what the job's process reports (snapshot.json): the operator's metrics and
watermarks by Flink's names (`/jobs/{id}/vertices/{vid}/metrics`, `.../watermarks`), its
records per key group and per subtask (weir's `.../keygroups`: skew), and the recent
micro-batches (weir's `/jobs/{id}/batches`), which the dashboard plots.

Watermarks are the job's: Spark keeps one watermark per query, so every operator behind a
watermark assigner has the job's current watermark as its input watermark; the others
have none (Flink's UI says "No Watermark").
"""

from datetime import datetime

from weir.jobs.directory import JobNotFound, JobRecord
from weir.runtime.key_groups import operator_index
from weir.runtime.metrics import KEY_GROUP, SUBTASK

PER_KEY_GROUP = ("numRecordsIn", "stateSize")  # what is reported per key group
WATERMARK_NODE = "watermark"
COUNTERS = ("numRecordsIn", "numRecordsOut")
# what each kind of operator counts (a fused stateless operator counts its own records)
COUNTED = {"source": ("numRecordsOut",), "sink": ("numRecordsIn",)}
DROPPING_LATE = ("Window(", "IntervalJoin")  # the operators that count late records dropped


def iso_to_millis(text):
    """Spark's watermark (an ISO time) in milliseconds, as Flink reports it."""
    if not text:
        return None
    return int(datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp() * 1000)


def watermark_millis(text):
    """A watermark Spark reports, in milliseconds; None before the first (Spark's is then
    the epoch)."""
    millis = iso_to_millis(text)
    return millis if millis else None


def _plan_nodes(snapshot: dict) -> list:
    return (snapshot.get("plan") or {}).get("nodes", [])


def vertex(snapshot: dict, job_id: str, uid: str) -> dict:
    """The plan's node `uid`, or JobNotFound's 404."""
    for node in _plan_nodes(snapshot):
        if node["id"] == uid:
            return node
    raise JobNotFound(f"Job {job_id} has no vertex {uid}")


def behind_watermarks(snapshot: dict) -> set:
    """The uids of the operators that receive the watermark of an assigner upstream."""
    nodes = _plan_nodes(snapshot)
    found, changed = set(), True
    while changed:
        changed = False
        for node in nodes:
            if node["id"] not in found and any(
                i["id"] in found or _kind(nodes, i["id"]) == WATERMARK_NODE for i in node["inputs"]
            ):
                found.add(node["id"])
                changed = True
    return found


def _kind(nodes: list, uid: str):
    return next((n["operator"] for n in nodes if n["id"] == uid), None)


def current_watermark(snapshot: dict):
    history = snapshot.get("history") or []
    return watermark_millis(history[-1].get("watermark")) if history else None


def _flinks_id(name: str) -> str:
    """A metric's id as Flink's REST API gives it: '<subtask>.<name>' for one subtask's."""
    return name[len(SUBTASK) + 1 :] if name.startswith(SUBTASK + ".") else name


def vertex_metrics(record: JobRecord, uid: str) -> dict:
    """{metric name: value} of one operator: its counters (numRecordsIn, numRecordsOut
    where its kind counts them, numLateRecordsDropped, the user's), their rates per second
    (numRecordsInPerSecond, ...) over the job's last reports, and currentInputWatermark
    where it has one."""
    snapshot = record.snapshot()
    node = vertex(snapshot, record.job_id, uid)
    prefix = uid + "."
    values = {
        _flinks_id(name[len(prefix) :]): count
        for name, count in snapshot.get("metrics", {}).items()
        if name.startswith(prefix) and not name[len(prefix) :].startswith(KEY_GROUP)
    }
    counted = COUNTED.get(node["operator"], COUNTERS)
    for name in counted:
        values.setdefault(name, 0)
    if node["description"].startswith(DROPPING_LATE):
        values.setdefault("numLateRecordsDropped", 0)
    rates = snapshot.get("rates", {})
    for name in counted:
        values[f"{name}PerSecond"] = rates.get(f"{prefix}{name}", 0.0)
    if uid in behind_watermarks(snapshot):
        values["currentInputWatermark"] = current_watermark(snapshot)
    return values


def vertex_watermarks(record: JobRecord, uid: str) -> list:
    """Flink's `/jobs/{id}/vertices/{vid}/watermarks`: each subtask's input watermark."""
    snapshot = record.snapshot()
    node = vertex(snapshot, record.job_id, uid)
    if uid not in behind_watermarks(snapshot):
        return []
    watermark = current_watermark(snapshot)
    return [
        {"id": f"{index}.currentInputWatermark", "value": str(watermark)}
        for index in range(node["parallelism"])
    ]


def key_groups(record: JobRecord, uid: str) -> dict:
    """A keyed operator's records per key group and per subtask (the skew of its keys),
    counted since the job's process started, and the size in bytes of each key group's
    state as its task last wrote it (on Spark; none for a key group not written since)."""
    snapshot = record.snapshot()
    node = vertex(snapshot, record.job_id, uid)
    maximum = snapshot.get("max_parallelism", 128)
    parallelism = node["parallelism"]
    prefix = f"{uid}.{KEY_GROUP}."
    found: dict = {}
    for name, value in snapshot.get("metrics", {}).items():
        if name.startswith(prefix):
            group, _, metric = name[len(prefix) :].partition(".")
            if metric in PER_KEY_GROUP:
                found.setdefault(int(group), {})[metric] = value
    groups = [
        {
            "keyGroup": group,
            "subtask": operator_index(group, maximum, parallelism),
            **{metric: found[group].get(metric, 0) for metric in PER_KEY_GROUP},
        }
        for group in sorted(found)
    ]
    subtasks = [
        _subtask(index, [g for g in groups if g["subtask"] == index])
        for index in range(parallelism)
    ]
    return {
        "id": uid,
        "maxParallelism": maximum,
        "parallelism": parallelism,
        "keyed": node["operator"] in ("keyed", "two_input"),
        "stateSize": sum(g["stateSize"] for g in groups),
        "keyGroups": groups,
        "subtasks": subtasks,
    }


def _subtask(index: int, groups: list) -> dict:
    return {
        "subtask": index,
        "keyGroups": len(groups),
        **{metric: sum(g[metric] for g in groups) for metric in PER_KEY_GROUP},
    }


def batches(record: JobRecord, limit=None) -> dict:
    """The recent micro-batches (the last `limit` of them): id, end time (ms), duration,
    input rows and rates, the watermark after it (ms) and its lag behind the batch's end,
    the checkpoint size; and their durations' tail (`duration_tail`)."""
    entries = []
    history = record.snapshot().get("history", [])
    for batch in history[-limit:] if limit else history:
        end = iso_to_millis(batch.get("timestamp"))
        watermark = watermark_millis(batch.get("watermark"))
        entries.append(
            {
                "id": batch["id"],
                "timestamp": end,
                "duration": batch.get("duration", 0),
                "numInputRows": batch.get("numInputRows", 0),
                "inputRowsPerSecond": batch.get("inputRowsPerSecond", 0.0),
                "processedRowsPerSecond": batch.get("processedRowsPerSecond", 0.0),
                "watermark": watermark,
                "watermarkLag": None if watermark is None or end is None else end - watermark,
                "stateSize": batch.get("size"),
            }
        )
    return {"batches": entries, "durations": duration_tail([e["duration"] for e in entries])}


def duration_tail(durations: list) -> dict:
    """The micro-batches' durations (ms) in short: median, p90, p99 and largest, and how
    many took over twice the median (a stall, unless its input was larger too)."""
    if not durations:
        return {"p50": None, "p90": None, "p99": None, "max": None, "overTwiceMedian": 0}
    ordered = sorted(durations)
    at = [ordered[min(len(ordered) - 1, int(len(ordered) * q))] for q in (0.5, 0.9, 0.99)]
    return {
        "p50": at[0],
        "p90": at[1],
        "p99": at[2],
        "max": ordered[-1],
        "overTwiceMedian": sum(d > 2 * at[0] for d in durations),
    }
