"""weir's REST API, shaped as Flink's (same paths and JSON field names where Flink has
them), over the job directory: it manages the jobs any `weir` process started. FastAPI
serves it, with its OpenAPI description at /openapi.json.

Errors have Flink's shape, {"errors": [...]}, with a 4xx status: an unknown job (404), a
request the job's state does not allow (409), a malformed body or parameter (400, a
parallelism outside 1..the job's max parallelism included), a request without the token
where one is required (401, logged), an unknown path (404) or a method the path does not
take (405).
"""

import logging
import os
import threading
import uuid
from typing import Optional

from fastapi import FastAPI, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, PlainTextResponse
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, Field
from starlette.exceptions import HTTPException as StarletteHTTPException

from weir.jobs.directory import JobNotFound, JobRecord
from weir.common.job import JobStatus
from weir.jobs.lifecycle import cancel as cancel_job
from weir.jobs.lifecycle import (
    InvalidParallelism,
    LifecycleError,
    check_parallelism,
    max_parallelism_of,
    rescale,
    running,
)
from weir.jobs.queryable import StateNotFound, query_state
from weir.rest import operators, prometheus, views

LOG = logging.getLogger("weir.rest")
DASHBOARD = os.path.join(os.path.dirname(os.path.abspath(__file__)), "dashboard")
PUBLIC = ("/", "/dashboard/")  # the dashboard's own files: no job data, no token needed
KEY_TYPES = {"str": str, "int": int, "float": float}


class StopRequest(BaseModel):
    targetDirectory: Optional[str] = None
    drain: bool = False


class SavepointRequest(BaseModel):
    target_directory: Optional[str] = Field(None, alias="target-directory")
    cancel_job: bool = Field(False, alias="cancel-job")


def _errors(status: int, *messages: str) -> JSONResponse:
    return JSONResponse({"errors": list(messages)}, status_code=status)


class Rescalings:
    """Rescalings under way in this server: trigger id -> (status, savepoint or error)."""

    def __init__(self):
        self.known = {}

    def start(self, record: JobRecord, parallelism: int) -> str:
        trigger = uuid.uuid4().hex
        self.known[trigger] = ("IN_PROGRESS", None)

        def run():
            try:
                self.known[trigger] = ("COMPLETED", {"location": rescale(record, parallelism)})
            except Exception as error:  # told through the trigger's status
                self.known[trigger] = (
                    "COMPLETED",
                    {"failure-cause": {"class": type(error).__name__, "stack-trace": str(error)}},
                )

        threading.Thread(target=run, daemon=True, name=f"weir-rescale-{trigger[:8]}").start()
        return trigger


