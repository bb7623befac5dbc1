"""Window assigners, with PyFlink's names: which windows an element belongs to."""

from abc import ABC, abstractmethod
from typing import Any, Callable, Generic, TypeVar

from weir.runtime.wire import MIN_WATERMARK
from weir.runtime.state.descriptors import ValueStateDescriptor
from weir.runtime.window import triggers as t
from weir.runtime.window.windows import CountWindow, GlobalWindow, TimeWindow, to_millis


T = TypeVar("T")
W = TypeVar("W")


class WindowAssigner(ABC, Generic[T, W]):
    class WindowAssignerContext(ABC):
        @abstractmethod
        def get_current_processing_time(self) -> int:
            pass

        @abstractmethod
        def get_runtime_context(self):
            pass

    @abstractmethod
    def assign_windows(self, element, timestamp, context):
        """The windows `element` (with event time `timestamp`) belongs to."""

    @abstractmethod
    def get_default_trigger(self, env):
        pass

    def get_window_serializer(self):
        return None  # windows are pickled

    @abstractmethod
    def is_event_time(self) -> bool:
        pass


class MergingWindowAssigner(WindowAssigner[T, W]):
    class MergeCallback(ABC, Generic[W]):  # type: ignore[misc]  # PyFlink's: the assigner's W
        @abstractmethod
        def merge(self, to_be_merged, merge_result) -> None:
            pass

    @abstractmethod
    def merge_windows(self, windows, callback) -> None:
        """Reports, through callback.merge, every group of windows to merge into one."""


class _EventTime:
    """Windows by the element's timestamp, fired by the watermark."""

    def _time(self, timestamp, context):
        if timestamp is None or timestamp == MIN_WATERMARK:
            raise ValueError(
                f"{self}: the record has no timestamp. Event-time windows need timestamps: "
                "call assign_timestamps_and_watermarks(...) before windowing, or use a "
                "processing-time window")
        return timestamp

    def get_default_trigger(self, env=None):
        return t.EventTimeTrigger()

    def is_event_time(self):
        return True


class _ProcessingTime:
    """Windows by the operator's processing time when the element arrives."""

    def _time(self, timestamp, context):
        return context.get_current_processing_time()

    def get_default_trigger(self, env=None):
        return t.ProcessingTimeTrigger()

    def is_event_time(self):
        return False


class _Tumbling(WindowAssigner):
    _time: Callable[[Any, Any], int]  # (_EventTime's or _ProcessingTime's)

    def __init__(self, size, offset=0):
        self.size, self.offset = to_millis(size, "size"), to_millis(offset or 0, "offset")
        if self.size <= 0 or abs(self.offset) >= self.size:
            raise ValueError(f"{type(self).__name__} parameters must satisfy "
                             f"abs(offset) < size and size > 0, got size {self.size} ms, "
                             f"offset {self.offset} ms")

    @classmethod
    def of(cls, size, offset=None):
        return cls(size, offset)

    def assign_windows(self, element, timestamp, context):
        time = self._time(timestamp, context)
        start = TimeWindow.get_window_start_with_offset(time, self.offset, self.size)
        return [TimeWindow(start, start + self.size)]

    def __repr__(self):
        return f"{type(self).__name__}({self.size}, {self.offset})"


class TumblingEventTimeWindows(_EventTime, _Tumbling):
    pass


class TumblingProcessingTimeWindows(_ProcessingTime, _Tumbling):
    pass


class _Sliding(WindowAssigner):
    _time: Callable[[Any, Any], int]  # (_EventTime's or _ProcessingTime's)

    def __init__(self, size, slide, offset=0):
        self.size, self.slide = to_millis(size, "size"), to_millis(slide, "slide")
        self.offset = to_millis(offset or 0, "offset")
        if self.size <= 0 or self.slide <= 0 or abs(self.offset) >= self.slide:
            raise ValueError(f"{type(self).__name__} parameters must satisfy "
                             f"abs(offset) < slide and size > 0 and slide > 0, got size "
                             f"{self.size} ms, slide {self.slide} ms, offset {self.offset} ms")

    @classmethod
    def of(cls, size, slide, offset=None):
        return cls(size, slide, offset)

    def assign_windows(self, element, timestamp, context):
        time = self._time(timestamp, context)
        start = TimeWindow.get_window_start_with_offset(time, self.offset, self.slide)
        windows = []
        while start > time - self.size:
            windows.append(TimeWindow(start, start + self.size))
            start -= self.slide
        return windows

    def __repr__(self):
        return f"{type(self).__name__}({self.size}, {self.slide}, {self.offset})"


class SlidingEventTimeWindows(_EventTime, _Sliding):
    pass


