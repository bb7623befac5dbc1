"""Async I/O (Flink's AsyncWaitOperator) as a step of a stateless chain.

`capacity` workers on the step's own event loop each take a batch's next record and await
its `async_invoke`, so at most `capacity` requests are in flight. A micro-batch's step returns only
once every request of its records
has completed: no request is in flight when Spark commits the batch, so a restart from a
checkpoint re-issues exactly the requests whose results were not committed, and every
result is written once. Ordered mode emits the results in input order; unordered mode in
completion order, and never past a watermark (weir's watermark moves between batches).

The timeout covers a record's attempts and the waits between them (as PyFlink's): once
it passes, the in-flight attempt is cancelled and `timeout(value)` gives the results.
"""

from __future__ import annotations

import asyncio
import collections
import functools
from typing import TYPE_CHECKING, Any, Callable, Deque, Iterator, List, Optional, Tuple, cast

from weir.runtime.errors import MARKER, UserFunctionError, wrap_user_error

if TYPE_CHECKING:
    from typing import Protocol

    from weir.runtime.chain import SideItem
    from weir.runtime.context import RuntimeContext

    class _RetryPredicate(Protocol):
        """PyFlink's AsyncRetryPredicate, as weir reads it."""

        def result_predicate(self) -> Optional[Callable[[Any], bool]]: ...

        def exception_predicate(self) -> Optional[Callable[[Any], bool]]: ...

    class _RetryStrategy(Protocol):
        """PyFlink's AsyncRetryStrategy, as weir reads it."""

        def get_retry_predicate(self) -> Optional[_RetryPredicate]: ...

        def can_retry(self, current_attempts: int) -> bool: ...

        def get_backoff_time_millis(self, current_attempts: int) -> int: ...


ORDERED, UNORDERED = "ordered", "unordered"


class AsyncWaitSpec:
    """What AsyncDataStream builds: the function, its timeout in milliseconds (0: none),
    capacity (requests in flight), retry strategy and output mode."""

    def __init__(
        self,
        function: Any,
        timeout_ms: int,
        capacity: int,
        retry_strategy: _RetryStrategy,
        output_mode: str,
    ) -> None:
        if output_mode not in (ORDERED, UNORDERED):
            raise ValueError(f"unknown async output mode '{output_mode}'")
        self.function = function
        self.timeout_ms = timeout_ms
        self.capacity = capacity
        self.retry_strategy = retry_strategy
        self.output_mode = output_mode


class _Retry:
    """When a record's attempt is tried again: the strategy's predicates and limits."""

    def __init__(self, strategy: _RetryStrategy) -> None:
        predicate = strategy.get_retry_predicate()
        self.strategy = strategy
        self.on_result = predicate.result_predicate() if predicate else None
        self.on_error = predicate.exception_predicate() if predicate else None

    def delay_after(
        self, attempt: int, result: Any, error: Optional[BaseException]
    ) -> Optional[float]:
        """Seconds to wait before the next attempt, or None for no retry."""
        wanted = (result is not None and self.on_result is not None and self.on_result(result)) or (
            error is not None and self.on_error is not None and self.on_error(error)
        )
        if not wanted or not self.strategy.can_retry(attempt):
            return None
        return max(0, self.strategy.get_backoff_time_millis(attempt)) / 1000


def _same(value: Any) -> Any:
    return value


def _checked(result: Any, function: Any) -> List[Any]:
    if result is None or isinstance(result, (str, bytes)) or not hasattr(result, "__iter__"):
        what = "None" if result is None else type(result).__name__
        raise TypeError(
            f"async_invoke and timeout of {type(function).__name__} must return "
            f"a collection of results (a list, even for one result), got {what}"
        )
    return list(result)


class _Batch:
    """The requests of one batch: results by input position, completion order, the first
    error, and the deadlines of requests in flight (one timer for all of them: with one
    timeout for every record, deadlines come due in the order requests started)."""

    def __init__(self, size: int, loop: asyncio.AbstractEventLoop, timeout: float) -> None:
        # (a record's results are set before they are read: a batch reads completed ones)
        self.results = cast(List[List[Any]], [None] * size)
        self.completed: List[int] = []
        self.error: Optional[BaseException] = None
        self.failed_in: Any = None  # the user function that raised it
        self.loop = loop
        self.timeout = timeout
        # (deadline, slot, serial)
        self.deadlines: Deque[Tuple[float, _Slot, int]] = collections.deque()
        self.timer: Optional[asyncio.TimerHandle] = None
        self.workers: List[asyncio.Task[None]] = []

    def fail(self, error: BaseException, function: Any) -> None:
        """The first error (raised in user `function`) ends the batch: every other worker
        is cancelled."""
        if self.error is None:
            self.error, self.failed_in = error, function
            for worker in self.workers:
                worker.cancel()

    def watch(self, slot: _Slot) -> None:
        """Starts the deadline of the request `slot` has just started."""
        self.deadlines.append((self.loop.time() + self.timeout, slot, slot.serial))
        if self.timer is None:
            self.timer = self.loop.call_at(self.deadlines[0][0], self._expire)

    def _expire(self) -> None:
        now, deadlines = self.loop.time(), self.deadlines
        while deadlines and deadlines[0][0] <= now:
            _, slot, serial = deadlines.popleft()
            if slot.serial == serial and slot.busy:
                slot.expired = serial
                slot.worker.cancel()
        self.timer = self.loop.call_at(deadlines[0][0], self._expire) if deadlines else None

    def close(self) -> None:
        if self.timer is not None:
            self.timer.cancel()