def create_app(token: Optional[str] = None) -> FastAPI:
    app = FastAPI(
        title="weir REST API", version=views.VERSION, description="Flink's REST API for weir's jobs"
    )
    rescalings = Rescalings()

    @app.middleware("http")
    async def authorise(request: Request, call_next):
        public = request.url.path == PUBLIC[0] or request.url.path.startswith(PUBLIC[1])
        if (
            token is not None
            and not public
            and request.headers.get("authorization") != f"Bearer {token}"
        ):
            LOG.warning(
                "refused %s %s from %s: no valid token",
                request.method,
                request.url.path,
                request.client.host if request.client else "?",
            )
            return _errors(
                401, "Unauthorized: a valid 'Authorization: Bearer <token>' header is required"
            )
        return await call_next(request)

    @app.exception_handler(JobNotFound)
    async def not_found(request, error):
        return _errors(404, str(error))

    @app.exception_handler(LifecycleError)
    async def conflict(request, error):
        return _errors(400 if isinstance(error, InvalidParallelism) else 409, str(error))

    @app.exception_handler(StarletteHTTPException)
    async def routing(request, error):
        """Routing errors (no such path: 404, a method the path does not take: 405), in
        Flink's shape as every other error."""
        path = request.url.path
        if error.status_code == 404:
            return _errors(404, f"Not found: {path}")
        if error.status_code == 405:
            return _errors(405, f"Method {request.method} is not allowed on {path}")
        return _errors(error.status_code, str(error.detail))

    @app.exception_handler(RequestValidationError)
    async def malformed(request, error):
        return _errors(
            400, *(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in error.errors())
        )

    @app.get("/overview")
    def overview():
        return views.cluster_overview(JobRecord.all())

    @app.get("/jobs")
    def jobs():
        return {"jobs": [{"id": r.job_id, "status": r.status()} for r in JobRecord.all()]}

    @app.get("/jobs/overview")
    def jobs_overview():
        return {"jobs": [views.job_overview(record) for record in JobRecord.all()]}

    @app.get("/jobs/{job_id}")
    def job(job_id: str):
        return views.job_details(JobRecord.find(job_id))

    @app.patch("/jobs/{job_id}", status_code=202)
    def cancel(job_id: str, mode: str = "cancel"):
        if mode != "cancel":
            return _errors(400, f"mode must be 'cancel', got {mode!r}")
        record = JobRecord.find(job_id)
        if record.status() == JobStatus.CREATED.value:
            cancel_job(record)  # (not running yet: its process ends, as Flink cancels)
        else:
            _ask(running(job_id), "cancel")
        return {}

    @app.post("/jobs/{job_id}/stop", status_code=202)
    def stop(job_id: str, body: StopRequest):
        return {
            "request-id": _ask(
                running(job_id), "stop", target=body.targetDirectory, drain=body.drain
            )
        }

    @app.post("/jobs/{job_id}/savepoints", status_code=202)
    def trigger_savepoint(job_id: str, body: SavepointRequest):
        action = "stop" if body.cancel_job else "savepoint"
        return {"request-id": _ask(running(job_id), action, target=body.target_directory)}

    @app.get("/jobs/{job_id}/savepoints/{trigger_id}")
    def savepoint_status(job_id: str, trigger_id: str):
        answer = JobRecord.find(job_id).answer_of(trigger_id)
        if answer is None:
            return {"status": {"id": "IN_PROGRESS"}}
        if "error" in answer:
            return {
                "status": {"id": "COMPLETED"},
                "operation": {
                    "failure-cause": {"class": "SavepointError", "stack-trace": answer["error"]}
                },
            }
        return {"status": {"id": "COMPLETED"}, "operation": {"location": answer["path"]}}

    @app.patch("/jobs/{job_id}/rescaling", status_code=202)
    def rescaling(job_id: str, parallelism: int):
        record = running(job_id)
        check_parallelism(parallelism, max_parallelism_of(record))
        return {"request-id": rescalings.start(record, parallelism)}

    @app.get("/jobs/{job_id}/rescaling/{trigger_id}")
    def rescaling_status(job_id: str, trigger_id: str):
        JobRecord.find(job_id)
        if trigger_id not in rescalings.known:
            return _errors(404, f"no rescaling {trigger_id} of job {job_id}")
        status, operation = rescalings.known[trigger_id]
        return {"status": {"id": status}, **({"operation": operation} if operation else {})}

    @app.get("/jobs/{job_id}/checkpoints")
    def checkpoints(job_id: str):
        return views.checkpoints(JobRecord.find(job_id))

    @app.get("/jobs/{job_id}/exceptions")
    def exceptions(job_id: str):
        return views.exceptions(JobRecord.find(job_id))

    @app.get("/jobs/{job_id}/plan")
    def plan(job_id: str):
        return {"plan": views.job_details(JobRecord.find(job_id))["plan"]}

    @app.get("/jobs/{job_id}/metrics")
    def metrics(job_id: str, get: Optional[str] = None):
        values = views.job_metrics(JobRecord.find(job_id))
        if get is None:
            return [{"id": name} for name in sorted(values)]
        return [
            {"id": name, "value": str(values[name])} for name in get.split(",") if name in values
        ]

    @app.get("/jobs/{job_id}/state/{uid}/{state}")
    def state(job_id: str, uid: str, state: str, key: str, key_type: str = "str"):
        """One key's value of a keyed state as of the last committed micro-batch."""
        if key_type not in KEY_TYPES:
            return _errors(400, f"key_type must be one of {', '.join(KEY_TYPES)}")
        try:
            typed = KEY_TYPES[key_type](key)
        except ValueError:
            return _errors(400, f"key {key!r} is not a {key_type}")
        try:
            value = query_state(job_id, uid, state, typed)
        except StateNotFound as missing:
            return _errors(404, str(missing))
        return {"key": typed, "value": value}

    @app.get("/jobs/{job_id}/vertices/{vertex_id}/metrics")
    def vertex_metrics(job_id: str, vertex_id: str, get: Optional[str] = None):
        values = operators.vertex_metrics(JobRecord.find(job_id), vertex_id)
        if get is None:
            return [{"id": name} for name in sorted(values)]
        return [
            {"id": name, "value": str(values[name])} for name in get.split(",") if name in values
        ]

    @app.get("/jobs/{job_id}/vertices/{vertex_id}/watermarks")
    def vertex_watermarks(job_id: str, vertex_id: str):
        return operators.vertex_watermarks(JobRecord.find(job_id), vertex_id)

    @app.get("/jobs/{job_id}/vertices/{vertex_id}/keygroups")
    def vertex_key_groups(job_id: str, vertex_id: str):
        """weir's: a keyed operator's records per key group and per subtask (skew)."""
        return operators.key_groups(JobRecord.find(job_id), vertex_id)

    @app.get("/jobs/{job_id}/batches")
    def batches(job_id: str, limit: Optional[int] = Query(None, ge=1)):
        """weir's: the job's recent micro-batches (durations, rates, watermark and lag);
        `limit`: only the last so many."""
        return operators.batches(JobRecord.find(job_id), limit)

    @app.get("/", include_in_schema=False)
    def dashboard():
        return FileResponse(os.path.join(DASHBOARD, "index.html"))

    app.mount("/dashboard", StaticFiles(directory=DASHBOARD), name="dashboard")

    @app.get("/metrics", response_class=PlainTextResponse)
    def prometheus_metrics():
        return PlainTextResponse(
            prometheus.exposition(JobRecord.all()), media_type=prometheus.CONTENT_TYPE
        )

    return app


def _ask(record: JobRecord, action: str, **arguments) -> str:
    """Sends `action` to the job's process; its answer comes later (the trigger id)."""
    return record.send(action, **arguments)
