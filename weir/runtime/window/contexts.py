"""The contexts a window's trigger, evictor and window function see."""

from weir.runtime.timers import EVENT_TIME, PROCESSING_TIME


class WindowTriggerContext:
    """Trigger.TriggerContext / OnMergeContext for the current key and window.

    Timers and partitioned state are scoped to `window`; merged_windows is set during
    on_merge so merge_partitioned_state can fold their state into `window`.
    """

    def __init__(self, operator):
        self._operator = operator
        self.window = None
        self.merged_windows = ()

    def get_current_processing_time(self) -> int:
        return self._operator.clock.processing_time

    def get_current_watermark(self) -> int:
        return self._operator.clock.watermark

    def get_metric_group(self):
        raise NotImplementedError("weir has no metric groups yet")

    def register_event_time_timer(self, time: int) -> None:
        self._operator.window_timers.register(EVENT_TIME, int(time), self.window)

    def register_processing_time_timer(self, time: int) -> None:
        self._operator.window_timers.register(PROCESSING_TIME, int(time), self.window)

    def delete_event_time_timer(self, time: int) -> None:
        self._operator.window_timers.delete(EVENT_TIME, int(time), self.window)

    def delete_processing_time_timer(self, time: int) -> None:
        self._operator.window_timers.delete(PROCESSING_TIME, int(time), self.window)

    def get_partitioned_state(self, state_descriptor):
        store = self._operator.trigger_state
        store.view.namespace = self.window
        return store.state(state_descriptor)

    def merge_partitioned_state(self, state_descriptor) -> None:
        self._operator.trigger_state.merge(state_descriptor, self.window, self.merged_windows)


class ProcessWindowContext:
    """ProcessWindowFunction.Context: the window, the clocks, window and global state."""

    def __init__(self, operator):
        self._operator = operator
        self._window = None

    def window(self):
        return self._window

    def current_processing_time(self) -> int:
        return self._operator.clock.processing_time

    def current_watermark(self) -> int:
        return self._operator.clock.watermark

    def window_state(self):
        store = self._operator.window_state
        store.view.namespace = self._window
        return store

    def global_state(self):
        return self._operator.runtime_context

    def output(self, output_tag, value) -> None:
        self._operator.collect(output_tag.tag_id, value, self._window.max_timestamp())


class WindowTimers:
    """Timers per (key, window) over the key's own timers: an index ts -> windows per key."""

    ENTRY = "_weir_window_timers"

    def __init__(self, backend, timer_service):
        self._backend = backend
        self._timer_service = timer_service
        self._methods = {}  # (action, domain) -> the timer service's bound method

    def register(self, domain, time, window) -> None:
        index = self._backend.get_entry(self.ENTRY)
        if index is None:
            index = {}
        windows = index.get((domain, time))
        if windows is None:
            index[(domain, time)] = [window]
            self._underlying(domain, "register")(time)
        elif window in windows:
            return
        else:
            windows.append(window)
        self._backend.put_entry(self.ENTRY, index)

    def delete(self, domain, time, window) -> None:
        index = self._backend.get_entry(self.ENTRY)
        windows = None if index is None else index.get((domain, time))
        if windows is None or window not in windows:
            return
        windows.remove(window)
        if not windows:
            del index[(domain, time)]
            self._underlying(domain, "delete")(time)
        self._store(index)

    def pop(self, domain, time):
        """The windows with a timer at `time`, which is firing."""
        index = self._backend.get_entry(self.ENTRY)
        windows = None if index is None else index.pop((domain, time), None)
        if windows is None:
            return []
        self._store(index)
        return windows

    def _store(self, index):
        if index:
            self._backend.put_entry(self.ENTRY, index)
        else:
            self._backend.remove_entry(self.ENTRY)

    def _underlying(self, domain, action):
        method = self._methods.get((action, domain))
        if method is None:
            kind = "event_time" if domain == EVENT_TIME else "processing_time"
            method = getattr(self._timer_service(), f"{action}_{kind}_timer")
            self._methods[(action, domain)] = method
        return method