class _Slot:
    """One of `capacity` workers: the serial number of its request, whether it waits on
    it, and the serial of a request whose deadline passed."""

    def __init__(self) -> None:
        self.serial = 0
        self.busy = False
        self.expired = -1
        self.worker: Any = None  # its asyncio Task, once started


class AsyncWaitStep:
    """The chain step of an AsyncWaitSpec (same interface as chain.Step): `capacity`
    workers each take the batch's next record and await its request."""

    kind = "async"

    def __init__(self, spec: AsyncWaitSpec, name: str) -> None:
        self.spec = spec
        self.function = spec.function
        self.name = name
        self.loop: Optional[asyncio.AbstractEventLoop] = None  # from open()
        self._retry = _Retry(spec.retry_strategy)
        self._retries = self._retry.on_result is not None or self._retry.on_error is not None

    def open(self, runtime_context: RuntimeContext) -> None:
        self.loop = asyncio.new_event_loop()
        if hasattr(self.function, "open"):
            self.function.open(runtime_context)

    def close(self) -> None:
        if hasattr(self.function, "close"):
            self.function.close()
        if self.loop is not None and not self.loop.is_closed():
            self.loop.close()

    def run(
        self, values: List[Any], stamps: List[Any], side: List[SideItem]
    ) -> Tuple[List[Any], List[Any]]:
        if not values:
            return [], []
        assert self.loop is not None  # (opened)
        batch = self.loop.run_until_complete(self._requests(values))
        if batch.error is not None:
            raise wrap_user_error(batch.error, self.name, batch.failed_in) from batch.error
        if len(batch.completed) != len(values):  # never lose a record silently
            raise UserFunctionError(
                f"{MARKER}: operator '{self.name}': "
                f"{len(values) - len(batch.completed)} async requests "
                "ended without results"
            )
        order = batch.completed if self.spec.output_mode == UNORDERED else range(len(values))
        out_values: List[Any]
        out_stamps: List[Any]
        out_values, out_stamps = [], []
        for index in order:
            produced = batch.results[index]
            out_values += produced
            out_stamps += [stamps[index]] * len(produced)
        return out_values, out_stamps

    async def _requests(self, values: List[Any]) -> _Batch:
        loop = asyncio.get_running_loop()
        batch = _Batch(len(values), loop, self.spec.timeout_ms / 1000)
        records = enumerate(values)
        for _ in range(min(self.spec.capacity, len(values))):
            slot = _Slot()
            slot.worker = loop.create_task(self._work(records, batch, slot))
            batch.workers.append(slot.worker)
        await asyncio.gather(*batch.workers, return_exceptions=True)
        batch.close()
        return batch

    async def _work(self, records: Iterator[Tuple[int, Any]], batch: _Batch, slot: _Slot) -> None:
        """Takes the next record until there is none (or the batch failed). A record whose
        deadline passed gets timeout()'s results however its request ended (cancelled,
        raised or returned); a cancellation weir did not ask for is the request's error."""
        invoke, retries = self.function.async_invoke, self._retries
        watched = batch.timeout > 0
        task = asyncio.current_task()
        assert task is not None  # (a worker runs as a task)
        error: Optional[BaseException]
        for index, value in records:
            slot.serial += 1
            slot.busy = True
            if watched:
                batch.watch(slot)
            try:
                result, error = (
                    await (self._attempts(value, slot) if retries else invoke(value)),
                    None,
                )
            except asyncio.CancelledError as exc:
                if batch.error is not None or (slot.expired != slot.serial and task.cancelling()):
                    raise
                result, error = None, exc
            except Exception as exc:
                result, error = None, exc
            slot.busy = False
            if slot.expired == slot.serial:
                while task.cancelling():
                    task.uncancel()
                timeout = self.function.timeout
                done = self._complete(batch, index, functools.partial(timeout, value), timeout)
            elif error is not None:
                batch.fail(error, invoke)
                return
            elif type(result) is list:
                batch.results[index] = result
                batch.completed.append(index)
                continue
            else:
                done = self._complete(batch, index, functools.partial(_same, result), invoke)
            if not done:
                return

    def _complete(
        self, batch: _Batch, index: int, results: Callable[[], Any], function: Any
    ) -> bool:
        """Completes record `index` with what `results()` gives (checked to be a
        collection), or fails the batch naming user `function`; False once it failed."""
        try:
            batch.results[index] = _checked(results(), self.function)
        except Exception as exc:
            batch.fail(exc, function)
            return False
        batch.completed.append(index)
        return True

    async def _attempts(self, value: Any, slot: _Slot) -> Any:  # (the user's results)
        """A record's attempts, while the strategy retries and its deadline has not
        passed."""
        attempt, serial = 1, slot.serial
        invoke = self.function.async_invoke
        while True:
            try:
                result, error = await invoke(value), None
            except Exception as exc:
                result, error = None, exc
            delay = (
                None if slot.expired == serial else self._retry.delay_after(attempt, result, error)
            )
            if delay is None:
                break
            await asyncio.sleep(delay)
            attempt += 1
        if error is not None:
            raise error
        return result
