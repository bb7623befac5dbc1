"""Runs one job program in this process, for `weir run` (attached, or detached as its own
process: `python -m weir.jobs.detached JOB_ID`): the program runs as `__main__` with its
arguments, its environment takes the job's id, checkpoint directory, parallelism and
savepoint from the job directory (weir.datastream.job_context), and a control thread
answers other `weir` processes' requests (cancel, stop, savepoint) on the job's client.
"""

import collections
import json
import os
import runpy
import sys
import threading
import time
import traceback
from typing import Any

from weir.jobs.directory import JobRecord
from weir.common.job import JobStatus
from weir.datastream.job_context import JobContext, set_job_context
from weir.plan.savepoints import IGNORE_UNCLAIMED, SAVEPOINT_PATH
from weir.runtime.metrics import is_breakdown

POLL_S = 0.1
SNAPSHOT_EVERY_S = 1.0
RATE_WINDOW_S = 5.0  # records per second are counted over the last reports of this span
RATED = (".numRecordsIn", ".numRecordsOut")


class Rates:
    """Records per second of each operator's counters (Flink's numRecordsInPerSecond ...),
    from the job's reports over the last RATE_WINDOW_S seconds."""

    def __init__(self):
        self.samples: collections.deque = collections.deque()  # (time in s, {metric: count})

    def update(self, now: float, metrics: dict) -> dict:
        counted = {
            name: count
            for name, count in metrics.items()
            if name.endswith(RATED) and not is_breakdown(name)
        }
        self.samples.append((now, counted))
        while len(self.samples) > 2 and now - self.samples[1][0] >= RATE_WINDOW_S:
            self.samples.popleft()
        then, before = self.samples[0]
        if now - then <= 0:
            return {}
        return {
            name: round((count - before.get(name, 0)) / (now - then), 3)
            for name, count in counted.items()
        }


class Control:
    """The job's client once the program submitted it, and the requests it answers."""

    def __init__(self, record: JobRecord, progress=None):
        """`progress`: a terminal to show a progress line on (a foreground run's)."""
        self.record = record
        self.progress = progress
        self.client: Any = None  # (any executor's client: _handle asks it what it can do)
        self.done = threading.Event()
        self.busy = threading.Lock()  # held while a request is being answered
        self.rates = Rates()

    def submitted(self, client) -> None:
        self.client = client
        self.record.write(
            status=JobStatus.RUNNING.value,
            name=getattr(client, "job_name", None) or self.record.read()["name"],
        )

    def serve(self) -> None:
        reported = 0.0
        while not self.done.is_set():
            if self.client is not None:
                for path, request in self.record.pending_requests():
                    with self.busy:  # (the job's end waits for the answer)
                        self.record.answer(path, self._handle(request))
                if time.time() - reported >= SNAPSHOT_EVERY_S:
                    self.report()
                    reported = time.time()
            time.sleep(POLL_S)

    def report(self) -> None:
        """Writes the job's snapshot (what its executor reports, where it does)."""
        snapshot = getattr(self.client, "snapshot", None)
        try:
            if snapshot is not None:
                taken = snapshot()
                taken["rates"] = self.rates.update(time.time(), taken.get("metrics", {}))
                self.record.write_snapshot(taken)
                if self.progress is not None:
                    self.progress.write("\r" + progress_line(taken))
                    self.progress.flush()
            restarts = getattr(self.client, "restarts", 0)
            if restarts != self.record.read().get("restarts", 0):
                self.record.write(
                    restarts=restarts, exceptions=list(getattr(self.client, "exceptions", []))
                )
        except Exception as error:  # a report never stops the job
            print(f"weir: could not report the job's state: {error}", file=sys.stderr)

    def _handle(self, request: dict) -> dict:
        action = request.get("action")
        target = request.get("target") or self.record.savepoints_dir()
        try:
            if action == "cancel":
                self.client.cancel()
                return {"status": JobStatus.CANCELED.value}
            if action == "stop":
                path = self.client.stop_with_savepoint(bool(request.get("drain")), target).result()
                self.record.write(last_savepoint=path)
                return {"path": path}
            if action == "savepoint":
                path = self.client.trigger_savepoint(target).result()
                self.record.write(last_savepoint=path)
                return {"path": path}
            if action == "query_state":
                value = self.client.query_state(request["uid"], request["state"], request["key"])
                return {"value": json.loads(json.dumps(value, default=str))}
            return {"error": f"unknown request {action!r}"}
        except AttributeError:
            return {"error": f"the job's executor cannot {action} a job"}
        except LookupError as error:
            return {"error": str(error.args[0] if error.args else error), "missing": True}
        except Exception as error:  # told to the asking process, the job goes on
            return {"error": f"{type(error).__name__}: {error}"}

    def final_status(self) -> str:
        if self.client is None:
            return JobStatus.FINISHED.value
        return self.client.get_job_status().value


