"""``Time`` and ``Duration``, mirroring ``pyflink.common.time``."""

import numbers
from functools import total_ordering
from typing import Any


__all__ = ["Time", "Duration", "Instant"]

_NANOS_PER_MILLI = 1_000_000
_MILLIS_PER_SECOND = 1000
_MILLIS_PER_MINUTE = 60 * _MILLIS_PER_SECOND
_MILLIS_PER_HOUR = 60 * _MILLIS_PER_MINUTE
_MILLIS_PER_DAY = 24 * _MILLIS_PER_HOUR

# Largest unit first: used to print the shortest exact repr.
_UNITS = (
    ("days", "of_days", _MILLIS_PER_DAY),
    ("hours", "of_hours", _MILLIS_PER_HOUR),
    ("minutes", "of_minutes", _MILLIS_PER_MINUTE),
    ("seconds", "of_seconds", _MILLIS_PER_SECOND),
    ("milliseconds", "of_millis", 1),
)


def _amount(value: Any, what: str, unit: str) -> int:
    """Check that ``value`` is an integer and return it as ``int``. As in PyFlink, an
    amount may be negative (an interval join's lower bound); what needs a positive size
    (a window) checks that itself."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(
            "%s %s must be an int, got %s %r" % (what, unit, type(value).__name__, value)
        )
    return int(value)


def _repr_millis(cls_name: str, millis: int, use_of_names: bool) -> str:
    for time_name, duration_name, size in _UNITS:
        if millis and millis % size == 0:
            name = duration_name if use_of_names else time_name
            return "%s.%s(%d)" % (cls_name, name, millis // size)
    return "%s.%s(%d)" % (cls_name, "of_millis" if use_of_names else "milliseconds", millis)


@total_ordering
class Time:
    """A window size or interval in milliseconds (Flink's legacy ``Time``)."""

    __slots__ = ("_milliseconds",)

    def __init__(self, milliseconds: int) -> None:
        self._milliseconds = _amount(milliseconds, "Time", "milliseconds")

    def to_milliseconds(self) -> int:
        return self._milliseconds

    @staticmethod
    def milliseconds(milliseconds: int) -> "Time":
        return Time(milliseconds)

    @staticmethod
    def seconds(seconds: int) -> "Time":
        return Time(_amount(seconds, "Time", "seconds") * _MILLIS_PER_SECOND)

    @staticmethod
    def minutes(minutes: int) -> "Time":
        return Time(_amount(minutes, "Time", "minutes") * _MILLIS_PER_MINUTE)

    @staticmethod
    def hours(hours: int) -> "Time":
        return Time(_amount(hours, "Time", "hours") * _MILLIS_PER_HOUR)

    @staticmethod
    def days(days: int) -> "Time":
        return Time(_amount(days, "Time", "days") * _MILLIS_PER_DAY)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Time):
            return NotImplemented
        return self._milliseconds == other._milliseconds

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, Time):
            return NotImplemented
        return self._milliseconds < other._milliseconds

    def __hash__(self) -> int:
        return hash(("Time", self._milliseconds))

    def __reduce__(self) -> tuple[type["Time"], tuple[int]]:
        return Time, (self._milliseconds,)

    def __repr__(self) -> str:
        return _repr_millis("Time", self._milliseconds, use_of_names=False)


@total_ordering
class Duration:
    """An amount of time with nanosecond precision (negative: backwards).

    ``to_milliseconds()`` floors to whole milliseconds; ``to_nanos()`` is exact.
    """

    __slots__ = ("_nanos",)

    def __init__(self, nanos: int) -> None:
        self._nanos = _amount(nanos, "Duration", "nanoseconds")

    @staticmethod
    def of_nanos(nanos: int) -> "Duration":
        return Duration(nanos)

    @staticmethod
    def of_millis(millis: int) -> "Duration":
        return Duration(_amount(millis, "Duration", "milliseconds") * _NANOS_PER_MILLI)

    @staticmethod
    def of_seconds(seconds: int) -> "Duration":
        return Duration.of_millis(_amount(seconds, "Duration", "seconds") * _MILLIS_PER_SECOND)

    @staticmethod
    def of_minutes(minutes: int) -> "Duration":
        return Duration.of_millis(_amount(minutes, "Duration", "minutes") * _MILLIS_PER_MINUTE)

    @staticmethod
    def of_hours(hours: int) -> "Duration":
        return Duration.of_millis(_amount(hours, "Duration", "hours") * _MILLIS_PER_HOUR)

    @staticmethod
    def of_days(days: int) -> "Duration":
        return Duration.of_millis(_amount(days, "Duration", "days") * _MILLIS_PER_DAY)

    def to_milliseconds(self) -> int:
        """Whole milliseconds (floored)."""
        return self._nanos // _NANOS_PER_MILLI

    def to_nanos(self) -> int:
        return self._nanos

    def is_zero(self) -> bool:
        return self._nanos == 0

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Duration):
            return NotImplemented
        return self._nanos == other._nanos

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, Duration):
            return NotImplemented
        return self._nanos < other._nanos

    def __hash__(self) -> int:
        return hash(("Duration", self._nanos))

    def __reduce__(self) -> tuple[type["Duration"], tuple[int]]:
        return Duration, (self._nanos,)

    def __repr__(self) -> str:
        if self._nanos % _NANOS_PER_MILLI:
            return "Duration.of_nanos(%d)" % self._nanos
        return _repr_millis("Duration", self.to_milliseconds(), use_of_names=True)


@total_ordering
class Instant:
    """A point on the time line: seconds and nanoseconds since the epoch (PyFlink's
    Instant, Java's java.time.Instant). Tables read it as TIMESTAMP_LTZ."""

    __slots__ = ("seconds", "nanos")

    def __init__(self, seconds: int, nanos: int) -> None:
        self.seconds = _amount(seconds, "Instant", "seconds")
        self.nanos = _amount(nanos, "Instant", "nanos")

    @staticmethod
    def of_epoch_milli(epoch_milli: int) -> "Instant":
        millis = _amount(epoch_milli, "Instant", "milliseconds")
        return Instant(millis // 1000, millis % 1000 * _NANOS_PER_MILLI)

    def to_epoch_milli(self) -> int:
        return self.seconds * 1000 + self.nanos // _NANOS_PER_MILLI

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Instant) and (self.seconds, self.nanos) == (
            other.seconds,
            other.nanos,
        )

    def __lt__(self, other: "Instant") -> bool:
        return (self.seconds, self.nanos) < (other.seconds, other.nanos)

    def __hash__(self) -> int:
        return hash((self.seconds, self.nanos))

    def __repr__(self) -> str:
        return "Instant<%d, %d>" % (self.seconds, self.nanos)
