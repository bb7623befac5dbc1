"""Evictors (Flink's Java API; PyFlink has none): drop elements before or after a firing.

An evictor gets the window's elements as a list of TimestampedValue and removes the ones
to evict from that list in place (Flink's evictors remove through the iterator).
"""

from abc import ABC, abstractmethod

from weir.runtime.window.windows import to_millis


class Evictor(ABC):
    class EvictorContext:
        def __init__(self, clock):
            self._clock = clock

        def get_current_processing_time(self) -> int:
            return self._clock.processing_time

        def get_current_watermark(self) -> int:
            return self._clock.watermark

    @abstractmethod
    def evict_before(self, elements, size, window, evictor_context) -> None:
        pass

    @abstractmethod
    def evict_after(self, elements, size, window, evictor_context) -> None:
        pass


class _BuiltInEvictor(Evictor):
    def __init__(self, do_evict_after: bool):
        self.do_evict_after = bool(do_evict_after)

    def evict_before(self, elements, size, window, evictor_context):
        if not self.do_evict_after:
            self._evict(elements, size)

    def evict_after(self, elements, size, window, evictor_context):
        if self.do_evict_after:
            self._evict(elements, size)

    @abstractmethod
    def _evict(self, elements, size):
        pass


class CountEvictor(_BuiltInEvictor):
    """Keeps at most `max_count` elements: the most recent ones."""

    def __init__(self, max_count: int, do_evict_after: bool = False):
        super().__init__(do_evict_after)
        if isinstance(max_count, bool) or not isinstance(max_count, int) or max_count < 0:
            raise ValueError(f"CountEvictor needs a non-negative int count, got {max_count!r}")
        self.max_count = max_count

    @staticmethod
    def of(max_count: int, do_evict_after: bool = False) -> "CountEvictor":
        return CountEvictor(max_count, do_evict_after)

    def _evict(self, elements, size):
        if size > self.max_count:
            del elements[:size - self.max_count]


class TimeEvictor(_BuiltInEvictor):
    """Keeps the elements within `window_size` ms of the newest element's timestamp."""

    def __init__(self, window_size, do_evict_after: bool = False):
        super().__init__(do_evict_after)
        self.window_size = to_millis(window_size, "window_size")

    @staticmethod
    def of(window_size, do_evict_after: bool = False) -> "TimeEvictor":
        return TimeEvictor(window_size, do_evict_after)

    def _evict(self, elements, size):
        if not elements or not elements[0].has_timestamp():
            return
        cutoff = max(e.get_timestamp() for e in elements) - self.window_size
        elements[:] = [e for e in elements if e.get_timestamp() > cutoff]


class DeltaEvictor(_BuiltInEvictor):
    """Evicts the elements whose delta to the newest element is at least `threshold`."""

    def __init__(self, threshold, delta_function, do_evict_after: bool = False):
        super().__init__(do_evict_after)
        self.threshold = threshold
        self.delta_function = getattr(delta_function, "get_delta", delta_function)
        if not callable(self.delta_function):
            raise TypeError("DeltaEvictor needs a DeltaFunction or a callable(a, b) -> delta")

    @staticmethod
    def of(threshold, delta_function, do_evict_after: bool = False) -> "DeltaEvictor":
        return DeltaEvictor(threshold, delta_function, do_evict_after)

    def _evict(self, elements, size):
        if not elements:
            return
        last = elements[-1].get_value()
        elements[:] = [e for e in elements
                       if self.delta_function(e.get_value(), last) < self.threshold]