def progress_line(snapshot: dict) -> str:
    """A running job in one line: micro-batches, records in and out, the watermark."""
    metrics = snapshot.get("metrics", {})
    nodes = (snapshot.get("plan") or {}).get("nodes", [])
    read = sum(
        metrics.get(f"{n['id']}.numRecordsOut", 0) for n in nodes if n["operator"] == "source"
    )
    written = sum(
        metrics.get(f"{n['id']}.numRecordsIn", 0) for n in nodes if n["operator"] == "sink"
    )
    history = snapshot.get("history") or [{}]
    watermark = history[-1].get("watermark") or "-"
    return (
        f"weir: {snapshot.get('batches', 0)} micro-batches, {read:,} records in, "
        f"{written:,} out, watermark {watermark}"
    )


def _settings(info: dict) -> dict:
    settings = {}
    if info.get("savepoint"):
        settings[SAVEPOINT_PATH] = info["savepoint"]
        if info.get("allow_non_restored"):
            settings[IGNORE_UNCLAIMED] = "true"
    return settings


def run_job(record: JobRecord, progress=None) -> int:
    """Runs the job's program to its end; returns the process's exit code (`progress`:
    a terminal for a progress line)."""
    info = record.read()
    run = info.get("runs", 0) + 1
    record.write(
        pid=os.getpid(),
        status=JobStatus.CREATED.value,
        runs=run,
        started=int(time.time() * 1000),
        ended=None,
        failure=None,
    )
    control = Control(record, progress)
    set_job_context(
        JobContext(
            record.job_id,
            record.checkpoint_dir(run),
            info.get("parallelism"),
            _settings(info),
            control.submitted,
        )
    )
    threading.Thread(target=control.serve, daemon=True, name="weir-control").start()
    program = info["program"]
    sys.argv = [program, *info["args"]]
    sys.path.insert(0, os.path.dirname(program))
    code, failure = 0, None
    try:
        runpy.run_path(program, run_name="__main__")
    except SystemExit as exit_:
        code = exit_.code if isinstance(exit_.code, int) else (0 if exit_.code is None else 1)
    except BaseException as error:  # the program failed: its traceback goes to its log
        traceback.print_exc()
        code, failure = 1, f"{type(error).__name__}: {error}"
    finally:
        control.done.set()
        set_job_context(None)
    with control.busy:  # a stop's savepoint is written after its job's end
        if control.client is not None:
            control.report()
        if progress is not None and control.client is not None:
            progress.write("\n")
        status = JobStatus.FAILED.value if failure or code else control.final_status()
        exceptions = list(getattr(control.client, "exceptions", []))
        if failure and not exceptions:
            exceptions.append(
                {
                    "timestamp": int(time.time() * 1000),
                    "name": failure.split(":")[0],
                    "message": failure,
                }
            )
        record.write(
            status=status,
            ended=int(time.time() * 1000),
            failure=failure,
            exit_code=code,
            exceptions=exceptions,
        )
    return code


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    return run_job(JobRecord.find(argv[0]))
