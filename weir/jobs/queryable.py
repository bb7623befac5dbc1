"""The latest checkpointed value of one key's state in a running job of the job directory
(what Flink's queryable state offered), asked of the job's process."""

from weir.common.errors import WeirError
from weir.jobs.lifecycle import LifecycleError, running


class StateNotFound(WeirError, LookupError):
    """The key has no value for that state (or the job no such operator)."""


def query_state(job_id: str, uid: str, state_name: str, key, timeout_s: float = 120):
    """The value of `key`'s keyed state `state_name` in operator `uid` of running job
    `job_id`, as of its last committed micro-batch."""
    record = running(job_id)
    answer = record.request("query_state", timeout_s=timeout_s, uid=uid, state=state_name, key=key)
    if answer.get("missing"):
        raise StateNotFound(answer["error"])
    if "error" in answer:
        raise LifecycleError(f"Could not query job {job_id}: {answer['error']}")
    return answer["value"]
