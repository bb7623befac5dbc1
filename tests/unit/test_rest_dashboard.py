"""The REST endpoints the dashboard reads, and the dashboard's files, over a job directory
written by hand (no Spark): an operator's metrics and watermarks by Flink's names, records
per key group and per subtask, the micro-batch history; the records-per-second rates a
job's process reports; the keyed tasks' counts; the metrics log folding old batches."""

from types import SimpleNamespace

import pytest
from fastapi.testclient import TestClient

from weir.jobs.directory import JobRecord
from weir.jobs.runner import Rates
from weir.task.job_outputs import result_metrics
from weir.rest.app import create_app
from weir.runtime.metrics import MetricsLog, task_io

PLAN = {
    "jid": "x",
    "name": "counts",
    "type": "STREAMING",
    "nodes": [
        {
            "id": "events",
            "parallelism": 1,
            "operator": "source",
            "description": "events",
            "inputs": [],
        },
        {
            "id": "watermark-0",
            "parallelism": 1,
            "operator": "watermark",
            "description": "Watermarks",
            "inputs": [{"num": 0, "id": "events", "ship_strategy": "FORWARD"}],
        },
        {
            "id": "counts",
            "parallelism": 2,
            "operator": "keyed",
            "description": "Window(TumblingEventTimeWindows(10), EventTimeTrigger(), reduce)",
            "inputs": [{"num": 0, "id": "watermark-0", "ship_strategy": "HASH"}],
        },
        {
            "id": "sink-0",
            "parallelism": 2,
            "operator": "sink",
            "description": "Sink",
            "inputs": [{"num": 0, "id": "counts", "ship_strategy": "FORWARD"}],
        },
    ],
}
SNAPSHOT = {
    "time": 1_700_000_003_000,
    "status": "RUNNING",
    "batches": 2,
    "parallelism": 2,
    "max_parallelism": 4,
    "plan": PLAN,
    "metrics": {
        "events.numRecordsOut": 30,
        "counts.numRecordsIn": 30,
        "counts.numRecordsOut": 5,
        "counts.numLateRecordsDropped": 2,
        "counts.keyGroup.0.numRecordsIn": 10,
        "counts.keyGroup.1.numRecordsIn": 4,
        "counts.keyGroup.3.numRecordsIn": 16,
        "counts.keyGroup.3.stateSize": 700,
        "counts.keyGroup.2.stateSize": 90,
        "sink-0.numRecordsIn": 5,
    },
    "rates": {
        "events.numRecordsOut": 6.0,
        "counts.numRecordsIn": 6.0,
        "counts.numRecordsOut": 1.0,
        "sink-0.numRecordsIn": 1.0,
    },
    "history": [
        {
            "id": 0,
            "timestamp": "2023-11-14T22:13:21.000Z",
            "duration": 900,
            "numInputRows": 10,
            "inputRowsPerSecond": 0.0,
            "processedRowsPerSecond": 11.1,
            "watermark": "1970-01-01T00:00:00.000Z",
        },
        {
            "id": 1,
            "timestamp": "2023-11-14T22:13:22.000Z",
            "duration": 400,
            "numInputRows": 20,
            "inputRowsPerSecond": 20.0,
            "processedRowsPerSecond": 50.0,
            "watermark": "2023-11-14T22:13:20.500Z",
            "size": 2048,
        },
    ],
}


@pytest.fixture
def job(tmp_path, monkeypatch):
    monkeypatch.setenv("WEIR_HOME", str(tmp_path / "home"))
    record = JobRecord.create("counts.py", "counts.py", [])
    record.write(status="RUNNING", started=1_700_000_000_000)
    record.write_snapshot(SNAPSHOT)
    return record.job_id


@pytest.fixture
def client():
    return TestClient(create_app())


