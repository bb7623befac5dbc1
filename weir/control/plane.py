"""The control plane: the job's control decisions between micro-batches, for every executor.

Beside its records, a micro-batch reports control rows (weir.runtime.wire): the largest
timestamps each watermark group saw (and the announcements it made), the largest
timestamps of a partitioned source's splits, each key group's earliest processing-time
timer, and the sources whose input ended. The control plane takes them in (`observe`)
and, with the time on its clock (injected: the wall clock unless a test drives one),
says what the next micro-batch needs:

    the job's watermark            min over groups of (largest timestamp - delay), never
                                   going back (Spark computes the same in its query)
    idle groups' announcements     weir.control.idleness (also between micro-batches)
    operators' own watermarks      weir.control.watermarks
    partitions' marks              weir.runtime.split_watermarks
    the next processing-time tick  when a timer needs a micro-batch without input
    the end of the job's input     every source ended

An executor only transports these: the in-process executor hands them to its next batch,
Spark's driver writes them to files that its sources read into their next offsets.
"""

import time
from typing import Any, Callable, Collection, Dict, Optional, Set, Tuple

from weir.control.idleness import WatermarkGroupTracker
from weir.control.watermarks import OwnWatermarks
from weir.plan.physical import PhysicalPlan
from weir.runtime.split_watermarks import SplitMarks
from weir.runtime.wire import Channel, DueTimer, loads, read_watermark_report


def wall_clock_ms() -> int:
    return int(time.time() * 1000)


class ControlPlane:
    """The control state of one run of a job (`restoring`: it resumes a checkpoint)."""

    def __init__(
        self, plan: PhysicalPlan, clock: Callable[[], int] = wall_clock_ms, restoring: bool = False
    ) -> None:
        self.plan = plan
        self.clock = clock
        now = clock()
        self.groups = (
            WatermarkGroupTracker(plan.watermark_groups, now)
            if WatermarkGroupTracker.tracks(plan)
            else None
        )
        partitioned = plan.partitioned_sources
        self.split_marks = SplitMarks(partitioned, now) if partitioned else None
        self.own_watermarks = OwnWatermarks(plan)
        # watermark group index -> largest timestamp (the tracker's, where there is one)
        self.largest: Dict[int, int] = self.groups.largest if self.groups is not None else {}
        self.watermark = 0  # the job's, in engine milliseconds (0: none yet)
        self.finished: Set[int] = set()  # numbers of the sources whose input has ended
        # (uid, key group) -> its earliest processing-time timer (None: none), as reported
        self.processing_timers: Dict[Tuple[str, int], Optional[int]] = {}
        # A restored run ticks at once (and again) until every key group has reported its
        # timers: the batch an engine replays first may not run them all
        self.restart_tick = now if restoring and plan.processing_time_operators else None

    # -- what micro-batches report -----------------------------------------------------
    def observe(self, to: str, index: int, blob: bytes) -> bool:
        """Takes a control row that reached the driver ((to, kg, payload): kg is the
        watermark group or the source's number); False for any other row."""
        if to == Channel.WATERMARK:
            self.see(index, *read_watermark_report(blob))
        elif to == Channel.SPLIT_WATERMARKS:
            assert self.split_marks is not None  # (only partitioned sources report marks)
            self.split_marks.observe(loads(blob), self.clock())
        elif to == Channel.TIMERS:
            due: DueTimer = loads(blob)
            self.processing_timers[due.uid, due.key_group] = due.earliest
        elif to == Channel.FINISHED:
            self.finished.add(index)
        else:
            return False
        return True

    def see(self, group: int, control: str, timestamp: int) -> None:
        """A watermark row of watermark group `group` (its kind and timestamp)."""
        if self.groups is not None:
            self.groups.observe(group, control, timestamp)  # (keeps `largest` too)
        else:
            self.largest[group] = max(self.largest.get(group, timestamp), timestamp)

    # -- what the next micro-batch needs -----------------------------------------------
    def job_watermark(self) -> int:
        """The job's watermark for the next micro-batch (engine milliseconds, 0: none)."""
        if self.largest:
            groups = self.plan.watermark_groups
            candidate = min(ts - groups[g].delay_ms for g, ts in self.largest.items())
            self.watermark = max(self.watermark, candidate)
        return self.watermark

    def watermark_of(self, uid: str, job_watermark: int) -> int:
        """The watermark operator `uid` runs the next micro-batch with."""
        return self.own_watermarks.of(uid, job_watermark)

    def advance_own_watermarks(self) -> Dict[str, int]:
        """The operators' own watermarks that moved ({uid: watermark})."""
        if not self.own_watermarks:
            return {}
        idle: Collection[int] = self.groups.idle if self.groups is not None else ()
        return self.own_watermarks.advance(self.largest, idle)

    def own_watermarks_so_far(self) -> Dict[str, int]:
        """Every operator's own watermark so far ({uid: watermark}), moved or not."""
        return dict(self.own_watermarks.current)

    def end_batch(self) -> Optional[Dict[int, int]]:
        """After a micro-batch: what idle groups announce in the next ({group index:
        timestamp}, those that move) or None."""
        return self.groups.end_batch(self.clock()) if self.groups is not None else None

    def idle_between_batches(self) -> Optional[Dict[int, int]]:
        """What idle groups announce next when a timeout ran out while no batch ran."""
        return self.groups.announcements(self.clock()) if self.groups is not None else None

    def idleness_check_s(self) -> Optional[float]:
        """How often to check idleness between micro-batches (None: no group idles)."""
        timeouts = [g.idleness_ms for g in self.plan.watermark_groups if g.idleness_ms]
        return min(1.0, max(0.02, min(timeouts) / 4000)) if timeouts else None

    def marks(self) -> Optional[Dict[str, Dict[str, Any]]]:
        """Every partitioned source's partitions' marks now (None: the job has none)."""
        if self.split_marks is None:
            return None
        return self.split_marks.announcements(self.clock())

    def marks_of(self, uid: str) -> Dict[str, Any]:
        """The marks of partitioned source `uid`'s partitions now."""
        assert self.split_marks is not None  # (`uid` is a partitioned source)
        return self.split_marks.announcement(uid, self.clock())

    def next_processing_timer(self) -> Optional[int]:
        """The earliest processing-time timer pending in any key group, as the key groups
        last reported (None: none); a stream without input needs a micro-batch then."""
        return min((t for t in self.processing_timers.values() if t is not None), default=None)

    def next_tick(self) -> Optional[int]:
        """When the next micro-batch without input is due for processing-time timers
        (None: none is pending); on a restored run, at once until every key group of each
        operator that may hold them has reported."""
        due = self.next_processing_timer()
        if self.restart_tick is not None and self._all_timers_reported():
            self.restart_tick = None
        if self.restart_tick is None or (due is not None and due < self.restart_tick):
            return due
        return self.restart_tick

    def processing_timer_due(self) -> bool:
        """Whether a processing-time timer has come (a micro-batch without input is due)."""
        due = self.next_processing_timer()
        return due is not None and due <= self.clock()

    def _all_timers_reported(self) -> bool:
        plan = self.plan
        return len(self.processing_timers) >= (
            len(plan.processing_time_operators) * plan.max_parallelism
        )

    def input_ended(self) -> bool:
        """Whether every source's input has ended."""
        return len(self.finished) == len(self.plan.sources)
