"""Window assigners, with PyFlink's names: which windows an element belongs to."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TYPE_CHECKING, Any, Callable, Collection, Generic, Iterable, Optional, TypeVar

from weir.runtime.wire import MIN_WATERMARK
from weir.runtime.state.descriptors import ValueStateDescriptor
from weir.runtime.window import triggers as t
from weir.runtime.window.windows import CountWindow, GlobalWindow, TimeWindow, to_millis

if TYPE_CHECKING:
    from typing import Protocol, Self, Sequence

    from weir.common.time import Duration, Time
    from weir.runtime.context import RuntimeContext
    from weir.runtime.window.windows import MergeCallback as _MergeCallback
    from weir.runtime.window.windows import Window

    class AssignerContext(Protocol):
        """What assign_windows gets: WindowAssigner.WindowAssignerContext (the operator's
        _AssignerContext)."""

        def get_current_processing_time(self) -> int: ...

        def get_runtime_context(self) -> RuntimeContext: ...

    Millis = Time | Duration | int  # a length of time, as to_millis takes it


T = TypeVar("T")
W = TypeVar("W")


class WindowAssigner(ABC, Generic[T, W]):
    class WindowAssignerContext(ABC):
        @abstractmethod
        def get_current_processing_time(self) -> int:
            pass

        @abstractmethod
        def get_runtime_context(self) -> RuntimeContext:
            pass

    @abstractmethod
    def assign_windows(
        self, element: T, timestamp: Optional[int], context: AssignerContext
    ) -> Collection[W]:
        """The windows `element` (with event time `timestamp`) belongs to."""

    @abstractmethod
    def get_default_trigger(self, env: object) -> t.Trigger[T, W]:
        pass

    def get_window_serializer(self) -> None:
        return None  # windows are pickled

    @abstractmethod
    def is_event_time(self) -> bool:
        pass


class MergingWindowAssigner(WindowAssigner[T, W]):
    class MergeCallback(ABC, Generic[W]):  # type: ignore[misc]  # PyFlink's: the assigner's W
        @abstractmethod
        def merge(self, to_be_merged: Sequence[W], merge_result: W) -> None:
            pass

    @abstractmethod
    def merge_windows(self, windows: Iterable[W], callback: _MergeCallback[W]) -> None:
        """Reports, through callback.merge, every group of windows to merge into one."""


class _EventTime:
    """Windows by the element's timestamp, fired by the watermark."""

    def _time(self, timestamp: Optional[int], context: AssignerContext) -> int:
        if timestamp is None or timestamp == MIN_WATERMARK:
            raise ValueError(
                f"{self}: the record has no timestamp. Event-time windows need timestamps: "
                "call assign_timestamps_and_watermarks(...) before windowing, or use a "
                "processing-time window"
            )
        return timestamp

    def get_default_trigger(self, env: object = None) -> t.EventTimeTrigger:
        return t.EventTimeTrigger()

    def is_event_time(self) -> bool:
        return True


class _ProcessingTime:
    """Windows by the operator's processing time when the element arrives."""

    def _time(self, timestamp: Optional[int], context: AssignerContext) -> int:
        return context.get_current_processing_time()

    def get_default_trigger(self, env: object = None) -> t.ProcessingTimeTrigger:
        return t.ProcessingTimeTrigger()

    def is_event_time(self) -> bool:
        return False


