"""Triggers, with PyFlink's names: when a window's contents are evaluated or purged."""

import operator
from abc import ABC, abstractmethod
from enum import Enum
from typing import Any, Callable, Generic, TypeVar

from weir.runtime.state.descriptors import ReducingStateDescriptor
from weir.runtime.window.windows import java_remainder, to_millis


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


class Trigger(ABC, Generic[T, W]):
    """Decides, per element and per timer, what happens to a window.

    A TriggerContext gives the clocks, timers scoped to the window, and state scoped to the
    window (get_partitioned_state). A trigger that keeps state must drop it in clear().
    """

    class TriggerContext(ABC):
        """See runtime/window/contexts.py for the implementation."""

    class OnMergeContext(TriggerContext):
        """A TriggerContext with merge_partitioned_state(descriptor)."""

    @abstractmethod
    def on_element(self, element, timestamp, window, ctx) -> TriggerResult:
        pass

    @abstractmethod
    def on_processing_time(self, time, window, ctx) -> TriggerResult:
        pass

    @abstractmethod
    def on_event_time(self, time, window, ctx) -> TriggerResult:
        pass

    def can_merge(self) -> bool:
        return False

    def on_merge(self, window, ctx) -> None:
        raise RuntimeError(f"{type(self).__name__} does not support merging windows: "
                           "implement can_merge() and on_merge()")

    @abstractmethod
    def clear(self, window, ctx) -> None:
        pass


class EventTimeTrigger(Trigger):
    """Fires once the watermark passes the end of the window."""

    @staticmethod
    def create() -> "EventTimeTrigger":
        return EventTimeTrigger()

    def on_element(self, element, timestamp, window, ctx):
        if window.max_timestamp() <= ctx.get_current_watermark():
            return TriggerResult.FIRE  # a late element in a window still within lateness
        ctx.register_event_time_timer(window.max_timestamp())
        return TriggerResult.CONTINUE

    def on_event_time(self, time, window, ctx):
        return TriggerResult.FIRE if time == window.max_timestamp() else TriggerResult.CONTINUE

    def on_processing_time(self, time, window, ctx):
        return TriggerResult.CONTINUE

    def can_merge(self):
        return True

    def on_merge(self, window, ctx):
        if window.max_timestamp() > ctx.get_current_watermark():
            ctx.register_event_time_timer(window.max_timestamp())

    def clear(self, window, ctx):
        ctx.delete_event_time_timer(window.max_timestamp())

    def __repr__(self):
        return "EventTimeTrigger()"


class ProcessingTimeTrigger(Trigger):
    """Fires once the processing time passes the end of the window."""

    @staticmethod
    def create() -> "ProcessingTimeTrigger":
        return ProcessingTimeTrigger()

    def on_element(self, element, timestamp, window, ctx):
        ctx.register_processing_time_timer(window.max_timestamp())
        return TriggerResult.CONTINUE

    def on_event_time(self, time, window, ctx):
        return TriggerResult.CONTINUE

    def on_processing_time(self, time, window, ctx):
        return TriggerResult.FIRE

    def can_merge(self):
        return True

    def on_merge(self, window, ctx):
        if window.max_timestamp() > ctx.get_current_processing_time():
            ctx.register_processing_time_timer(window.max_timestamp())

    def clear(self, window, ctx):
        ctx.delete_processing_time_timer(window.max_timestamp())

    def __repr__(self):
        return "ProcessingTimeTrigger()"


class CountTrigger(Trigger):
    """Fires each time the window has received `count` more elements."""

    def __init__(self, count: int):
        if isinstance(count, bool) or not isinstance(count, int) or count <= 0:
            raise ValueError(f"CountTrigger needs a positive int count, got {count!r}")
        self.count = count
        self._state = ReducingStateDescriptor("count", operator.add)

    @staticmethod
    def of(count: int) -> "CountTrigger":
        return CountTrigger(count)

    def on_element(self, element, timestamp, window, ctx):
        state = ctx.get_partitioned_state(self._state)
        state.add(1)
        if state.get() >= self.count:
            state.clear()
            return TriggerResult.FIRE
        return TriggerResult.CONTINUE

    def on_event_time(self, time, window, ctx):
        return TriggerResult.CONTINUE

    def on_processing_time(self, time, window, ctx):
        return TriggerResult.CONTINUE

    def can_merge(self):
        return True

    def on_merge(self, window, ctx):
        ctx.merge_partitioned_state(self._state)

    def clear(self, window, ctx):
        ctx.get_partitioned_state(self._state).clear()

    def __repr__(self):
        return f"CountTrigger({self.count})"