def test_an_operators_metrics_by_flinks_names(job, client):
    answer = client.get(f"/jobs/{job}/vertices/counts/metrics")
    assert answer.status_code == 200
    assert [m["id"] for m in answer.json()] == [
        "currentInputWatermark",
        "numLateRecordsDropped",
        "numRecordsIn",
        "numRecordsInPerSecond",
        "numRecordsOut",
        "numRecordsOutPerSecond",
    ]
    got = client.get(
        f"/jobs/{job}/vertices/counts/metrics?get=numRecordsIn,"
        "numRecordsInPerSecond,currentInputWatermark,numLateRecordsDropped"
    )
    assert got.json() == [
        {"id": "numRecordsIn", "value": "30"},
        {"id": "numRecordsInPerSecond", "value": "6.0"},
        {"id": "currentInputWatermark", "value": "1700000000500"},
        {"id": "numLateRecordsDropped", "value": "2"},
    ]
    source = client.get(
        f"/jobs/{job}/vertices/events/metrics?get=numRecordsOut,"
        "numRecordsIn,currentInputWatermark,numLateRecordsDropped"
    )
    assert source.json() == [{"id": "numRecordsOut", "value": "30"}]
    fused = client.get(f"/jobs/{job}/vertices/watermark-0/metrics").json()
    assert [m["id"] for m in fused] == [  # a fused operator counts its own records
        "numRecordsIn",
        "numRecordsInPerSecond",
        "numRecordsOut",
        "numRecordsOutPerSecond",
    ]


def test_watermarks_per_subtask_behind_an_assigner_only(job, client):
    assert client.get(f"/jobs/{job}/vertices/sink-0/watermarks").json() == [
        {"id": "0.currentInputWatermark", "value": "1700000000500"},
        {"id": "1.currentInputWatermark", "value": "1700000000500"},
    ]
    assert client.get(f"/jobs/{job}/vertices/events/watermarks").json() == []


def test_records_per_key_group_and_per_subtask(job, client):
    assert client.get(f"/jobs/{job}/vertices/counts/keygroups").json() == {
        "id": "counts",
        "maxParallelism": 4,
        "parallelism": 2,
        "keyed": True,
        "stateSize": 790,
        "keyGroups": [
            {"keyGroup": 0, "subtask": 0, "numRecordsIn": 10, "stateSize": 0},
            {"keyGroup": 1, "subtask": 0, "numRecordsIn": 4, "stateSize": 0},
            {"keyGroup": 2, "subtask": 1, "numRecordsIn": 0, "stateSize": 90},
            {"keyGroup": 3, "subtask": 1, "numRecordsIn": 16, "stateSize": 700},
        ],
        "subtasks": [
            {"subtask": 0, "keyGroups": 2, "numRecordsIn": 14, "stateSize": 0},
            {"subtask": 1, "keyGroups": 2, "numRecordsIn": 16, "stateSize": 790},
        ],
    }


def test_the_micro_batch_history(job, client):
    assert client.get(f"/jobs/{job}/batches").json()["batches"] == [
        {
            "id": 0,
            "timestamp": 1_700_000_001_000,
            "duration": 900,
            "numInputRows": 10,
            "inputRowsPerSecond": 0.0,
            "processedRowsPerSecond": 11.1,
            "watermark": None,
            "watermarkLag": None,
            "stateSize": None,
        },
        {
            "id": 1,
            "timestamp": 1_700_000_002_000,
            "duration": 400,
            "numInputRows": 20,
            "inputRowsPerSecond": 20.0,
            "processedRowsPerSecond": 50.0,
            "watermark": 1_700_000_000_500,
            "watermarkLag": 1500,
            "stateSize": 2048,
        },
    ]
    assert client.get(f"/jobs/{job}/batches").json()["durations"] == {
        "p50": 900,
        "p90": 900,
        "p99": 900,
        "max": 900,
        "overTwiceMedian": 0,
    }


def test_the_tail_of_micro_batch_durations():
    from weir.rest.operators import duration_tail

    assert duration_tail([400] * 197 + [500, 900, 2000]) == {
        "p50": 400,
        "p90": 400,
        "p99": 900,
        "max": 2000,
        "overTwiceMedian": 2,
    }
    assert duration_tail([]) == {
        "p50": None,
        "p90": None,
        "p99": None,
        "max": None,
        "overTwiceMedian": 0,
    }


