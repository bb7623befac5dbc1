"""What the driver tells a streaming job's sources for the next micro-batch.

Spark's sources plan each micro-batch in their own process, so the driver writes what
they announce next to small JSON files in the checkpoint directory, and the sources read
them when asked for their next offsets (weir.spark.source.AnnouncingReader): the
timestamps of idle watermark groups (weir.control.idleness), operators' own watermarks
(weir.control.watermarks), the earliest processing-time timer due, and partitions'
largest timestamps (weir.runtime.split_watermarks). The offset log keeps what each
micro-batch read, so a replayed batch announces the same.
"""

import json
import os
from typing import Any, Dict, Optional

from weir.control.plane import ControlPlane
from weir.plan.physical import PhysicalPlan
from weir.runtime.sink_writers import atomic_write
from weir.spark.source import read_announcements

IDLE_FILE = "weir-idle-watermarks.json"  # the driver's announcements for idle groups
OWN_FILE = "weir-own-watermarks.json"  # the operators' own watermarks (weir.control.watermarks)
DUE_FILE = "weir-due-timer.json"  # the earliest pending processing-time timer
MARKS_FILE = "weir-split-watermarks.json"  # partitions' largest timestamps, per source


class Announcements:
    """The announcement files of one job's checkpoint directory, written by its driver."""

    def __init__(self, checkpoint_dir: str, plan: PhysicalPlan, control: ControlPlane) -> None:
        self.checkpoint_dir = checkpoint_dir
        self.plan = plan
        self.control = control
        self.due: Optional[int] = control.next_tick()  # the earliest tick announced

    def path(self, name: str) -> str:
        return os.path.join(self.checkpoint_dir, name)

    def start(self, ticks: bool, marks: bool) -> None:
        """A run's first announcements (never an earlier run's due timer; the offsets keep
        the split marks an earlier run learnt)."""
        if ticks:
            self.write(DUE_FILE, {"due": self.due})
        if marks:
            self.write(MARKS_FILE, {})

    def idle(self, moves: Optional[Dict[int, int]]) -> None:
        """What the sources of idle watermark groups announce next: `moves` is {group
        index: timestamp} or None."""
        if moves:
            groups = self.plan.watermark_groups
            announced = read_announcements(self.path(IDLE_FILE))
            announced.update({groups[index].name: ts for index, ts in moves.items()})
            self.write(IDLE_FILE, announced)

    def split_marks(self) -> None:
        """Partitioned sources' partitions' largest timestamps and which are idle."""
        marks = self.control.marks()
        if marks is not None:
            self.write(MARKS_FILE, marks)

    def own_watermarks(self) -> None:
        """The operators' own watermarks for the next micro-batch, when one moved."""
        if self.control.advance_own_watermarks():
            self.write(OWN_FILE, self.control.own_watermarks_so_far())

    def due_timer(self, due: Optional[int]) -> None:
        """When the next processing-time timer is due, when that changed."""
        if due != self.due:
            self.due = due
            self.write(DUE_FILE, {"due": due})

    def write(self, name: str, announced: Dict[str, Any]) -> None:
        """Writes file `name` (not after the job's cleanup removed the directory)."""
        if os.path.isdir(self.checkpoint_dir):
            atomic_write(self.path(name), json.dumps(announced).encode())
