"""A key group's micro-batch cut into (key, window) groups with numpy.

For the built-in event-time tumbling and sliding assigners this computes, once per batch,
what the element-by-element path computes per element: each element's windows (the same
arithmetic as TimeWindow.get_window_start_with_offset, Java's remainder included), which
keys have an element in a window the watermark has passed, and the elements of every
(key, window), in arrival order. Groups come in the order the element-by-element path
meets them: keys by first element, a key's windows by first element.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Hashable, Iterable, Optional, Sequence

import numpy as np

from weir.runtime.wire import MIN_WATERMARK
from weir.runtime.window.assigners import SlidingEventTimeWindows, TumblingEventTimeWindows

if TYPE_CHECKING:
    from weir.runtime.window.assigners import WindowAssigner

    # (element of each window, start of each window, the timestamps)
    Assigned = tuple[np.ndarray, np.ndarray, np.ndarray]

_TIME_LIMIT = 1 << 61  # timestamps this close to the int64 edge take the general path
_MAX_ENTRIES = 20_000_000  # (element, window) pairs per batch, beyond which numpy is no help


class WindowGroups:
    """(key, window) groups of a batch. Entries are (element, window) pairs sorted by key,
    window start and arrival; `rows[i]` is entry i's element, groups are entry ranges
    starting at `bounds`. `emit_order` lists groups in the operator's order, with their
    `key_ids` and window `starts`; `late_keys[k]` tells if key id k met a passed window."""

    __slots__ = ("rows", "bounds", "sizes", "emit_order", "key_ids", "starts", "late_keys")
    rows: np.ndarray
    bounds: np.ndarray
    sizes: np.ndarray
    emit_order: np.ndarray
    key_ids: np.ndarray
    starts: np.ndarray
    late_keys: np.ndarray

    def group_ids(self) -> np.ndarray:
        """The group of every entry."""
        return np.repeat(np.arange(len(self.bounds)), self.sizes)


def _timestamps(timestamps: Sequence[Optional[int]]) -> Optional[np.ndarray]:
    try:
        times = np.array(timestamps)
    except (OverflowError, ValueError, TypeError):
        return None
    if times.dtype != np.int64 or times.ndim != 1:
        return None
    if times.min() <= max(MIN_WATERMARK, -_TIME_LIMIT) or times.max() >= _TIME_LIMIT:
        return None
    return times


def assign_windows(
    assigner: WindowAssigner[Any, Any], timestamps: Sequence[Optional[int]]
) -> Optional[Assigned]:
    """(element of each window, start of each window, the timestamps), elements in order and
    each one's windows in assign_windows' order; None unless the assigner is a built-in
    event-time tumbling or sliding one and every timestamp is a plain int."""
    kind = type(assigner)
    if kind is TumblingEventTimeWindows:
        times = _timestamps(timestamps)
        if times is None:
            return None
        # (kind is TumblingEventTimeWindows: so is the assigner)
        starts = times - np.fmod(
            times - assigner.offset + assigner.size,  # type: ignore[attr-defined]
            assigner.size,  # type: ignore[attr-defined]
        )
        return np.arange(len(times)), starts, times
    if kind is SlidingEventTimeWindows:
        return _sliding(
            assigner,  # type: ignore[arg-type]  # (so is the assigner)
            _timestamps(timestamps),
        )
    return None


def _sliding(assigner: SlidingEventTimeWindows, times: Optional[np.ndarray]) -> Optional[Assigned]:
    if times is None:
        return None
    size, slide = assigner.size, assigner.slide
    per_element = size // slide + 2  # enough for every remainder sign
    if len(times) * per_element > _MAX_ENTRIES:
        return None
    last = times - np.fmod(times - assigner.offset + slide, slide)
    candidates = last[:, None] - slide * np.arange(per_element)[None, :]
    taken = candidates > (times - size)[:, None]
    rows = np.broadcast_to(np.arange(len(times))[:, None], taken.shape)
    return rows[taken], candidates[taken], times


def key_ids_of(keys: Iterable[Hashable]) -> tuple[np.ndarray, list[Any]]:
    """(id of each element's key, the keys by id): ids in order of first appearance."""
    ids: dict[Hashable, int] = {}
    setdefault = ids.setdefault
    key_ids = [setdefault(key, len(ids)) for key in keys]
    return np.array(key_ids, dtype=np.int64), list(ids)


def group_windows(
    key_ids: np.ndarray,
    key_count: int,
    assigned: Assigned,
    size: int,
    watermark: int,
    lateness: int,
) -> WindowGroups:
    """The groups of `assigned` (assign_windows' result). A key is late if one of its
    elements is in a window the watermark has passed, or in no window (a sliding window's
    gap) and later than the allowed lateness (the operator counts or side-outputs those)."""
    rows, starts, times = assigned
    entry_keys = key_ids[rows]
    order = np.lexsort((np.arange(len(rows)), starts, entry_keys))
    sorted_keys, sorted_starts = entry_keys[order], starts[order]
    new_group = np.empty(len(order), dtype=bool)
    new_group[:1] = True
    new_group[1:] = (sorted_keys[1:] != sorted_keys[:-1]) | (
        sorted_starts[1:] != sorted_starts[:-1]
    )
    groups = WindowGroups()
    groups.rows = rows[order]
    groups.bounds = np.flatnonzero(new_group)
    groups.sizes = np.diff(np.append(groups.bounds, len(order)))
    group_keys = sorted_keys[groups.bounds]
    group_starts = sorted_starts[groups.bounds]
    groups.emit_order = np.lexsort((order[groups.bounds], group_keys))
    groups.key_ids = group_keys[groups.emit_order]
    groups.starts = group_starts[groups.emit_order]
    late = np.zeros(key_count, dtype=bool)
    late[group_keys[group_starts + (size - 1) <= watermark]] = True
    stray = np.bincount(rows, minlength=len(times)) == 0
    if stray.any():
        late[key_ids[stray & (times <= max(watermark - lateness, -(1 << 63)))]] = True
    groups.late_keys = late
    return groups