def test_the_job_input_rate_and_unknown_vertices(job, client):
    got = client.get(f"/jobs/{job}/metrics?get=numRecordsInPerSecond,numRestarts").json()
    assert got == [
        {"id": "numRecordsInPerSecond", "value": "6.0"},
        {"id": "numRestarts", "value": "0"},
    ]
    assert client.get(f"/jobs/{job}/vertices/nothing/metrics").json() == {
        "errors": [f"Job {job} has no vertex nothing"]
    }
    assert client.get(f"/jobs/{job}/vertices/nothing/keygroups").status_code == 404


def test_the_dashboard_is_served_without_the_token(job):
    guarded = TestClient(create_app(token="s3cret"))
    page = guarded.get("/")
    assert page.status_code == 200 and '<script src="/dashboard/app.js">' in page.text
    for asset in ("app.js", "svg.js", "style.css"):
        assert guarded.get(f"/dashboard/{asset}").status_code == 200
    assert guarded.get(f"/jobs/{job}/batches").status_code == 401
    assert (
        guarded.get(f"/jobs/{job}/batches", headers={"Authorization": "Bearer s3cret"}).status_code
        == 200
    )


def test_no_asset_comes_from_elsewhere(client):
    for asset in ("/", "/dashboard/app.js", "/dashboard/svg.js", "/dashboard/style.css"):
        text = client.get(asset).text
        assert (
            "http://" not in text.replace("http://www.w3.org/2000/svg", "")
            and "https://" not in text
        ), asset


def test_rates_over_the_last_reports():
    rates = Rates()
    assert rates.update(100.0, {"a.numRecordsIn": 0, "a.keyGroup.1.numRecordsIn": 0}) == {}
    assert rates.update(101.0, {"a.numRecordsIn": 10, "a.late": 3}) == {"a.numRecordsIn": 10.0}
    assert rates.update(102.0, {"a.numRecordsIn": 30}) == {"a.numRecordsIn": 15.0}
    for second in range(103, 110):
        rates.update(float(second), {"a.numRecordsIn": 30 + 5 * (second - 102)})
    assert rates.update(110.0, {"a.numRecordsIn": 70}) == {"a.numRecordsIn": 5.0}


def test_a_keyed_tasks_counts_and_the_job_results_filter():
    assert task_io("counts", 7, 1, 3, 2) == {
        "counts.numRecordsIn": 3,
        "counts.subtask.1.numRecordsIn": 3,
        "counts.numRecordsOut": 2,
        "counts.subtask.1.numRecordsOut": 2,
        "counts.keyGroup.7.numRecordsIn": 3,
    }
    assert task_io("counts", 7, 1, 0, 0) == {}
    plan = SimpleNamespace(sources=[SimpleNamespace(uid="events")], sinks=["sink-0"])
    totals = {
        name: 1
        for name in (
            "counts.numRecordsIn",
            "counts.keyGroup.7.numRecordsIn",
            "a.b.numRecordsOut",
            "sink-0.subtask.1.numRecordsIn",
            "counts.subtask.0.numRecordsOut",
            "counts.numLateRecordsDropped",
            "sink-0.numRecordsIn",
            "events.numRecordsOut",
            "events.numRecordsIn",
            "map-1.numRecordsInErrors",
        )
    }
    assert result_metrics(plan, totals) == {
        "counts.numLateRecordsDropped": 1,
        "sink-0.numRecordsIn": 1,
        "events.numRecordsOut": 1,
        "map-1.numRecordsInErrors": 1,
    }


def test_the_metrics_log_folds_old_batches_and_still_replaces_a_replay():
    log = MetricsLog()
    for batch in range(100):
        log.record(batch, {"x": 1, f"only-{batch % 3}": 1})
    log.record(99, {"x": 5})  # the last batch again: it replaces its own counts
    assert log.totals() == {"x": 104, "only-0": 33, "only-1": 33, "only-2": 33}
    assert len(log._batches) <= 2 * MetricsLog.REPLAYABLE
