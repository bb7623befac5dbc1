"""Window types (PyFlink's TimeWindow, GlobalWindow, CountWindow) and time helpers."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Iterable, Optional, Sequence, Tuple

from weir.runtime.wire import MAX_WATERMARK

if TYPE_CHECKING:
    from typing import Protocol, TypeVar

    W_contra = TypeVar("W_contra", contravariant=True)

    class MergeCallback(Protocol[W_contra]):
        """What merge_windows reports each merge to (MergingWindowAssigner.MergeCallback
        or the operator's collector)."""

        def merge(self, to_be_merged: Sequence[W_contra], merge_result: W_contra) -> None: ...


LONG_MAX = MAX_WATERMARK


def java_remainder(dividend: int, divisor: int) -> int:
    """Java's `%`: the result has the sign of the dividend (Python's has the divisor's)."""
    remainder = abs(dividend) % abs(divisor)
    return -remainder if dividend < 0 else remainder


def to_millis(value: object, what: str) -> int:
    """A Time, a Duration or an int number of milliseconds, as an int."""
    if isinstance(value, bool):
        raise TypeError(f"{what} must be a Time, a Duration or an int of milliseconds")
    if isinstance(value, int):
        return value
    to_ms = getattr(value, "to_milliseconds", None)
    if to_ms is None:
        raise TypeError(
            f"{what} must be a Time, a Duration or an int of milliseconds, "
            f"got {type(value).__name__}"
        )
    return int(to_ms())


class Window:
    """A finite group of elements; max_timestamp() is the last timestamp that belongs to it."""

    def max_timestamp(self) -> int:
        raise NotImplementedError


class TimeWindow(Window):
    """The interval [start, end) in milliseconds."""

    __slots__ = ("start", "end", "_hash")

    def __init__(self, start: int, end: int) -> None:
        self.start = start
        self.end = end
        self._hash = hash((start, end))  # windows are dict keys on every hot path

    def max_timestamp(self) -> int:
        return self.end - 1

    def intersects(self, other: TimeWindow) -> bool:
        return self.start <= other.end and self.end >= other.start

    def cover(self, other: TimeWindow) -> TimeWindow:
        return TimeWindow(min(self.start, other.start), max(self.end, other.end))

    @staticmethod
    def get_window_start_with_offset(timestamp: int, offset: int, window_size: int) -> int:
        return timestamp - java_remainder(timestamp - offset + window_size, window_size)

    @staticmethod
    def merge_windows(windows: Iterable[TimeWindow], callback: MergeCallback[TimeWindow]) -> None:
        """Merges overlapping (or touching) windows; reports each merge of two or more."""
        merged: list[tuple[TimeWindow, list[TimeWindow]]] = []
        for window in sorted(windows, key=lambda w: (w.start, w.end)):
            if merged and merged[-1][0].intersects(window):
                cover, members = merged[-1]
                merged[-1] = (cover.cover(window), members + [window])
            else:
                merged.append((window, [window]))
        for cover, members in merged:
            if len(members) > 1:
                callback.merge(members, cover)

    def __eq__(self, other: object) -> bool:
        return type(other) is TimeWindow and self.start == other.start and self.end == other.end

    def __hash__(self) -> int:
        return self._hash

    def __lt__(self, other: TimeWindow) -> bool:
        return (self.start, self.end) < (other.start, other.end)

    def __reduce__(self) -> Tuple[type[TimeWindow], Tuple[int, int]]:
        return TimeWindow, (self.start, self.end)

    def __repr__(self) -> str:
        return f"TimeWindow(start={self.start}, end={self.end})"


class GlobalWindow(Window):
    """The one window that holds every element of a key."""

    _instance: Optional[GlobalWindow] = None

    @classmethod
    def get(cls) -> GlobalWindow:
        if cls._instance is None:
            cls._instance = cls()
        return cls._instance

    def max_timestamp(self) -> int:
        return LONG_MAX

    def __eq__(self, other: object) -> bool:
        return type(other) is GlobalWindow

    def __hash__(self) -> int:
        return 0

    def __lt__(self, other: GlobalWindow) -> bool:
        return False

    def __reduce__(self) -> Tuple[Callable[[], GlobalWindow], Tuple[()]]:
        return GlobalWindow.get, ()

    def __repr__(self) -> str:
        return "GlobalWindow"


class CountWindow(Window):
    """A window of a count-window assigner, named by its running id."""

    __slots__ = ("id",)

    def __init__(self, id: int) -> None:
        self.id = id

    def max_timestamp(self) -> int:
        return LONG_MAX

    def __eq__(self, other: object) -> bool:
        return type(other) is CountWindow and self.id == other.id

    def __hash__(self) -> int:
        return hash(("count", self.id))

    def __lt__(self, other: CountWindow) -> bool:
        return self.id < other.id

    def __reduce__(self) -> Tuple[type[CountWindow], Tuple[int]]:
        return CountWindow, (self.id,)

    def __repr__(self) -> str:
        return f"CountWindow(id={self.id})"


class TimestampedValue:
    """An element with its timestamp, as evictors see them."""

    __slots__ = ("value", "timestamp")

    def __init__(self, value: Any, timestamp: Optional[int] = None) -> None:
        self.value = value
        self.timestamp = timestamp

    def get_value(self) -> Any:
        return self.value

    def get_timestamp(self) -> Optional[int]:
        return self.timestamp

    def has_timestamp(self) -> bool:
        return self.timestamp is not None

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, TimestampedValue)
            and self.value == other.value
            and self.timestamp == other.timestamp
        )

    def __repr__(self) -> str:
        return f"TimestampedValue({self.value!r}, {self.timestamp})"
