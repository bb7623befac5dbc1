"""Operator instances that outlive a micro-batch in an engine's worker process.

Flink opens one instance of each operator per subtask for the life of the job. An engine
that runs each micro-batch as new tasks (Spark) would otherwise build and open the
operators, and the user's functions in them, again for every task of every batch. Its
worker processes outlive their tasks, so each keeps the instances it built, per run of a
job: a task of the same run takes them up again. What an instance keeps between batches is
what Flink's would keep in its fields; its state still comes from the engine's state store
(an instance that may have missed a batch, run by another process, reloads it).

An instance whose task failed is dropped (it may be half-way through a batch); instances
of runs that are no longer among the newest few are closed.
"""

import sys
from collections import OrderedDict
from typing import Any, Callable, Dict, Hashable, Optional, TypeVar

from weir.runtime.gc_pause import thaw

RUNS_KEPT = 4

T = TypeVar("T")


class WorkerInstances:
    """{run id: {key: instance}} for the newest RUNS_KEPT runs; an instance has close()."""

    def __init__(self, runs_kept: int = RUNS_KEPT) -> None:
        self.runs_kept = runs_kept
        self._runs: "OrderedDict[str, Dict[Hashable, Any]]" = OrderedDict()

    def get(self, run_id: str, key: Hashable, build: Callable[[], T]) -> T:
        """The instance of `key` in run `run_id`, built by `build()` on first use."""
        instances = self._runs.get(run_id)
        if instances is None:
            instances = self._runs[run_id] = {}
            while len(self._runs) > self.runs_kept:
                _, old = self._runs.popitem(last=False)
                for closed in old.values():
                    _close(closed)
                thaw()  # a task's start may have frozen them: let their cycles be freed
        else:
            self._runs.move_to_end(run_id)
        instance: Optional[T] = instances.get(key)
        if instance is None:
            instance = instances[key] = build()
        return instance

    def drop(self, run_id: str, key: Hashable) -> None:
        """Forgets an instance whose task failed (without closing it: it may be broken)."""
        if self._runs.get(run_id, {}).pop(key, None) is not None:
            thaw()


def _close(instance: Any) -> None:
    try:
        instance.close()
    except Exception as exc:  # a finished run's close() must not fail another run's task
        print(f"weir: closing an operator of an earlier job failed: {exc!r}", file=sys.stderr)
