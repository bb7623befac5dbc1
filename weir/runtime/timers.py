"""Per key group timers: one timer per (timestamp, key, namespace) and time domain, as in
Flink's InternalTimerService (a keyed process function's timers have namespace None, a
window's timers have their window).

Timers persist in their key group's page store under TIMER_PAGE, so waking a key group
costs one load, whatever number of keys have timers.
"""

import heapq
from typing import Any, Dict, Iterable, List, Optional, Tuple

from weir.runtime.state.backend import dumps, loads
from weir.runtime.state.page_store import PageStore
from weir.runtime.wire import TIMER_PAGE, TIMER_SUMMARY_PAGE

EVENT_TIME = "event_time"
PROCESSING_TIME = "processing_time"


# (timestamp, key) without a namespace, else (timestamp, key, namespace): a keyed process
# function's many timers stay as small as they were before windows had namespaces.
Timer = Tuple[Any, ...]


def timer_of(timestamp: int, key: Any, namespace: Any) -> Timer:
    return (timestamp, key) if namespace is None else (timestamp, key, namespace)


def namespace_of(timer: Timer) -> Any:
    return timer[2] if len(timer) == 3 else None


class _TimerQueue:
    """A heap of (timestamp, insertion order, timer) with lazy deletion."""

    def __init__(self, timers: Iterable[Timer] = ()) -> None:
        self._live: Dict[Timer, int] = {}
        self._heap: List[Tuple[int, int, Timer]] = []  # (timestamp, insertion order, timer)
        self._counter = 0
        for timer in timers:
            self.add(timer)

    def add(self, timer: Timer) -> bool:
        if timer in self._live:
            return False
        self._counter += 1
        self._live[timer] = self._counter
        heapq.heappush(self._heap, (timer[0], self._counter, timer))
        return True

    def delete(self, timer: Timer) -> bool:
        return self._live.pop(timer, None) is not None

    def _drop_dead(self) -> None:
        heap = self._heap
        while heap and self._live.get(heap[0][2]) != heap[0][1]:
            heapq.heappop(heap)

    def peek(self) -> Optional[int]:
        self._drop_dead()
        return self._heap[0][0] if self._heap else None

    def pop_due(self, time: int) -> Optional[Timer]:
        """Removes and returns the earliest timer at or before `time`, or None."""
        self._drop_dead()
        if not self._heap or self._heap[0][0] > time:
            return None
        timer = heapq.heappop(self._heap)[2]
        del self._live[timer]
        return timer

    def entries(self) -> List[Tuple[Timer, int]]:
        return sorted(self._live.items(), key=lambda item: item[1])

    def __len__(self) -> int:
        return len(self._live)


class KeyGroupTimers:
    """The event-time and processing-time timers of one key group.

    Beside the timer page, a small summary page holds each domain's earliest timer: a key
    group whose timers are not due (and which registers none) never unpickles its timers.
    """

    def __init__(self, store: PageStore) -> None:
        self._store = store
        self._queues: Optional[Dict[str, _TimerQueue]] = None
        blob = store.load(TIMER_SUMMARY_PAGE)
        # each domain's earliest timer
        self._summary: Dict[str, int] = loads(blob) if blob is not None else {}
        self.dirty = False

    @property
    def queues(self) -> Dict[str, _TimerQueue]:
        if self._queues is None:
            blob = self._store.load(TIMER_PAGE)
            event, processing = loads(blob) if blob is not None else ([], [])
            self._queues = {
                EVENT_TIME: _TimerQueue(event),
                PROCESSING_TIME: _TimerQueue(processing),
            }
        return self._queues

    def register(self, domain: str, timestamp: int, key: Any, namespace: Any = None) -> None:
        if self.queues[domain].add(timer_of(timestamp, key, namespace)):
            self.dirty = True

    def delete(self, domain: str, timestamp: int, key: Any, namespace: Any = None) -> None:
        if self.queues[domain].delete(timer_of(timestamp, key, namespace)):
            self.dirty = True

    def pop_due(self, domain: str, time: int) -> Optional[Timer]:
        if self._queues is None:
            earliest = self._summary.get(domain)
            if earliest is None or earliest > time:
                return None
        due = self.queues[domain].pop_due(time)
        if due is not None:
            self.dirty = True
        return due

    def earliest(self, domain: str) -> Optional[int]:
        if self._queues is None:
            return self._summary.get(domain)
        return self.queues[domain].peek()

    def count(self) -> int:
        return sum(len(queue) for queue in self.queues.values())

    def flush(self) -> None:
        if not self.dirty:
            return
        if self.count():
            lists = tuple(
                [timer for timer, _ in self.queues[d].entries()]
                for d in (EVENT_TIME, PROCESSING_TIME)
            )
            self._store.store(TIMER_PAGE, dumps(lists))
            summary = {d: q.peek() for d, q in self.queues.items() if q.peek() is not None}
            self._store.store(TIMER_SUMMARY_PAGE, dumps(summary))
        else:
            self._store.remove(TIMER_PAGE)
            self._store.remove(TIMER_SUMMARY_PAGE)
        self.dirty = False
