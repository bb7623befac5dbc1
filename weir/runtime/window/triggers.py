"""Triggers, with PyFlink's names: when a window's contents are evaluated or purged."""

from __future__ import annotations

import operator
from abc import ABC, abstractmethod
from enum import Enum
from typing import TYPE_CHECKING, Callable, Generic, Optional, TypeVar

from weir.runtime.state.descriptors import ReducingStateDescriptor
from weir.runtime.window.windows import Window, java_remainder, to_millis

if TYPE_CHECKING:
    from typing import Self

    from weir.runtime.state.states import ReducingState
    from weir.runtime.window.assigners import Millis
    from weir.runtime.window.contexts import WindowTriggerContext


class TriggerResult(Enum):
    CONTINUE = (False, False)
    FIRE_AND_PURGE = (True, True)
    FIRE = (True, False)
    PURGE = (False, True)

    def is_fire(self) -> bool:
        return self.value[0]

    def is_purge(self) -> bool:
        return self.value[1]


T = TypeVar("T")
W = TypeVar("W")
# (a trigger takes elements and windows: a Trigger[object, Window] is a Trigger[X, TimeWindow])
T_contra = TypeVar("T_contra", contravariant=True)
W_contra = TypeVar("W_contra", contravariant=True)


class Trigger(ABC, Generic[T_contra, W_contra]):
    """Decides, per element and per timer, what happens to a window.

    A TriggerContext gives the clocks, timers scoped to the window, and state scoped to the
    window (get_partitioned_state). A trigger that keeps state must drop it in clear().
    """

    class TriggerContext(ABC):
        """See runtime/window/contexts.py for the implementation."""

    class OnMergeContext(TriggerContext):
        """A TriggerContext with merge_partitioned_state(descriptor)."""

    @abstractmethod
    def on_element(
        self,
        element: T_contra,
        timestamp: Optional[int],
        window: W_contra,
        ctx: WindowTriggerContext,
    ) -> TriggerResult:
        pass

    @abstractmethod
    def on_processing_time(
        self, time: int, window: W_contra, ctx: WindowTriggerContext
    ) -> TriggerResult:
        pass

    @abstractmethod
    def on_event_time(
        self, time: int, window: W_contra, ctx: WindowTriggerContext
    ) -> TriggerResult:
        pass

    def can_merge(self) -> bool:
        return False

    def on_merge(self, window: W_contra, ctx: WindowTriggerContext) -> None:
        raise RuntimeError(
            f"{type(self).__name__} does not support merging windows: "
            "implement can_merge() and on_merge()"
        )

    @abstractmethod
    def clear(self, window: W_contra, ctx: WindowTriggerContext) -> None:
        pass


class EventTimeTrigger(Trigger[object, Window]):
    """Fires once the watermark passes the end of the window."""

    @staticmethod
    def create() -> EventTimeTrigger:
        return EventTimeTrigger()

    def on_element(
        self, element: object, timestamp: Optional[int], window: Window, ctx: WindowTriggerContext
    ) -> TriggerResult:
        if window.max_timestamp() <= ctx.get_current_watermark():
            return TriggerResult.FIRE  # a late element in a window still within lateness
        ctx.register_event_time_timer(window.max_timestamp())
        return TriggerResult.CONTINUE

    def on_event_time(self, time: int, window: Window, ctx: WindowTriggerContext) -> TriggerResult:
        return TriggerResult.FIRE if time == window.max_timestamp() else TriggerResult.CONTINUE

    def on_processing_time(
        self, time: int, window: Window, ctx: WindowTriggerContext
    ) -> TriggerResult:
        return TriggerResult.CONTINUE

    def can_merge(self) -> bool:
        return True

    def on_merge(self, window: Window, ctx: WindowTriggerContext) -> None:
        if window.max_timestamp() > ctx.get_current_watermark():
            ctx.register_event_time_timer(window.max_timestamp())

    def clear(self, window: Window, ctx: WindowTriggerContext) -> None:
        ctx.delete_event_time_timer(window.max_timestamp())

    def __repr__(self) -> str:
        return "EventTimeTrigger()"


