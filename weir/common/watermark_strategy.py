"""``WatermarkStrategy`` and ``TimestampAssigner``, mirroring PyFlink.

Flink semantics the engine follows:

* ``for_bounded_out_of_orderness(d)``: after seeing events up to timestamp
  ``max_ts`` the watermark is ``max_ts - d.to_milliseconds() - 1``, so an
  event with timestamp ``max_ts - d`` is still on time.
* ``for_monotonous_timestamps()``: the same with ``d = 0`` (``max_ts - 1``).
* ``no_watermarks()``: no watermarks; event-time timers and windows never fire
  until the end of a bounded input.
* ``with_idleness(d)``: a source split without events for ``d`` is marked idle
  and stops holding back the watermark.
"""

import inspect
import numbers
from abc import ABC, abstractmethod
from operator import itemgetter
from typing import Any, Callable, Iterable, List, Optional, Tuple, Union, cast

from weir.common.time import Duration

__all__ = ["TimestampAssigner", "WatermarkStrategy"]


class TimestampAssigner(ABC):
    """Extracts an event-time timestamp (epoch milliseconds) from a record."""

    @abstractmethod
    def extract_timestamp(self, value: Any, record_timestamp: int) -> int:
        """Return the timestamp of ``value``; ``record_timestamp`` is the
        timestamp the record already has (or a negative/None one if none)."""


class _FunctionTimestampAssigner(TimestampAssigner):
    """Wraps a plain ``(value, record_timestamp) -> int`` callable."""

    def __init__(self, func: Callable[[Any, int], int]) -> None:
        self._func = func

    def extract_timestamp(self, value: Any, record_timestamp: int) -> int:
        return self._func(value, record_timestamp)

    @property
    def func(self) -> Callable[[Any, int], int]:
        return self._func

    def __repr__(self) -> str:
        return "TimestampAssigner(%s)" % getattr(self._func, "__qualname__", repr(self._func))


def _as_assigner(
    assigner: Union[TimestampAssigner, Callable[[Any, int], int]],
) -> TimestampAssigner:
    if isinstance(assigner, TimestampAssigner):
        return assigner
    if isinstance(assigner, type):
        raise TypeError(
            "with_timestamp_assigner() needs an instance, got the class %s; "
            "use %s() instead" % (assigner.__name__, assigner.__name__)
        )
    if not callable(assigner):
        raise TypeError(
            "timestamp assigner must be a TimestampAssigner or a callable "
            "(value, record_timestamp) -> int, got %s %r" % (type(assigner).__name__, assigner)
        )
    try:
        inspect.signature(assigner).bind(None, None)
    except TypeError:
        raise TypeError(
            "timestamp assigner callable %r must accept two arguments "
            "(value, record_timestamp)" % (assigner,)
        ) from None
    except ValueError:  # no signature available (some builtins): trust it
        pass
    return _FunctionTimestampAssigner(assigner)


def _check_duration(value: object, what: str) -> Duration:
    if not isinstance(value, Duration):
        hint = ""
        if isinstance(value, numbers.Integral) and not isinstance(value, bool):
            hint = " (for milliseconds use Duration.of_millis(%d))" % value
        raise TypeError(
            "%s must be a Duration, got %s %r%s" % (what, type(value).__name__, value, hint)
        )
    if value.to_milliseconds() < 0:
        raise ValueError("%s must not be negative, got %r" % (what, value))
    return value