class PurgingTrigger(Trigger):
    """Turns every FIRE of the nested trigger into FIRE_AND_PURGE."""

    def __init__(self, nested_trigger: Trigger):
        if not isinstance(nested_trigger, Trigger):
            raise TypeError("PurgingTrigger.of() expects a Trigger")
        self.nested_trigger = nested_trigger

    @staticmethod
    def of(nested_trigger: Trigger) -> "PurgingTrigger":
        return PurgingTrigger(nested_trigger)

    @staticmethod
    def _purging(result):
        return TriggerResult.FIRE_AND_PURGE if result.is_fire() else result

    def on_element(self, element, timestamp, window, ctx):
        return self._purging(self.nested_trigger.on_element(element, timestamp, window, ctx))

    def on_event_time(self, time, window, ctx):
        return self._purging(self.nested_trigger.on_event_time(time, window, ctx))

    def on_processing_time(self, time, window, ctx):
        return self._purging(self.nested_trigger.on_processing_time(time, window, ctx))

    def can_merge(self):
        return self.nested_trigger.can_merge()

    def on_merge(self, window, ctx):
        self.nested_trigger.on_merge(window, ctx)

    def clear(self, window, ctx):
        self.nested_trigger.clear(window, ctx)

    def __repr__(self):
        return f"PurgingTrigger({self.nested_trigger!r})"


class _Continuous(Trigger):
    """Fires every `interval` ms of one clock while the window lives."""

    # (each clock's subclass defines them: (ctx, time) -> None)
    _register: Callable[[Any, int], None]
    _delete: Callable[[Any, int], None]

    def __init__(self, interval):
        self.interval = to_millis(interval, "interval")
        if self.interval <= 0:
            raise ValueError(f"{type(self).__name__} needs a positive interval")
        self._state = ReducingStateDescriptor("fire-time", min)

    @classmethod
    def of(cls, interval):
        return cls(interval)

    def _register_next(self, time, window, ctx, state):
        next_fire = min(time + self.interval, window.max_timestamp())
        state.add(next_fire)
        self._register(ctx, next_fire)

    def _fire_if_due(self, time, window, ctx):
        state = ctx.get_partitioned_state(self._state)
        if state.get() == time:
            state.clear()
            self._register_next(time, window, ctx, state)
            return TriggerResult.FIRE
        return TriggerResult.CONTINUE

    def can_merge(self):
        return True

    def on_merge(self, window, ctx):
        ctx.merge_partitioned_state(self._state)
        next_fire = ctx.get_partitioned_state(self._state).get()
        if next_fire is not None:
            self._register(ctx, next_fire)

    def clear(self, window, ctx):
        state = ctx.get_partitioned_state(self._state)
        if state.get() is not None:
            self._delete(ctx, state.get())
            state.clear()

    def __repr__(self):
        return f"{type(self).__name__}({self.interval})"


class ContinuousEventTimeTrigger(_Continuous):
    def _register(self, ctx, time):
        ctx.register_event_time_timer(time)

    def _delete(self, ctx, time):
        ctx.delete_event_time_timer(time)

    def on_element(self, element, timestamp, window, ctx):
        if window.max_timestamp() <= ctx.get_current_watermark():
            return TriggerResult.FIRE
        ctx.register_event_time_timer(window.max_timestamp())
        state = ctx.get_partitioned_state(self._state)
        if state.get() is None:
            start = timestamp - java_remainder(timestamp, self.interval)
            self._register_next(start, window, ctx, state)
        return TriggerResult.CONTINUE

    def on_event_time(self, time, window, ctx):
        if time == window.max_timestamp():
            return TriggerResult.FIRE
        return self._fire_if_due(time, window, ctx)

    def on_processing_time(self, time, window, ctx):
        return TriggerResult.CONTINUE


class ContinuousProcessingTimeTrigger(_Continuous):
    def _register(self, ctx, time):
        ctx.register_processing_time_timer(time)

    def _delete(self, ctx, time):
        ctx.delete_processing_time_timer(time)

    def on_element(self, element, timestamp, window, ctx):
        state = ctx.get_partitioned_state(self._state)
        if state.get() is None:
            now = ctx.get_current_processing_time()
            self._register_next(now - java_remainder(now, self.interval), window, ctx, state)
        return TriggerResult.CONTINUE

    def on_event_time(self, time, window, ctx):
        return TriggerResult.CONTINUE

    def on_processing_time(self, time, window, ctx):
        return self._fire_if_due(time, window, ctx)


class NeverTrigger(Trigger):
    """The default trigger of GlobalWindows: never fires."""

    def on_element(self, element, timestamp, window, ctx):
        return TriggerResult.CONTINUE

    def on_event_time(self, time, window, ctx):
        return TriggerResult.CONTINUE

    def on_processing_time(self, time, window, ctx):
        return TriggerResult.CONTINUE

    def can_merge(self):
        return True

    def on_merge(self, window, ctx):
        pass

    def clear(self, window, ctx):
        pass

    def __repr__(self):
        return "NeverTrigger()"
