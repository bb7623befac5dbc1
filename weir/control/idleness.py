"""Idle sources (Flink's `WatermarkStrategy.with_idleness`), for every executor.

An engine's watermark is the minimum over watermark groups of (the group's largest
timestamp minus its delay); a group whose sources stop producing holds it back for good.
A group whose strategy has an idleness timeout and whose sources produced no record for
that long (processing time) is idle: it must stop holding the others back, and hold them
again as soon as it produces records.

The engine keeps each group's largest timestamp as a maximum that never goes back, so weir
moves an idle group's largest timestamp forward instead: after each micro-batch the driver
computes the watermark of the groups that are not idle, and the idle group's sources
announce it (plus the group's delay) in the next micro-batch. The idle group then no longer
holds the watermark below the others' (it trails them by one micro-batch while it is
idle), and since what it announced never exceeds the job's watermark, it holds the
watermark again from its first new record on, as Flink's does.
"""

from typing import Dict, Iterable, List, Optional, Sequence, Set

from weir.plan.physical import PhysicalPlan, WatermarkGroup
from weir.runtime.watermark_valve import valve
from weir.runtime.wire import END_OF_INPUT_THRESHOLD, END_OF_INPUT_TS, Control


class WatermarkGroupTracker:
    """The driver's view of each watermark group: its largest timestamp, when it last
    produced records, and the watermark announced for it while idle (the operators' own
    watermarks, weir.control.watermarks, follow the largest timestamps too)."""

    def __init__(self, groups: Sequence[WatermarkGroup], now_ms: int) -> None:
        self.groups = groups  # [WatermarkGroup], by index
        self.largest: Dict[int, int] = {}
        self.active_at = {index: now_ms for index in range(len(groups))}
        self.announced: Dict[int, int] = {}
        self.idle: frozenset[int] = frozenset()  # the groups idle when last checked
        self._active: Set[int] = set()

    @staticmethod
    def needed(groups: Iterable[WatermarkGroup]) -> bool:
        """Whether any group can become idle (the driver then also checks for idle groups
        between micro-batches)."""
        return any(group.idleness_ms is not None for group in groups)

    @staticmethod
    def tracks(plan: PhysicalPlan) -> bool:
        """Whether the driver tracks the groups of `plan`: some can become idle, or some
        operator has a watermark of its own (weir.control.watermarks)."""
        return WatermarkGroupTracker.needed(plan.watermark_groups) or bool(plan.own_watermarks)

    def observe(self, group: int, control: str, timestamp: int) -> None:
        """A watermark row of `group` read in this micro-batch (an announcement made for an
        idle group is not activity)."""
        self.largest[group] = max(self.largest.get(group, timestamp), timestamp)
        if control != Control.IDLE:
            self._active.add(group)

    def end_batch(self, now_ms: int) -> Optional[Dict[int, int]]:
        """After a micro-batch: the timestamps to announce for idle groups in the next one
        ({group: timestamp}, only those that move), or None."""
        for group in self._active:
            self.active_at[group] = now_ms
        self._active.clear()
        return self.announcements(now_ms)

    def announcements(self, now_ms: int) -> Optional[Dict[int, int]]:
        """What to announce for the groups idle at `now_ms` (also between micro-batches:
        a timeout runs out whether or not a batch runs), or None."""
        idle = [
            index
            for index, group in enumerate(self.groups)
            if group.idleness_ms is not None and now_ms - self.active_at[index] >= group.idleness_ms
        ]
        self.idle = frozenset(idle)
        watermark = self._watermark_without(idle)
        if watermark is None:
            return None
        moves = {}
        for index in idle:
            target = min(watermark + self.groups[index].delay_ms, END_OF_INPUT_TS)
            if target > max(
                self.largest.get(index, target - 1), self.announced.get(index, target - 1)
            ):
                moves[index] = self.announced[index] = target
        return moves or None

    def _watermark_without(self, idle: List[int]) -> Optional[int]:
        """The watermark of the groups that hold it back: not idle, not ended, and that
        have produced a timestamp (the engine ignores groups that never did). If every
        such group is idle, the largest watermark of all, ended groups included (Flink's
        watermark valve does the same when its last active input becomes idle)."""
        watermarks = {
            index: largest - self.groups[index].delay_ms for index, largest in self.largest.items()
        }
        ended = {
            index for index, largest in self.largest.items() if largest >= END_OF_INPUT_THRESHOLD
        }
        held = valve(watermarks, idle=set(idle) | ended)
        if held is not None:
            return held
        return max(watermarks.values()) if idle and watermarks else None