class WatermarkStrategy:
    """How to assign timestamps and generate watermarks (immutable).

    Create one with a static factory; ``with_timestamp_assigner`` and
    ``with_idleness`` return new strategies. See the module docstring for the
    watermark formula (``max_timestamp - out_of_orderness - 1``).
    """

    __slots__ = ("_out_of_orderness_ms", "_timestamp_assigner", "_idleness_ms")

    def __init__(
        self,
        out_of_orderness_ms: Optional[int],
        timestamp_assigner: Optional[TimestampAssigner] = None,
        idleness_ms: Optional[int] = None,
    ) -> None:
        """Internal; use the static factory methods."""
        self._out_of_orderness_ms = out_of_orderness_ms
        self._timestamp_assigner = timestamp_assigner
        self._idleness_ms = idleness_ms

    # -- factories -----------------------------------------------------

    @staticmethod
    def for_bounded_out_of_orderness(max_out_of_orderness: Duration) -> "WatermarkStrategy":
        """Watermarks lag the largest timestamp seen by ``max_out_of_orderness``."""
        duration = _check_duration(max_out_of_orderness, "max_out_of_orderness")
        return WatermarkStrategy(duration.to_milliseconds())

    @staticmethod
    def for_monotonous_timestamps() -> "WatermarkStrategy":
        """For ascending timestamps: bounded out-of-orderness of zero."""
        return WatermarkStrategy(0)

    @staticmethod
    def no_watermarks() -> "WatermarkStrategy":
        """Emit no watermarks at all."""
        return WatermarkStrategy(None)

    # -- builders (return new strategies) ------------------------------

    def with_timestamp_assigner(
        self, timestamp_assigner: Union[TimestampAssigner, Callable[[Any, int], int]]
    ) -> "WatermarkStrategy":
        """A copy that takes timestamps from ``timestamp_assigner``."""
        return WatermarkStrategy(
            self._out_of_orderness_ms, _as_assigner(timestamp_assigner), self._idleness_ms
        )

    def with_idleness(self, idle_timeout: Duration) -> "WatermarkStrategy":
        """A copy that marks inputs idle after ``idle_timeout`` without events."""
        duration = _check_duration(idle_timeout, "idle_timeout")
        if duration.is_zero():
            raise ValueError("idle_timeout must be greater than zero, got %r" % (duration,))
        return WatermarkStrategy(
            self._out_of_orderness_ms, self._timestamp_assigner, max(1, duration.to_milliseconds())
        )

    # -- read-only view for the engine ---------------------------------

    @property
    def out_of_orderness_ms(self) -> Optional[int]:
        """Allowed lateness in ms: 0 for monotonous, ``None`` for no watermarks."""
        return self._out_of_orderness_ms

    @property
    def emits_watermarks(self) -> bool:
        return self._out_of_orderness_ms is not None

    @property
    def timestamp_assigner(self) -> Optional[TimestampAssigner]:
        """The assigner (a plain callable is wrapped in a TimestampAssigner)."""
        return self._timestamp_assigner

    @property
    def idleness_ms(self) -> Optional[int]:
        return self._idleness_ms

    def extract_timestamp(self, value: Any, record_timestamp: Optional[int]) -> Optional[int]:
        """The assigner's timestamp for ``value`` (``record_timestamp`` if none)."""
        if self._timestamp_assigner is None:
            return record_timestamp
        if record_timestamp is None:  # (Flink's: Long.MIN_VALUE for a record without one)
            record_timestamp = NO_TIMESTAMP
        ts = self._timestamp_assigner.extract_timestamp(value, record_timestamp)
        if type(ts) is int:
            return ts
        return self._checked_timestamp(ts, value)

    def extract_timestamps(
        self, items: List[Tuple[Any, Optional[int]]]
    ) -> List[Tuple[Any, Optional[int]]]:
        """``extract_timestamp`` over a batch of (value, record timestamp) pairs (weir
        extension, for fused chains)."""
        values = list(map(itemgetter(0), items))
        return list(zip(values, self.assign_timestamps(values, map(itemgetter(1), items))))

    def assign_timestamps(
        self, values: List[Any], timestamps: Iterable[Optional[int]]
    ) -> List[Optional[int]]:
        """``extract_timestamp`` of each value and its record timestamp, as a list, calling
        a plain assigner function directly from a C loop (weir extension, for fused
        chains)."""
        assigner = self._timestamp_assigner
        if assigner is None:
            return list(timestamps)
        extract = (
            assigner.func
            if isinstance(assigner, _FunctionTimestampAssigner)
            else assigner.extract_timestamp
        )
        stamps: List[Optional[int]] = list(
            map(extract, values, _record_timestamps(timestamps, len(values)))
        )
        if not set(map(type, stamps)) <= {int}:
            stamps = list(map(self._checked_timestamp, stamps, values))
        return stamps

    def _checked_timestamp(self, ts: object, value: Any) -> int:
        if type(ts) is int:
            return ts
        if isinstance(ts, bool) or not isinstance(ts, numbers.Integral):
            raise TypeError(
                "timestamp assigner %r returned %s %r for record %r; timestamps "
                "must be int milliseconds since the epoch"
                % (self._timestamp_assigner, type(ts).__name__, ts, value)
            )
        return int(ts)

    def watermark_for(self, max_timestamp: int) -> Optional[int]:
        """Flink's watermark after seeing ``max_timestamp`` (``None`` if no watermarks)."""
        if self._out_of_orderness_ms is None:
            return None
        return max_timestamp - self._out_of_orderness_ms - 1

    def __repr__(self) -> str:
        if self._out_of_orderness_ms is None:
            text = "WatermarkStrategy.no_watermarks()"
        elif self._out_of_orderness_ms == 0:
            text = "WatermarkStrategy.for_monotonous_timestamps()"
        else:
            text = "WatermarkStrategy.for_bounded_out_of_orderness(%r)" % (
                Duration.of_millis(self._out_of_orderness_ms),
            )
        if self._timestamp_assigner is not None:
            text += ".with_timestamp_assigner(%r)" % (self._timestamp_assigner,)
        if self._idleness_ms is not None:
            text += ".with_idleness(%r)" % (Duration.of_millis(self._idleness_ms),)
        return text


NO_TIMESTAMP = -(2**63)  # what a timestamp assigner gets for a record without one (Flink's)


def _record_timestamps(timestamps: Iterable[Optional[int]], count: int) -> List[int]:
    """The records' timestamps as an assigner gets them: NO_TIMESTAMP where one has none."""
    timestamps = list(timestamps)
    missing = timestamps.count(None)
    if missing == 0:
        return cast(List[int], timestamps)  # no None among them
    if missing == count:
        return [NO_TIMESTAMP] * count
    return [NO_TIMESTAMP if ts is None else ts for ts in timestamps]
