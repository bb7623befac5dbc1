"""What `weir run` hands the job program it runs (Flink's CLI does the same through its
context environment): the job's id, its checkpoint directory, the default parallelism,
settings such as the savepoint to restore, and who to tell about the submitted job.

Settings the program makes itself win over these, as in Flink (a parallelism set in the
program is not changed by `-p`)."""

from typing import Callable, Optional


class JobContext:
    def __init__(
        self,
        job_id: str,
        checkpoint_dir: str,
        parallelism: Optional[int] = None,
        settings: Optional[dict] = None,
        on_submit: Optional[Callable[[object], None]] = None,
    ):
        self.job_id = job_id
        self.checkpoint_dir = checkpoint_dir
        self.parallelism = parallelism
        self.settings = dict(settings or {})
        self.on_submit = on_submit


_current: Optional[JobContext] = None


def set_job_context(context: Optional[JobContext]) -> None:
    global _current
    _current = context


def job_context() -> Optional[JobContext]:
    return _current
