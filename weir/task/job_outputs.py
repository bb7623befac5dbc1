"""The driver's end of a job: what each micro-batch's rows bring to it (records for the
sinks it writes, metrics, operator state snapshots, ends of input, the control plane's
reports) and the job's result."""

from collections import Counter
from typing import AbstractSet, Any, Callable, Dict, Iterable, List, Optional, Set, Tuple

from weir.common.job import JobExecutionResult
from weir.control.plane import ControlPlane
from weir.plan.physical import PhysicalPlan
from weir.runtime.connectors.sink_base import commit_tasks
from weir.runtime.metrics import (
    RECORDS_IN,
    RECORDS_OUT,
    MetricsLog,
    is_breakdown,
    merge_report,
    records_received,
)
from weir.runtime.sink_writers import CheckpointedSink, sink_writer, write_batch
from weir.runtime.state.operator_state import OperatorStateLog
from weir.runtime.wire import Channel, bundle_columns, loads
from weir.task.printing import show_printed


TASK_IO = (f".{RECORDS_IN}", f".{RECORDS_OUT}")  # every operator's counts of records


def job_result(
    job_id: str,
    job_name: str,
    runtime_ms: int,
    batches: Optional[int],
    plan: PhysicalPlan,
    metrics_log: MetricsLog,
) -> JobExecutionResult:
    """A job's result, with the records its sources read and its sinks received (and the
    metrics operators kept; the tasks' own counts of records are for the REST API)."""
    metrics = result_metrics(plan, metrics_log.totals())
    read = sum(metrics.get(f"{task.uid}.{RECORDS_OUT}", 0) for task in plan.sources)
    written = sum(metrics.get(f"{uid}.{RECORDS_IN}", 0) for uid in plan.sinks)
    return JobExecutionResult(job_id, runtime_ms, batches, metrics, job_name, (read, written))


def result_metrics(plan: PhysicalPlan, totals: Dict[str, Any]) -> Dict[str, Any]:
    """The user's metrics, the records the sources read and those the sinks received;
    not every operator's records in and out, nor those per key group."""
    kept = {f"{task.uid}.{RECORDS_OUT}" for task in plan.sources} | {
        f"{uid}.{RECORDS_IN}" for uid in plan.sinks
    }
    return {
        name: value
        for name, value in totals.items()
        if name in kept or not (name.endswith(TASK_IO) or is_breakdown(name))
    }


class JobOutputs:
    """The driver's end of every micro-batch: writes the (to, subtask, payload) rows that
    reach it (records to their sinks, metric increments to `metrics` per batch id, so that
    a replay replaces them) and keeps every operator state snapshot in `operator_states`
    (sink functions with operator state are snapshotted here); control rows (watermarks,
    timers, ends of input) go to the control plane (weir.control.plane)."""

    def __init__(
        self,
        plan: PhysicalPlan,
        metrics: MetricsLog,
        operator_states: OperatorStateLog,
        control: ControlPlane,
        written_by_tasks: AbstractSet[str] = frozenset(),
    ) -> None:
        """`written_by_tasks`: the uids of the sinks the tasks write themselves (their
        counts still come here, as metrics)."""
        self.plan = plan
        self.metrics = metrics
        self.operator_states = operator_states
        self.control = control
        self.writers = {
            uid: sink_writer(node.param("sink"), uid, plan, operator_states.restored.get(uid))
            for uid, node in plan.sinks.items()
            if uid not in written_by_tasks
        }
        self.committers = {uid: plan.sinks[uid].param("sink") for uid in written_by_tasks}
        # the engine's tasks for work after a commit (None: here)
        self.run_in_tasks: Optional[Callable[..., Any]] = None

    def write(self, rows: Iterable[Tuple[str, int, bytes]], batch_id: int) -> Set[int]:
        """Writes a micro-batch's rows; returns the numbers of the sources that ended in
        it."""
        per_sink: Dict[str, Tuple[List[Any], List[int], List[Any]]] = {
            uid: ([], [], []) for uid in self.writers
        }
        counts: Dict[str, Any] = {}
        prepared: Dict[str, List[Any]] = {}
        control, ended_before = self.control, frozenset(self.control.finished)
        for to, subtask, blob in rows:
            if control.observe(to, subtask, blob):
                continue
            if to == Channel.METRICS:
                for name, report in loads(blob).items():
                    merge_report(counts, name, report)
            elif to == Channel.COMMITS:
                for uid, committables in loads(blob).items():
                    prepared.setdefault(uid, []).extend(committables)
            elif to == Channel.OPERATOR_STATE:
                self.operator_states.record(loads(blob))
            elif to == Channel.PRINTED:
                show_printed(loads(blob))
            else:
                values, subtasks, stamps = per_sink[to]
                records, times = bundle_columns(blob)
                values.extend(records)
                stamps.extend(times or [None] * len(records))
                subtasks.extend([subtask] * len(records))
        for uid, writer in self.writers.items():
            values, subtasks, stamps = per_sink[uid]
            received = {(uid, index): count for index, count in Counter(subtasks).items()}
            for name, n in records_received(received).items():
                merge_report(counts, name, n)
            write_batch(
                writer, values, batch_id, subtasks if self.plan.parallelism > 1 else None, stamps
            )
            if isinstance(writer, CheckpointedSink):
                self.operator_states.record(writer.snapshot())
        for uid, committables in prepared.items():
            commit_tasks(self.committers[uid], batch_id, committables, self.run_in_tasks)
        self.metrics.record(batch_id, counts)
        return control.finished - ended_before
