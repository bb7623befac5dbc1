"""Async I/O (Flink's AsyncWaitOperator) as a step of a stateless chain.

Each record's `async_invoke` runs as an asyncio task on the step's own event loop, at most
`capacity` at once. A micro-batch's step returns only once every request of its records
has completed: no request is in flight when Spark commits the batch, so a restart from a
checkpoint re-issues exactly the requests whose results were not committed, and every
result is written once. Ordered mode emits the results in input order; unordered mode in
completion order, and never past a watermark (weir's watermark moves between batches).

The timeout covers a record's attempts and the waits between them (as PyFlink's): once
it passes, the in-flight attempt is cancelled and `timeout(value)` gives the results.
"""

import asyncio
import functools
from typing import List

from weir.runtime.errors import UserFunctionError, wrap_user_error

ORDERED, UNORDERED = "ordered", "unordered"


class AsyncWaitSpec:
    """What AsyncDataStream builds: the function, its timeout in milliseconds (0: none),
    capacity (requests in flight), retry strategy and output mode."""

    def __init__(self, function, timeout_ms: int, capacity: int, retry_strategy,
                 output_mode: str):
        if output_mode not in (ORDERED, UNORDERED):
            raise ValueError(f"unknown async output mode '{output_mode}'")
        self.function = function
        self.timeout_ms = timeout_ms
        self.capacity = capacity
        self.retry_strategy = retry_strategy
        self.output_mode = output_mode


class _Retry:
    """When a record's attempt is tried again: the strategy's predicates and limits."""

    def __init__(self, strategy):
        predicate = strategy.get_retry_predicate()
        self.strategy = strategy
        self.on_result = predicate.result_predicate() if predicate else None
        self.on_error = predicate.exception_predicate() if predicate else None

    def delay_after(self, attempt: int, result, error):
        """Seconds to wait before the next attempt, or None for no retry."""
        wanted = ((error is None and self.on_result is not None and self.on_result(result))
                  or (error is not None and self.on_error is not None and self.on_error(error)))
        if not wanted or not self.strategy.can_retry(attempt):
            return None
        return max(0, self.strategy.get_backoff_time_millis(attempt)) / 1000


def _checked(result, function) -> list:
    if result is None or isinstance(result, (str, bytes)) or not hasattr(result, "__iter__"):
        what = "None" if result is None else type(result).__name__
        raise TypeError(f"async_invoke and timeout of {type(function).__name__} must return "
                        f"a collection of results (a list, even for one result), got {what}")
    return list(result)


class _Batch:
    """The requests of one batch: results by input position, completion order, the first
    error."""

    def __init__(self, size: int):
        self.results: List[list] = [None] * size
        self.completed: List[int] = []
        self.error = None
        self.in_flight = 0
        self.waiter = None

    def wake(self) -> None:
        if self.waiter is not None and not self.waiter.done():
            self.waiter.set_result(None)


class AsyncWaitStep:
    """The chain step of an AsyncWaitSpec (same interface as chain.Step)."""

    kind = "async"

    def __init__(self, spec: AsyncWaitSpec, name: str):
        self.spec = spec
        self.function = spec.function
        self.name = name
        self.loop = None
        self._retry = _Retry(spec.retry_strategy)

    def open(self, runtime_context) -> None:
        self.loop = asyncio.new_event_loop()
        if hasattr(self.function, "open"):
            self.function.open(runtime_context)

    def close(self) -> None:
        if hasattr(self.function, "close"):
            self.function.close()
        if self.loop is not None and not self.loop.is_closed():
            self.loop.close()

    def run(self, values: list, stamps: list, side) -> tuple:
        if not values:
            return [], []
        try:
            batch = self.loop.run_until_complete(self._requests(values))
        except UserFunctionError:
            raise
        except Exception as exc:
            raise wrap_user_error(exc, self.name, self.function.async_invoke) from exc
        if batch.error is not None:
            raise wrap_user_error(batch.error, self.name,
                                  self.function.async_invoke) from batch.error
        order = batch.completed if self.spec.output_mode == UNORDERED else range(len(values))
        out_values, out_stamps = [], []
        for index in order:
            produced = batch.results[index]
            out_values += produced
            out_stamps += [stamps[index]] * len(produced)
        return out_values, out_stamps

    async def _requests(self, values: list) -> _Batch:
        loop = asyncio.get_running_loop()
        batch = _Batch(len(values))
        timeout = self.spec.timeout_ms / 1000
        capacity = self.spec.capacity
        tasks = []
        for index, value in enumerate(values):
            while batch.in_flight >= capacity and batch.error is None:
                await self._wait(batch, loop)
            if batch.error is not None:
                break
            task = loop.create_task(self._attempts(value))
            expiry = loop.call_later(timeout, task.cancel) if timeout > 0 else None
            task.add_done_callback(functools.partial(self._done, batch, index, value, expiry))
            batch.in_flight += 1
            tasks.append(task)
        while batch.in_flight and batch.error is None:
            await self._wait(batch, loop)
        if batch.error is not None:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
        return batch

    @staticmethod
    async def _wait(batch: _Batch, loop) -> None:
        batch.waiter = loop.create_future()
        await batch.waiter

    async def _attempts(self, value) -> list:
        attempt = 1
        invoke = self.function.async_invoke
        while True:
            try:
                result, error = await invoke(value), None
            except Exception as exc:
                result, error = None, exc
            delay = self._retry.delay_after(attempt, result, error)
            if delay is None:
                break
            await asyncio.sleep(delay)
            attempt += 1
        if error is not None:
            raise error
        return _checked(result, self.function)

    def _done(self, batch: _Batch, index: int, value, expiry, task) -> None:
        """A record's request ended: done, failed, or cancelled by its timeout."""
        if expiry is not None:
            expiry.cancel()
        batch.in_flight -= 1
        try:
            if task.cancelled():
                if batch.error is not None:
                    return
                result = _checked(self.function.timeout(value), self.function)
            else:
                result = task.result()
        except Exception as exc:
            if batch.error is None:
                batch.error = exc
        else:
            batch.results[index] = result
            batch.completed.append(index)
        finally:
            batch.wake()
