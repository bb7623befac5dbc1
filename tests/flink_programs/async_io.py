"""Async I/O: ordered and unordered waits, capacity, retries on exceptions and on results
(fixed delay and exponential backoff, exhausted attempts), and timeouts with and without
retries."""

import asyncio
import functools

from weir.common import Time, Types
from weir.datastream import (AsyncDataStream, AsyncFunction, AsyncRetryStrategy,
                             StreamExecutionEnvironment, async_retry_predicates)


class SlowerFirst(AsyncFunction):
    """Answers record v after (steps - v) * step_ms: later records complete first."""

    def __init__(self, label, steps, step_ms):
        self.label, self.steps, self.step_ms = label, steps, step_ms

    async def async_invoke(self, value):
        await asyncio.sleep((self.steps - value) * self.step_ms / 1000)
        return [(self.label, value * 10)]


class Flaky(AsyncFunction):
    """Fails (or answers nothing) on the first attempts of each record, counting them."""

    def __init__(self, label, failures, empty_instead=False):
        self.label, self.failures, self.empty_instead = label, failures, empty_instead

    def open(self, runtime_context):
        self.attempts = {}

    async def async_invoke(self, value):
        await asyncio.sleep(0.005)
        attempt = self.attempts[value] = self.attempts.get(value, 0) + 1
        if attempt <= self.failures(value):
            if self.empty_instead:
                return []
            raise ConnectionError(f"service unavailable for {value}")
        return [(self.label, value, attempt)]


class Stuck(AsyncFunction):
    """Record 0 answers at once; the others never in time (or fail until the timeout)."""

    def __init__(self, label, failing):
        self.label, self.failing = label, failing

    async def async_invoke(self, value):
        if value == 0:
            return [(self.label, value, "answered")]
        if self.failing:
            raise ConnectionError("still down")
        await asyncio.sleep(30)
        return [(self.label, value, "too late")]

    def timeout(self, value):
        return [(self.label, value, "timed out")]


ON_CONNECTION_ERROR = functools.partial(async_retry_predicates.exception_type_predicate,
                                        expected_error_type=ConnectionError)
OUT = Types.TUPLE([Types.STRING(), Types.INT(), Types.INT()])
STATUS = Types.TUPLE([Types.STRING(), Types.INT(), Types.STRING()])

env = StreamExecutionEnvironment.get_execution_environment()
env.set_parallelism(1)
numbers = env.from_collection(list(range(8)), Types.INT())
few = env.from_collection([0, 1, 2, 3], Types.INT())

AsyncDataStream.ordered_wait(numbers, SlowerFirst("ordered", 8, 20), Time.seconds(10), 3,
                             Types.TUPLE([Types.STRING(), Types.INT()])).print()
AsyncDataStream.unordered_wait(few, SlowerFirst("unordered", 3, 300), Time.seconds(10), 10,
                               Types.TUPLE([Types.STRING(), Types.INT()])).print()
AsyncDataStream.ordered_wait_with_retry(
    few, Flaky("retried", lambda v: v % 3), Time.seconds(10),
    AsyncRetryStrategy.fixed_delay(5, 10, None, ON_CONNECTION_ERROR), 2, OUT).print()
AsyncDataStream.ordered_wait_with_retry(
    few, Flaky("backoff", lambda v: v, empty_instead=True), Time.seconds(10),
    AsyncRetryStrategy.exponential_backoff(5, 10, 40, 2.0,
                                           async_retry_predicates.empty_result_predicate,
                                           None), 10, OUT).print()
AsyncDataStream.ordered_wait_with_retry(
    few, Flaky("exhausted", lambda v: 0), Time.seconds(10),
    AsyncRetryStrategy.fixed_delay(2, 10, lambda results: results[0][2] < 10, None), 10,
    OUT).print()
AsyncDataStream.ordered_wait(few, Stuck("deadline", False), Time.milliseconds(300), 10,
                             STATUS).print()
AsyncDataStream.ordered_wait_with_retry(
    few, Stuck("deadline-retried", True), Time.milliseconds(300),
    AsyncRetryStrategy.fixed_delay(1000, 50, None, ON_CONNECTION_ERROR), 10, STATUS).print()
env.execute("async io")