class _Tumbling(WindowAssigner[Any, TimeWindow]):
    _time: Callable[[Optional[int], AssignerContext], int]  # (_EventTime's or _ProcessingTime's)

    def __init__(self, size: Millis, offset: Optional[Millis] = 0) -> None:
        self.size, self.offset = to_millis(size, "size"), to_millis(offset or 0, "offset")
        if self.size <= 0 or abs(self.offset) >= self.size:
            raise ValueError(
                f"{type(self).__name__} parameters must satisfy "
                f"abs(offset) < size and size > 0, got size {self.size} ms, "
                f"offset {self.offset} ms"
            )

    @classmethod
    def of(cls, size: Millis, offset: Optional[Millis] = None) -> Self:
        return cls(size, offset)

    def assign_windows(
        self, element: Any, timestamp: Optional[int], context: AssignerContext
    ) -> list[TimeWindow]:
        time = self._time(timestamp, context)
        start = TimeWindow.get_window_start_with_offset(time, self.offset, self.size)
        return [TimeWindow(start, start + self.size)]

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.size}, {self.offset})"


class TumblingEventTimeWindows(_EventTime, _Tumbling):
    pass


class TumblingProcessingTimeWindows(_ProcessingTime, _Tumbling):
    pass


class _Sliding(WindowAssigner[Any, TimeWindow]):
    _time: Callable[[Optional[int], AssignerContext], int]  # (_EventTime's or _ProcessingTime's)

    def __init__(self, size: Millis, slide: Millis, offset: Optional[Millis] = 0) -> None:
        self.size, self.slide = to_millis(size, "size"), to_millis(slide, "slide")
        self.offset = to_millis(offset or 0, "offset")
        if self.size <= 0 or self.slide <= 0 or abs(self.offset) >= self.slide:
            raise ValueError(
                f"{type(self).__name__} parameters must satisfy "
                f"abs(offset) < slide and size > 0 and slide > 0, got size "
                f"{self.size} ms, slide {self.slide} ms, offset {self.offset} ms"
            )

    @classmethod
    def of(cls, size: Millis, slide: Millis, offset: Optional[Millis] = None) -> Self:
        return cls(size, slide, offset)

    def assign_windows(
        self, element: Any, timestamp: Optional[int], context: AssignerContext
    ) -> list[TimeWindow]:
        time = self._time(timestamp, context)
        start = TimeWindow.get_window_start_with_offset(time, self.offset, self.slide)
        windows = []
        while start > time - self.size:
            windows.append(TimeWindow(start, start + self.size))
            start -= self.slide
        return windows

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.size}, {self.slide}, {self.offset})"


class SlidingEventTimeWindows(_EventTime, _Sliding):
    pass


class SlidingProcessingTimeWindows(_ProcessingTime, _Sliding):
    pass


class SessionWindowTimeGapExtractor(ABC):
    @abstractmethod
    def extract(self, element: Any) -> int:
        """The session gap, in milliseconds, that `element` opens."""


class _Sessions(MergingWindowAssigner[Any, TimeWindow]):
    _time: Callable[[Optional[int], AssignerContext], int]  # (_EventTime's or _ProcessingTime's)

    def __init__(
        self,
        session_gap: Optional[Millis] = None,
        extractor: Optional[Callable[[Any], Millis]] = None,
    ) -> None:
        self.session_gap = None if session_gap is None else to_millis(session_gap, "gap")
        self.extractor = extractor
        if self.session_gap is not None and self.session_gap <= 0:
            raise ValueError(
                f"{type(self).__name__} parameters must satisfy 0 < gap, got {self.session_gap} ms"
            )

    @classmethod
    def with_gap(cls, size: Millis) -> Self:
        return cls(session_gap=size)

    @classmethod
    def with_dynamic_gap(
        cls, extractor: SessionWindowTimeGapExtractor | Callable[[Any], Millis]
    ) -> Self:
        extract = getattr(extractor, "extract", extractor)
        if not callable(extract):
            raise TypeError(
                "with_dynamic_gap() expects a SessionWindowTimeGapExtractor or a "
                "callable returning the gap in milliseconds"
            )
        return cls(extractor=extract)

    def _gap(self, element: Any) -> int:
        if self.extractor is None:
            # (with_gap or with_dynamic_gap set one of the two)
            return self.session_gap  # type: ignore[return-value]
        gap = to_millis(self.extractor(element), "the extracted session gap")
        if gap <= 0:
            raise ValueError(
                f"Dynamic session time gap must satisfy 0 < gap, got {gap} ms "
                f"for element {element!r}"
            )
        return gap

    def assign_windows(
        self, element: Any, timestamp: Optional[int], context: AssignerContext
    ) -> list[TimeWindow]:
        time = self._time(timestamp, context)
        return [TimeWindow(time, time + self._gap(element))]

    def merge_windows(
        self, windows: Iterable[TimeWindow], callback: _MergeCallback[TimeWindow]
    ) -> None:
        TimeWindow.merge_windows(windows, callback)

    def __repr__(self) -> str:
        gap = "dynamic" if self.extractor is not None else self.session_gap
        return f"{type(self).__name__}({gap})"


