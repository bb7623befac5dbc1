"""Operators' own watermarks: Flink's minimum over an operator's inputs, for every executor.

An engine with one watermark per job (Spark's: the minimum over every watermark group)
holds an operator back by groups that never reach it: a slow or silent source would hold
windows and timers downstream of another source only, and records would be on time there
that Flink drops as late. So a keyed operator that some watermark group does not reach
gets a watermark of its own: the minimum over the groups upstream of it, computed from
the same largest timestamps as the engine's (a group without a timestamp yet does not
count, as in the engine; nor does an idle group, as in Flink, whose announced timestamps
follow the whole job), never going back. Such an operator runs with its own watermark
alone: until a group upstream of it has a timestamp, it is Flink's minimum, whatever the
job's (other sources may be far ahead).

The driver computes it after each micro-batch, like the engine's, and it holds from the
next micro-batch on: the in-process executor passes it to the operator; on Spark it
travels in a source's offsets to every key group of the operator (weir.spark.source).
"""

from typing import Collection, Dict

from weir.plan.physical import PhysicalPlan
from weir.runtime.watermark_valve import valve


class OwnWatermarks:
    """The own watermarks (engine milliseconds, as the engine's watermark) of the keyed
    tasks of a plan that need one."""

    def __init__(self, plan: PhysicalPlan) -> None:
        self.tasks = plan.own_watermarks
        self.uids = plan.own_watermark_uids
        self.groups = plan.watermark_groups
        self.current: Dict[str, int] = {}

    def __bool__(self) -> bool:
        return bool(self.tasks)

    def advance(
        self, largest: Dict[int, int], idle: Collection[int] = frozenset()
    ) -> Dict[str, int]:
        """Each task's watermark after the groups' largest timestamps `largest` ({group
        index: timestamp}), leaving out the `idle` groups; returns the ones that moved
        ({uid: watermark})."""
        marks = {index: ts - self.groups[index].delay_ms for index, ts in largest.items()}
        moved = {}
        for task in self.tasks:
            watermark = valve(marks, task.watermark_groups, idle)
            if watermark is not None and watermark > self.current.get(task.uid, 0):
                moved[task.uid] = self.current[task.uid] = watermark
        return moved

    def of(self, uid: str, job_watermark: int) -> int:
        """The watermark operator `uid` runs a micro-batch with."""
        return self.current.get(uid, 0) if uid in self.uids else job_watermark
