"""Watermarks per split (Flink's per-partition watermarks of a Kafka source), for every
executor.

Flink's source keeps a watermark per split (a Kafka partition) and emits their minimum, idle
splits left out: one slow partition holds the watermark back, and records of a partition
that lags the others are not late. An engine that keeps one largest timestamp per watermark
group (Spark's maximum over every row) cannot take that minimum, so the task that reads a
split of a partitioned source does not report its own largest timestamp but its *floor*:
the smaller of that and the largest timestamps the source's other partitions reached in
earlier micro-batches. The largest of the floors of a micro-batch never exceeds Flink's
minimum, and it trails it by one micro-batch at most.

The driver learns each partition's largest timestamp from the tasks' reports (a SEEN row
to SPLIT_WATERMARKS: (source uid, partition, largest)) and keeps them (`SplitMarks`); the
source's next offset takes them (`merged`), so a replayed micro-batch reports exactly what
it reported before. A micro-batch without records whose marks moved the source's minimum
announces it (`source_watermark`).

A source's marks, as its offsets keep them: {"marks": {partition: largest timestamp},
"idle": [partitions idle now], "unseen_idle": whether partitions that never had a record
are idle}. A partition without a mark holds the watermark back until it is idle (only
with `with_idleness`), as in Flink.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, Iterable, Optional

from weir.runtime.watermark_valve import WAITS, holding, valve
from weir.runtime.wire import END_OF_INPUT_TS, SplitMark

if TYPE_CHECKING:
    # A source's marks, as its offset holds them: {"marks": {partition: int}, "idle":
    # [partition], "unseen_idle": bool} (a dict, as offsets and weir.control take them)
    Marks = Dict[str, Any]

NO_MARKS: Marks = {"marks": {}, "idle": [], "unseen_idle": False}
UNCONSTRAINED = END_OF_INPUT_TS  # a floor no other partition holds back


def merged(known: Optional[Marks], announced: Optional[Marks]) -> Marks:
    """The marks a new offset keeps: the larger mark of each partition (a mark never goes
    back), and the driver's latest idleness."""
    known = known or NO_MARKS
    if announced is None:
        return known
    marks = dict(known["marks"])
    for key, largest in announced["marks"].items():
        marks[key] = max(largest, marks.get(key, largest))
    return {
        "marks": marks,
        "idle": sorted(announced["idle"]),
        "unseen_idle": announced["unseen_idle"],
    }


def _idle(partitions: Iterable[str], marks: Marks) -> set[str]:
    """The partitions idle now: those the driver named, and those that never had a
    record once such partitions count as idle."""
    idle = set(marks["idle"])
    if marks["unseen_idle"]:
        idle |= {key for key in partitions if key not in marks["marks"]}
    return idle


def floor(partition: str, partitions: Iterable[str], marks: Marks) -> Optional[int]:
    """The most a split of `partition` may report: the smallest mark of the other
    partitions that hold the watermark (None: one of them has no mark yet, so it may
    report nothing; UNCONSTRAINED: none holds it)."""
    partitions = list(partitions)
    others = [key for key in partitions if key != partition]
    idle = _idle(partitions, marks)
    if not holding(others, idle):
        return UNCONSTRAINED
    return valve(marks["marks"], others, idle, WAITS)


def source_watermark(partitions: Iterable[str], marks: Marks) -> Optional[int]:
    """The smallest mark of the partitions that hold the watermark (None: one of them has
    no mark yet, or none holds it)."""
    partitions = list(partitions)
    return valve(marks["marks"], partitions, _idle(partitions, marks), WAITS)


class SplitMarks:
    """The driver's view of the partitions of the job's partitioned sources: each one's
    largest timestamp, when it last had records, and so whether it is idle (after its
    watermark strategy's idleness timeout without records, processing time)."""

    def __init__(self, idleness: Dict[str, Optional[int]], now_ms: int):
        self.idleness = idleness  # source uid -> idleness timeout (ms) or None
        self.started = now_ms
        self.marks: Dict[str, Dict[str, int]] = {uid: {} for uid in idleness}
        self.active_at: Dict[str, Dict[str, int]] = {uid: {} for uid in idleness}

    def observe(self, report: SplitMark, now_ms: int) -> None:
        """A task's report: the largest timestamp read from one split."""
        uid, key, largest = report.source_uid, report.partition, report.largest
        marks = self.marks[uid]
        marks[key] = max(largest, marks.get(key, largest))
        self.active_at[uid][key] = now_ms

    def announcement(self, uid: str, now_ms: int) -> Marks:
        """What source `uid` takes into its next offset (see `merged`)."""
        timeout = self.idleness[uid]
        if timeout is None:
            return {"marks": dict(self.marks[uid]), "idle": [], "unseen_idle": False}
        idle = [key for key, at in self.active_at[uid].items() if now_ms - at >= timeout]
        return {
            "marks": dict(self.marks[uid]),
            "idle": sorted(idle),
            "unseen_idle": now_ms - self.started >= timeout,
        }

    def announcements(self, now_ms: int) -> Dict[str, Marks]:
        """{source uid: its announcement}."""
        return {uid: self.announcement(uid, now_ms) for uid in self.idleness}
