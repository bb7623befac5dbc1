"""What an executor hands back: a job client, its status and its result."""

from enum import Enum
from typing import Any, Mapping, Optional

from weir.common.errors import WeirError


class JobStatus(Enum):
    CREATED = "CREATED"
    RUNNING = "RUNNING"
    RESTARTING = "RESTARTING"
    FINISHED = "FINISHED"
    CANCELED = "CANCELED"
    FAILED = "FAILED"

    def is_globally_terminal_state(self) -> bool:
        return self in (JobStatus.FINISHED, JobStatus.CANCELED, JobStatus.FAILED)


class JobExecutionError(WeirError, RuntimeError):
    """A job failed; the message names the failing operator where weir knows it."""


class JobExecutionResult:
    def __init__(
        self,
        job_id: str,
        net_runtime_ms: int,
        batches: Optional[int] = 0,
        metrics: Optional[Mapping[str, Any]] = None,
        job_name: str = "",
        records: tuple[int, int] = (0, 0),
    ) -> None:
        self.job_id = job_id
        self.job_name = job_name
        self.net_runtime_ms = net_runtime_ms
        self.batches = batches
        self.metrics = dict(metrics or {})
        self.records_read, self.records_written = records

    def summary(self) -> str:
        """The job in one line (what `execute()` writes to stderr)."""
        batches = (
            "one Spark batch job"
            if self.batches is None  # BATCH mode
            else f"{self.batches} micro-batch{'es' if self.batches != 1 else ''}"
        )
        return (
            f"weir: job '{self.job_name}' finished in {self.net_runtime_ms / 1000:.1f} s: "
            f"{batches}, {self.records_read:,} records read, "
            f"{self.records_written:,} written"
        )

    def get_metrics(self) -> dict[str, Any]:
        """Counters operators kept, e.g. {"<window uid>.numLateRecordsDropped": 3} (weir)."""
        return dict(self.metrics)

    def get_job_id(self) -> str:
        return self.job_id

    def get_net_runtime(self) -> int:
        return self.net_runtime_ms

    def is_job_execution_result(self) -> bool:
        return True


class JobClient:
    """PyFlink's JobClient: status, cancel and the awaited result."""

    def get_job_id(self) -> str:
        raise NotImplementedError

    def get_job_status(self) -> JobStatus:
        raise NotImplementedError

    def cancel(self) -> None:
        raise NotImplementedError

    def get_job_execution_result(self) -> JobExecutionResult:
        raise NotImplementedError

    def wait(self, timeout_s: Optional[float] = None) -> JobStatus:
        raise NotImplementedError