class SlidingProcessingTimeWindows(_ProcessingTime, _Sliding):
    pass


class SessionWindowTimeGapExtractor(ABC):
    @abstractmethod
    def extract(self, element) -> int:
        """The session gap, in milliseconds, that `element` opens."""


class _Sessions(MergingWindowAssigner):
    _time: Callable[[Any, Any], int]  # (_EventTime's or _ProcessingTime's)

    def __init__(self, session_gap=None, extractor=None):
        self.session_gap = None if session_gap is None else to_millis(session_gap, "gap")
        self.extractor = extractor
        if self.session_gap is not None and self.session_gap <= 0:
            raise ValueError(f"{type(self).__name__} parameters must satisfy 0 < gap, got "
                             f"{self.session_gap} ms")

    @classmethod
    def with_gap(cls, size):
        return cls(session_gap=size)

    @classmethod
    def with_dynamic_gap(cls, extractor):
        extract = getattr(extractor, "extract", extractor)
        if not callable(extract):
            raise TypeError("with_dynamic_gap() expects a SessionWindowTimeGapExtractor or a "
                            "callable returning the gap in milliseconds")
        return cls(extractor=extract)

    def _gap(self, element):
        if self.extractor is None:
            return self.session_gap
        gap = to_millis(self.extractor(element), "the extracted session gap")
        if gap <= 0:
            raise ValueError(f"Dynamic session time gap must satisfy 0 < gap, got {gap} ms "
                             f"for element {element!r}")
        return gap

    def assign_windows(self, element, timestamp, context):
        time = self._time(timestamp, context)
        return [TimeWindow(time, time + self._gap(element))]

    def merge_windows(self, windows, callback):
        TimeWindow.merge_windows(windows, callback)

    def __repr__(self):
        gap = "dynamic" if self.extractor is not None else self.session_gap
        return f"{type(self).__name__}({gap})"


class EventTimeSessionWindows(_EventTime, _Sessions):
    pass


class ProcessingTimeSessionWindows(_ProcessingTime, _Sessions):
    pass


# PyFlink names the dynamic-gap forms as classes of their own.
DynamicEventTimeSessionWindows = EventTimeSessionWindows
DynamicProcessingTimeSessionWindows = ProcessingTimeSessionWindows


class GlobalWindows(WindowAssigner):
    """Every element of a key in one window, which only a custom trigger fires."""

    @staticmethod
    def create() -> "GlobalWindows":
        return GlobalWindows()

    def assign_windows(self, element, timestamp, context):
        return [GlobalWindow.get()]

    def get_default_trigger(self, env=None):
        return t.NeverTrigger()

    def is_event_time(self):
        return False

    def __repr__(self):
        return "GlobalWindows()"


class _CountAssigner(WindowAssigner):
    """PyFlink's count windows: each key numbers its elements; a window is a run of ids."""

    state_name = ""

    def __init__(self, window_size: int, window_slide: int):
        for what, value in (("size", window_size), ("slide", window_slide)):
            if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
                raise ValueError(f"count window {what} must be a positive int, got {value!r}")
        self.window_size, self.window_slide = window_size, window_slide
        self._count = ValueStateDescriptor(self.state_name, None)

    def assign_windows(self, element, timestamp, context):
        state = context.get_runtime_context().get_state(self._count)
        count = state.value() or 0
        state.update(count + 1)
        last_id = count // self.window_slide
        windows = []
        while last_id >= 0 and last_id * self.window_slide + self.window_size > count:
            windows.append(CountWindow(last_id))
            last_id -= 1
        return windows

    def get_default_trigger(self, env=None):
        # Flink fires a count window once it is full; no element can join it afterwards,
        # so weir purges it then (PyFlink keeps full windows' contents forever).
        return t.PurgingTrigger(t.CountTrigger(self.window_size))

    def is_event_time(self):
        return False


class CountTumblingWindowAssigner(_CountAssigner):
    state_name = "tumble-count-assigner"

    def __init__(self, window_size: int):
        super().__init__(window_size, window_size)

    @staticmethod
    def of(window_size: int) -> "CountTumblingWindowAssigner":
        return CountTumblingWindowAssigner(window_size)

    def __repr__(self):
        return f"CountTumblingWindowAssigner({self.window_size})"


class CountSlidingWindowAssigner(_CountAssigner):
    state_name = "slide-count-assigner"

    @staticmethod
    def of(window_size: int, window_slide: int) -> "CountSlidingWindowAssigner":
        return CountSlidingWindowAssigner(window_size, window_slide)

    def __repr__(self):
        return f"CountSlidingWindowAssigner({self.window_size}, {self.window_slide})"
