"""Every job's metrics in Prometheus's exposition format, named as Flink's Prometheus
reporter names them (counters as gauges, as Flink's: they restart with a job):
job-level `flink_jobmanager_job_<metric>{job_id, job_name}`, operator-level
`flink_taskmanager_job_task_operator_<metric>{job_id, job_name, operator_id,
operator_name}`, with `subtask_index` for the records in and out each parallel instance
counted (as Flink's reporter; the user's metrics are per operator, without it)."""

import re

from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.exposition import CONTENT_TYPE_LATEST

from weir.rest import views
from weir.runtime.metrics import KEY_GROUP, SUBTASK

CONTENT_TYPE = CONTENT_TYPE_LATEST
JOB = "flink_jobmanager_job_"
OPERATOR = "flink_taskmanager_job_task_operator_"
OPERATOR_LABELS = ["job_id", "job_name", "operator_id", "operator_name"]
SUBTASK_LABELS = OPERATOR_LABELS + ["subtask_index"]
JOB_LEVEL = (
    "uptime",
    "numRestarts",
    "lastCheckpointDuration",
    "lastCheckpointSize",
    "totalNumberOfCheckpoints",
)


class _JobsCollector:
    def __init__(self, records):
        self.records = records

    def collect(self):
        families = {}

        def family(name, labels):
            if name not in families:
                families[name] = GaugeMetricFamily(name, name, labels=labels)
            return families[name]

        for record in self.records:
            info = record.read()
            metrics = views.job_metrics(record)
            plan = record.snapshot().get("plan") or {"nodes": []}
            names = {node["id"]: node["description"] for node in plan["nodes"]}
            job = [record.job_id, info["name"]]
            for name in JOB_LEVEL:
                family(JOB + name, ["job_id", "job_name"]).add_metric(job, metrics[name])
            series = [(*_operator_metric(key, names), value) for key, value in metrics.items()]
            per_subtask = {(uid, name) for uid, name, subtask, _ in series if subtask is not None}
            for uid, name, subtask, value in series:
                if uid is None or not isinstance(value, (int, float)):
                    continue
                if subtask is not None:
                    family(OPERATOR + name, SUBTASK_LABELS).add_metric(
                        job + [uid, names[uid], subtask], value
                    )
                elif (uid, name) not in per_subtask:  # (Flink's: per subtask where counted)
                    family(OPERATOR + name, OPERATOR_LABELS).add_metric(
                        job + [uid, names[uid]], value
                    )
        return list(families.values())


def _operator_metric(key: str, names: dict):
    """(operator uid, metric name, subtask index or None) of an operator's metric
    '<uid>.<name>' or '<uid>.subtask.<i>.<name>' (a user metric's groups joined by '_', as
    Flink's reporter joins scopes), or (None, None, None)."""
    if f".{KEY_GROUP}." in key:  # (per key group: the REST API's .../keygroups, not series)
        return None, None, None
    for uid in sorted(names, key=len, reverse=True):
        if key.startswith(uid + "."):
            name, subtask = key[len(uid) + 1 :], None
            if name.startswith(SUBTASK + "."):
                subtask, _, name = name[len(SUBTASK) + 1 :].partition(".")
            return uid, re.sub(r"[^a-zA-Z0-9_:]", "_", name), subtask
    return None, None, None


def exposition(records) -> bytes:
    registry = CollectorRegistry()
    registry.register(_JobsCollector(list(records)))
    return generate_latest(registry)