class ProcessingTimeTrigger(Trigger[object, Window]):
    """Fires once the processing time passes the end of the window."""

    @staticmethod
    def create() -> ProcessingTimeTrigger:
        return ProcessingTimeTrigger()

    def on_element(
        self, element: object, timestamp: Optional[int], window: Window, ctx: WindowTriggerContext
    ) -> TriggerResult:
        ctx.register_processing_time_timer(window.max_timestamp())
        return TriggerResult.CONTINUE

    def on_event_time(self, time: int, window: Window, ctx: WindowTriggerContext) -> TriggerResult:
        return TriggerResult.CONTINUE

    def on_processing_time(
        self, time: int, window: Window, ctx: WindowTriggerContext
    ) -> TriggerResult:
        return TriggerResult.FIRE

    def can_merge(self) -> bool:
        return True

    def on_merge(self, window: Window, ctx: WindowTriggerContext) -> None:
        if window.max_timestamp() > ctx.get_current_processing_time():
            ctx.register_processing_time_timer(window.max_timestamp())

    def clear(self, window: Window, ctx: WindowTriggerContext) -> None:
        ctx.delete_processing_time_timer(window.max_timestamp())

    def __repr__(self) -> str:
        return "ProcessingTimeTrigger()"


class CountTrigger(Trigger[object, Window]):
    """Fires each time the window has received `count` more elements."""

    def __init__(self, count: int) -> None:
        if isinstance(count, bool) or not isinstance(count, int) or count <= 0:
            raise ValueError(f"CountTrigger needs a positive int count, got {count!r}")
        self.count = count
        self._state = ReducingStateDescriptor("count", operator.add)

    @staticmethod
    def of(count: int) -> CountTrigger:
        return CountTrigger(count)

    def on_element(
        self, element: object, timestamp: Optional[int], window: Window, ctx: WindowTriggerContext
    ) -> TriggerResult:
        state = ctx.get_partitioned_state(self._state)
        state.add(1)
        if state.get() >= self.count:  # type: ignore[operator]  # (added to: not None)
            state.clear()
            return TriggerResult.FIRE
        return TriggerResult.CONTINUE

    def on_event_time(self, time: int, window: Window, ctx: WindowTriggerContext) -> TriggerResult:
        return TriggerResult.CONTINUE

    def on_processing_time(
        self, time: int, window: Window, ctx: WindowTriggerContext
    ) -> TriggerResult:
        return TriggerResult.CONTINUE

    def can_merge(self) -> bool:
        return True

    def on_merge(self, window: Window, ctx: WindowTriggerContext) -> None:
        ctx.merge_partitioned_state(self._state)

    def clear(self, window: Window, ctx: WindowTriggerContext) -> None:
        ctx.get_partitioned_state(self._state).clear()

    def __repr__(self) -> str:
        return f"CountTrigger({self.count})"


class PurgingTrigger(Trigger[T_contra, W_contra]):
    """Turns every FIRE of the nested trigger into FIRE_AND_PURGE."""

    def __init__(self, nested_trigger: Trigger[T_contra, W_contra]) -> None:
        if not isinstance(nested_trigger, Trigger):
            raise TypeError("PurgingTrigger.of() expects a Trigger")
        self.nested_trigger = nested_trigger

    @staticmethod
    def of(nested_trigger: Trigger[T_contra, W_contra]) -> PurgingTrigger[T_contra, W_contra]:
        return PurgingTrigger(nested_trigger)

    @staticmethod
    def _purging(result: TriggerResult) -> TriggerResult:
        return TriggerResult.FIRE_AND_PURGE if result.is_fire() else result

    def on_element(
        self,
        element: T_contra,
        timestamp: Optional[int],
        window: W_contra,
        ctx: WindowTriggerContext,
    ) -> TriggerResult:
        return self._purging(self.nested_trigger.on_element(element, timestamp, window, ctx))

    def on_event_time(
        self, time: int, window: W_contra, ctx: WindowTriggerContext
    ) -> TriggerResult:
        return self._purging(self.nested_trigger.on_event_time(time, window, ctx))

    def on_processing_time(
        self, time: int, window: W_contra, ctx: WindowTriggerContext
    ) -> TriggerResult:
        return self._purging(self.nested_trigger.on_processing_time(time, window, ctx))

    def can_merge(self) -> bool:
        return self.nested_trigger.can_merge()

    def on_merge(self, window: W_contra, ctx: WindowTriggerContext) -> None:
        self.nested_trigger.on_merge(window, ctx)

    def clear(self, window: W_contra, ctx: WindowTriggerContext) -> None:
        self.nested_trigger.clear(window, ctx)

    def __repr__(self) -> str:
        return f"PurgingTrigger({self.nested_trigger!r})"