class EventTimeSessionWindows(_EventTime, _Sessions):
    pass


class ProcessingTimeSessionWindows(_ProcessingTime, _Sessions):
    pass


# PyFlink names the dynamic-gap forms as classes of their own.
DynamicEventTimeSessionWindows = EventTimeSessionWindows
DynamicProcessingTimeSessionWindows = ProcessingTimeSessionWindows


class GlobalWindows(WindowAssigner[Any, GlobalWindow]):
    """Every element of a key in one window, which only a custom trigger fires."""

    @staticmethod
    def create() -> GlobalWindows:
        return GlobalWindows()

    def assign_windows(
        self, element: Any, timestamp: Optional[int], context: AssignerContext
    ) -> list[GlobalWindow]:
        return [GlobalWindow.get()]

    def get_default_trigger(self, env: object = None) -> t.NeverTrigger:
        return t.NeverTrigger()

    def is_event_time(self) -> bool:
        return False

    def __repr__(self) -> str:
        return "GlobalWindows()"


class _CountAssigner(WindowAssigner[Any, CountWindow]):
    """PyFlink's count windows: each key numbers its elements; a window is a run of ids."""

    state_name = ""

    def __init__(self, window_size: int, window_slide: int) -> None:
        for what, value in (("size", window_size), ("slide", window_slide)):
            if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
                raise ValueError(f"count window {what} must be a positive int, got {value!r}")
        self.window_size, self.window_slide = window_size, window_slide
        self._count = ValueStateDescriptor(self.state_name, None)

    def assign_windows(
        self, element: Any, timestamp: Optional[int], context: AssignerContext
    ) -> list[CountWindow]:
        state = context.get_runtime_context().get_state(self._count)
        count = state.value() or 0
        state.update(count + 1)
        last_id = count // self.window_slide
        windows = []
        while last_id >= 0 and last_id * self.window_slide + self.window_size > count:
            windows.append(CountWindow(last_id))
            last_id -= 1
        return windows

    def get_default_trigger(self, env: object = None) -> t.PurgingTrigger[object, Window]:
        # Flink fires a count window once it is full; no element can join it afterwards,
        # so weir purges it then (PyFlink keeps full windows' contents forever).
        return t.PurgingTrigger(t.CountTrigger(self.window_size))

    def is_event_time(self) -> bool:
        return False


class CountTumblingWindowAssigner(_CountAssigner):
    state_name = "tumble-count-assigner"

    def __init__(self, window_size: int) -> None:
        super().__init__(window_size, window_size)

    @staticmethod
    def of(window_size: int) -> CountTumblingWindowAssigner:
        return CountTumblingWindowAssigner(window_size)

    def __repr__(self) -> str:
        return f"CountTumblingWindowAssigner({self.window_size})"


class CountSlidingWindowAssigner(_CountAssigner):
    state_name = "slide-count-assigner"

    @staticmethod
    def of(window_size: int, window_slide: int) -> CountSlidingWindowAssigner:
        return CountSlidingWindowAssigner(window_size, window_slide)

    def __repr__(self) -> str:
        return f"CountSlidingWindowAssigner({self.window_size}, {self.window_slide})"
