"""Spark's Python workers started while the first query is still being planned.

A fresh embedded session has no Python worker yet: the first micro-batch's tasks each
waited for Spark to start a worker daemon, fork a worker and have it import pyspark,
pyarrow, pandas and weir, stage after stage (~0.45 s for the source stage and ~0.6 s for
the keyed one here, on the critical path). Spark keys its worker daemons by their
environment, which differs between the SQL UDF path (weir's sources, sinks and batch
stages: `mapInArrow`) and transformWithState (weir's keyed stages), and keeps a finished
task's worker, with what it imported, for the next task. So the first job of a weir-made
session runs, in a background thread, one tiny batch query of each kind the job will
need, two partitions each (local[2]'s two task slots): their daemons and workers are
ready by the time the job's first tasks run. The README's job: its first micro-batch's
sink work 1.8 -> 0.9 s, the job ~0.7 s quicker (docs/operating.md). transformWithState's
query goes first: taking turns over five rounds, the README's job (its source read whole,
weir.spark.one_shot) took 3.10-3.22 s against 3.31-3.45 s with it second (not taken apart
further: the two queries and the job share two cores).

Only for local sessions weir made (a session handed to weir, or one on a cluster, keeps its
workers as they are), once per session; failures are ignored (the job itself reports what
is wrong with its workers).
"""

import threading

from pyspark.sql.streaming.stateful_processor import StatefulProcessor

from weir.spark.session import is_local, made_by_weir

_warmed: set = set()
_lock = threading.Lock()
SLOTS = 2  # tasks of each kind: local[2]'s slots (more cores: workers start as needed)


class _Nothing(StatefulProcessor):
    def init(self, handle) -> None:
        pass

    def handleInputRows(self, key, rows, timerValues):
        return iter(())

    def close(self) -> None:
        pass


def _batches(batches):
    yield from batches


def _warm(spark, keyed: bool) -> None:
    try:
        rows = spark.range(SLOTS, numPartitions=SLOTS)
        if keyed:
            rows.groupBy("id").transformWithState(_Nothing(), "id long", "Append", "None").collect()
        rows.mapInArrow(_batches, "id long").collect()
    except BaseException:  # (the session stopped meanwhile, or workers cannot start)
        pass


def warm_python_workers(spark, keyed: bool) -> None:
    """Starts the Python workers a job on `spark` needs (transformWithState's too where
    `keyed`), in the background, where weir made `spark` on a local master, unless they
    were for an earlier job."""
    if not (made_by_weir(spark) and is_local(spark)):
        return
    with _lock:
        if id(spark) in _warmed:
            return
        _warmed.add(id(spark))
    threading.Thread(
        target=_warm, args=(spark, keyed), daemon=True, name="weir-python-workers"
    ).start()
