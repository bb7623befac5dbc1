"""Every job's metrics in Prometheus's exposition format, named as Flink's Prometheus
reporter names them (counters as gauges, as Flink's: they restart with a job):
job-level `flink_jobmanager_job_<metric>{job_id, job_name}`, operator-level
`flink_taskmanager_job_task_operator_<metric>{job_id, job_name, operator_id,
operator_name}` (weir counts per operator, not per subtask: no subtask_index label)."""

import re

from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.exposition import CONTENT_TYPE_LATEST

from weir.rest import views

CONTENT_TYPE = CONTENT_TYPE_LATEST
JOB = "flink_jobmanager_job_"
OPERATOR = "flink_taskmanager_job_task_operator_"
JOB_LEVEL = ("uptime", "numRestarts", "lastCheckpointDuration", "lastCheckpointSize",
             "totalNumberOfCheckpoints")


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
            for key, value in metrics.items():
                uid, name = _operator_metric(key, names)
                if uid is not None and isinstance(value, (int, float)):
                    family(OPERATOR + name, ["job_id", "job_name", "operator_id",
                                             "operator_name"]).add_metric(
                        job + [uid, names[uid]], value)
        return list(families.values())


def _operator_metric(key: str, names: dict):
    """(operator uid, metric name) of an operator's metric '<uid>.<name>' (a user
    metric's groups joined by '_', as Flink's reporter joins scopes), or (None, None)."""
    if ".keyGroup." in key:  # (per key group: the REST API's .../keygroups, not series)
        return None, None
    for uid in sorted(names, key=len, reverse=True):
        if key.startswith(uid + "."):
            return uid, re.sub(r"[^a-zA-Z0-9_:]", "_", key[len(uid) + 1:])
    return None, None


def exposition(records) -> bytes:
    registry = CollectorRegistry()
    registry.register(_JobsCollector(list(records)))
    return generate_latest(registry)