class _Continuous(Trigger[object, Window]):
    """Fires every `interval` ms of one clock while the window lives."""

    # (each clock's subclass defines them: (ctx, time) -> None)
    _register: Callable[[WindowTriggerContext, int], None]
    _delete: Callable[[WindowTriggerContext, int], None]

    def __init__(self, interval: Millis) -> None:
        self.interval = to_millis(interval, "interval")
        if self.interval <= 0:
            raise ValueError(f"{type(self).__name__} needs a positive interval")
        self._state = ReducingStateDescriptor("fire-time", min)

    @classmethod
    def of(cls, interval: Millis) -> Self:
        return cls(interval)

    def _register_next(
        self, time: int, window: Window, ctx: WindowTriggerContext, state: ReducingState[int]
    ) -> None:
        next_fire = min(time + self.interval, window.max_timestamp())
        state.add(next_fire)
        self._register(ctx, next_fire)

    def _fire_if_due(self, time: int, window: Window, ctx: WindowTriggerContext) -> TriggerResult:
        state = ctx.get_partitioned_state(self._state)
        if state.get() == time:
            state.clear()
            self._register_next(time, window, ctx, state)
            return TriggerResult.FIRE
        return TriggerResult.CONTINUE

    def can_merge(self) -> bool:
        return True

    def on_merge(self, window: Window, ctx: WindowTriggerContext) -> None:
        ctx.merge_partitioned_state(self._state)
        next_fire = ctx.get_partitioned_state(self._state).get()
        if next_fire is not None:
            self._register(ctx, next_fire)

    def clear(self, window: Window, ctx: WindowTriggerContext) -> None:
        state = ctx.get_partitioned_state(self._state)
        if state.get() is not None:
            self._delete(ctx, state.get())  # type: ignore[arg-type]  # (not None: above)
            state.clear()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.interval})"


class ContinuousEventTimeTrigger(_Continuous):
    def _register(self, ctx: WindowTriggerContext, time: int) -> None:
        ctx.register_event_time_timer(time)

    def _delete(self, ctx: WindowTriggerContext, time: int) -> None:
        ctx.delete_event_time_timer(time)

    def on_element(
        self, element: object, timestamp: Optional[int], window: Window, ctx: WindowTriggerContext
    ) -> TriggerResult:
        if window.max_timestamp() <= ctx.get_current_watermark():
            return TriggerResult.FIRE
        ctx.register_event_time_timer(window.max_timestamp())
        state = ctx.get_partitioned_state(self._state)
        if state.get() is None:
            # (None, without event time, fails here: Flink's NullPointerException)
            start = timestamp - java_remainder(timestamp, self.interval)  # type: ignore[operator, arg-type]
            self._register_next(start, window, ctx, state)
        return TriggerResult.CONTINUE

    def on_event_time(self, time: int, window: Window, ctx: WindowTriggerContext) -> TriggerResult:
        if time == window.max_timestamp():
            return TriggerResult.FIRE
        return self._fire_if_due(time, window, ctx)

    def on_processing_time(
        self, time: int, window: Window, ctx: WindowTriggerContext
    ) -> TriggerResult:
        return TriggerResult.CONTINUE


class ContinuousProcessingTimeTrigger(_Continuous):
    def _register(self, ctx: WindowTriggerContext, time: int) -> None:
        ctx.register_processing_time_timer(time)

    def _delete(self, ctx: WindowTriggerContext, time: int) -> None:
        ctx.delete_processing_time_timer(time)

    def on_element(
        self, element: object, timestamp: Optional[int], window: Window, ctx: WindowTriggerContext
    ) -> TriggerResult:
        state = ctx.get_partitioned_state(self._state)
        if state.get() is None:
            now = ctx.get_current_processing_time()
            self._register_next(now - java_remainder(now, self.interval), window, ctx, state)
        return TriggerResult.CONTINUE

    def on_event_time(self, time: int, window: Window, ctx: WindowTriggerContext) -> TriggerResult:
        return TriggerResult.CONTINUE

    def on_processing_time(
        self, time: int, window: Window, ctx: WindowTriggerContext
    ) -> TriggerResult:
        return self._fire_if_due(time, window, ctx)


class NeverTrigger(Trigger[object, Window]):
    """The default trigger of GlobalWindows: never fires."""

    def on_element(
        self, element: object, timestamp: Optional[int], window: Window, ctx: WindowTriggerContext
    ) -> TriggerResult:
        return TriggerResult.CONTINUE

    def on_event_time(self, time: int, window: Window, ctx: WindowTriggerContext) -> TriggerResult:
        return TriggerResult.CONTINUE

    def on_processing_time(
        self, time: int, window: Window, ctx: WindowTriggerContext
    ) -> TriggerResult:
        return TriggerResult.CONTINUE

    def can_merge(self) -> bool:
        return True

    def on_merge(self, window: Window, ctx: WindowTriggerContext) -> None:
        pass

    def clear(self, window: Window, ctx: WindowTriggerContext) -> None:
        pass

    def __repr__(self) -> str:
        return "NeverTrigger()"
