"""Evictors (Flink's Java API; PyFlink has none): drop elements before or after a firing.

An evictor gets the window's elements as a list of TimestampedValue and removes the ones
to evict from that list in place (Flink's evictors remove through the iterator).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TYPE_CHECKING, Any

from weir.runtime.window.windows import to_millis

if TYPE_CHECKING:
    from weir.runtime.context import OperatorClock
    from weir.runtime.window.assigners import Millis
    from weir.runtime.window.windows import TimestampedValue, Window


class Evictor(ABC):
    class EvictorContext:
        def __init__(self, clock: OperatorClock) -> None:
            self._clock = clock

        def get_current_processing_time(self) -> int:
            return self._clock.processing_time

        def get_current_watermark(self) -> int:
            return self._clock.watermark

    @abstractmethod
    def evict_before(
        self,
        elements: list[TimestampedValue],
        size: int,
        window: Window,
        evictor_context: Evictor.EvictorContext,
    ) -> None:
        pass

    @abstractmethod
    def evict_after(
        self,
        elements: list[TimestampedValue],
        size: int,
        window: Window,
        evictor_context: Evictor.EvictorContext,
    ) -> None:
        pass


class _BuiltInEvictor(Evictor):
    def __init__(self, do_evict_after: bool) -> None:
        self.do_evict_after = bool(do_evict_after)

    def evict_before(
        self,
        elements: list[TimestampedValue],
        size: int,
        window: Window,
        evictor_context: Evictor.EvictorContext,
    ) -> None:
        if not self.do_evict_after:
            self._evict(elements, size)

    def evict_after(
        self,
        elements: list[TimestampedValue],
        size: int,
        window: Window,
        evictor_context: Evictor.EvictorContext,
    ) -> None:
        if self.do_evict_after:
            self._evict(elements, size)

    @abstractmethod
    def _evict(self, elements: list[TimestampedValue], size: int) -> None:
        pass


class CountEvictor(_BuiltInEvictor):
    """Keeps at most `max_count` elements: the most recent ones."""

    def __init__(self, max_count: int, do_evict_after: bool = False) -> None:
        super().__init__(do_evict_after)
        if isinstance(max_count, bool) or not isinstance(max_count, int) or max_count < 0:
            raise ValueError(f"CountEvictor needs a non-negative int count, got {max_count!r}")
        self.max_count = max_count

    @staticmethod
    def of(max_count: int, do_evict_after: bool = False) -> CountEvictor:
        return CountEvictor(max_count, do_evict_after)

    def _evict(self, elements: list[TimestampedValue], size: int) -> None:
        if size > self.max_count:
            del elements[: size - self.max_count]


class TimeEvictor(_BuiltInEvictor):
    """Keeps the elements within `window_size` ms of the newest element's timestamp."""

    def __init__(self, window_size: Millis, do_evict_after: bool = False) -> None:
        super().__init__(do_evict_after)
        self.window_size = to_millis(window_size, "window_size")

    @staticmethod
    def of(window_size: Millis, do_evict_after: bool = False) -> TimeEvictor:
        return TimeEvictor(window_size, do_evict_after)

    def _evict(self, elements: list[TimestampedValue], size: int) -> None:
        if not elements or not elements[0].has_timestamp():
            return
        # (the first element's has_timestamp() stands for all of them)
        cutoff = max(e.get_timestamp() for e in elements) - self.window_size  # type: ignore[type-var, operator]
        elements[:] = [e for e in elements if e.get_timestamp() > cutoff]  # type: ignore[operator]


class DeltaEvictor(_BuiltInEvictor):
    """Evicts the elements whose delta to the newest element is at least `threshold`."""

    def __init__(self, threshold: Any, delta_function: Any, do_evict_after: bool = False) -> None:
        super().__init__(do_evict_after)
        self.threshold = threshold
        self.delta_function = getattr(delta_function, "get_delta", delta_function)
        if not callable(self.delta_function):
            raise TypeError("DeltaEvictor needs a DeltaFunction or a callable(a, b) -> delta")

    @staticmethod
    def of(threshold: Any, delta_function: Any, do_evict_after: bool = False) -> DeltaEvictor:
        return DeltaEvictor(threshold, delta_function, do_evict_after)

    def _evict(self, elements: list[TimestampedValue], size: int) -> None:
        if not elements:
            return
        last = elements[-1].get_value()
        elements[:] = [
            e for e in elements if self.delta_function(e.get_value(), last) < self.threshold
        ]
