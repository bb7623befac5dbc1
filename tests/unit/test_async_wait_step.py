"""The async I/O step (AsyncWaitStep) driven without Spark: order, capacity, retries,
timeouts and errors."""

import asyncio
import inspect
import functools

import pytest

from weir.common import Time
from weir.datastream import (
    AsyncDataStream,
    AsyncFunction,
    AsyncRetryStrategy,
    StreamExecutionEnvironment,
    async_retry_predicates,
)
from weir.datastream.async_retry_strategies import NO_RETRY_STRATEGY
from weir.runtime.async_io import ORDERED, UNORDERED, AsyncWaitSpec, AsyncWaitStep
from weir.runtime.chain import StatelessChain
from weir.runtime.errors import UserFunctionError


class Sleepy(AsyncFunction):
    """Answers v after delays[v] ms with [v, -v]; records the most requests in flight."""

    def __init__(self, delays):
        self.delays = delays
        self.in_flight = self.most_in_flight = 0

    async def async_invoke(self, value):
        self.in_flight += 1
        self.most_in_flight = max(self.most_in_flight, self.in_flight)
        await asyncio.sleep(self.delays[value] / 1000)
        self.in_flight -= 1
        return [value, -value]


def _chain(function, mode=ORDERED, timeout_ms=10_000, capacity=100, retry=NO_RETRY_STRATEGY):
    chain = StatelessChain(
        [AsyncWaitStep(AsyncWaitSpec(function, timeout_ms, capacity, retry, mode), "lookup")]
    )
    chain.open()
    return chain


def test_ordered_keeps_input_order_and_timestamps_within_capacity():
    function = Sleepy([50, 40, 30, 20, 10, 0])
    chain = _chain(function, capacity=2)
    values, stamps, side = chain.run_columns(list(range(6)), [100, 101, 102, 103, 104, 105])
    assert values == [0, 0, 1, -1, 2, -2, 3, -3, 4, -4, 5, -5]
    assert stamps == [100, 100, 101, 101, 102, 102, 103, 103, 104, 104, 105, 105]
    assert function.most_in_flight == 2 and side == []
    chain.close()


def test_unordered_emits_in_completion_order_and_the_step_serves_many_batches():
    chain = _chain(Sleepy([90, 60, 30, 0]), mode=UNORDERED)
    assert chain.run_columns([0, 1, 2, 3], [1, 2, 3, 4])[0] == [3, -3, 2, -2, 1, -1, 0, 0]
    assert chain.run_columns([2, 0], [7, 8]) == ([2, -2, 0, 0], [7, 7, 8, 8], [])
    assert chain.run_columns([], []) == ([], [], [])


class Failing(AsyncFunction):
    def __init__(self, bad=3, result="a list of the value"):
        self.bad, self.result, self.calls = bad, result, 0

    async def async_invoke(self, value):
        self.calls += 1
        await asyncio.sleep(0.001 * value)
        if value == self.bad:
            raise ConnectionError(f"no answer for {value}")
        return [value] if self.result == "a list of the value" else self.result


def test_a_failing_request_fails_the_batch_naming_operator_and_line():
    chain = _chain(Failing(), capacity=3)
    with pytest.raises(UserFunctionError) as error:
        chain.run_columns(list(range(10)), [0] * 10)
    message = str(error.value)
    assert "operator 'lookup' failed in user function Failing.async_invoke" in message
    lines, first = inspect.getsourcelines(Failing.async_invoke)
    raised_at = first + next(i for i, line in enumerate(lines) if "raise" in line)
    assert f"at {__file__}:{raised_at}: ConnectionError" in message
    assert "ConnectionError: no answer for 3" in message
    assert not asyncio.all_tasks(chain.steps[0].loop)


@pytest.mark.parametrize("result, named", [("text", "str"), (7, "int"), (None, "None")])
def test_results_must_be_a_collection(result, named):
    chain = _chain(Failing(bad=-1, result=result))
    with pytest.raises(UserFunctionError, match=f"must return a collection .* got {named}"):
        chain.run_columns([1], [0])


def test_a_request_past_its_timeout_gives_the_timeout_results_or_fails():
    class WithTimeout(Sleepy):
        def timeout(self, value):
            return [("late", value)]

    chain = _chain(WithTimeout([0, 5000, 0]), timeout_ms=100)
    assert chain.run_columns([0, 1, 2], [0, 0, 0])[0] == [0, 0, ("late", 1), 2, -2]
    chain = _chain(WithTimeout([0, 5000, 60, 5000, 90]), timeout_ms=100, capacity=2)
    assert chain.run_columns([0, 1, 2, 3, 4], [0] * 5)[0] == [  # a worker goes on after one
        0,
        0,
        ("late", 1),
        2,
        -2,
        ("late", 3),
        4,
        -4,
    ]
    chain = _chain(Sleepy([0, 5000]), timeout_ms=100)
    with pytest.raises(UserFunctionError, match="timed out for input: 1"):
        chain.run_columns([0, 1], [0, 0])


class Counting(AsyncFunction):
    """Fails the first `failures` attempts of each record."""

    def __init__(self, failures):
        self.failures, self.attempts = failures, {}

    async def async_invoke(self, value):
        attempt = self.attempts[value] = self.attempts.get(value, 0) + 1
        if attempt <= self.failures:
            raise ConnectionError(f"attempt {attempt}")
        return [(value, attempt)]


ON_CONNECTION_ERROR = functools.partial(
    async_retry_predicates.exception_type_predicate, expected_error_type=ConnectionError
)


def test_retries_until_an_answer_then_fail_once_attempts_are_exhausted():
    retry = AsyncRetryStrategy.fixed_delay(3, 1, None, ON_CONNECTION_ERROR)
    assert _chain(Counting(3), retry=retry).run_columns([5], [0])[0] == [(5, 4)]
    function = Counting(10)
    with pytest.raises(UserFunctionError, match="ConnectionError: attempt 4"):
        _chain(function, retry=retry).run_columns([5], [0])
    assert function.attempts == {5: 4}


def test_exponential_backoff_grows_to_its_maximum():
    strategy = AsyncRetryStrategy.exponential_backoff(9, 10, 45, 2.0, None, None)
    assert [strategy.get_backoff_time_millis(a) for a in range(1, 6)] == [10, 20, 40, 45, 45]
    assert strategy.can_retry(9) and not strategy.can_retry(10)
    with pytest.raises(ValueError, match="multiplier should be greater than zero"):
        AsyncRetryStrategy.exponential_backoff(3, 10, 40, 0, None, None)


def test_async_data_stream_checks_its_arguments():
    env = StreamExecutionEnvironment.get_execution_environment()
    stream = env.from_collection([1, 2])

    class NotAsync(AsyncFunction):
        def async_invoke(self, value):
            return [value]

    with pytest.raises(TypeError, match="should be declared as 'async def'"):
        AsyncDataStream.ordered_wait(stream, NotAsync(), Time.seconds(1))
    with pytest.raises(ValueError, match="capacity must be a positive int"):
        AsyncDataStream.unordered_wait(stream, Sleepy([0]), Time.seconds(1), capacity=0)
    retry = AsyncRetryStrategy.fixed_delay(3, 1, None, ON_CONNECTION_ERROR)
    with pytest.raises(ValueError, match="Timeout should be configured"):
        AsyncDataStream.ordered_wait_with_retry(stream, Sleepy([0]), Time.seconds(0), retry)
    with pytest.raises(TypeError, match="timeout must be a Time or Duration"):
        AsyncDataStream.ordered_wait(stream, Sleepy([0]), 1000)


class Converting(AsyncFunction):
    """A client wrapper that turns every interruption into its own error."""

    def __init__(self):
        self.attempts = 0

    async def async_invoke(self, value):
        self.attempts += 1
        try:
            await asyncio.sleep(5)
        except BaseException as error:
            raise ConnectionError("interrupted") from error
        return [value]

    def timeout(self, value):
        return [("timed out", value)]


def test_past_its_deadline_a_record_times_out_however_its_request_ends():
    retry = AsyncRetryStrategy.fixed_delay(5, 10, None, ON_CONNECTION_ERROR)
    for strategy in (NO_RETRY_STRATEGY, retry):
        function = Converting()
        chain = _chain(function, timeout_ms=100, retry=strategy)
        assert chain.run_columns([1], [0])[0] == [("timed out", 1)]
        assert function.attempts == 1  # no retry once the deadline passed


class Coalescing(AsyncFunction):
    """Records of one key share one lookup in flight: a timeout of one cancels it."""

    def open(self, runtime_context):
        self.shared = {}

    async def async_invoke(self, value):
        key, delay = value
        if key not in self.shared:
            self.shared[key] = asyncio.ensure_future(asyncio.sleep(delay, [key]))
        return await self.shared[key]

    def timeout(self, value):
        return [("timed out", value[0])]


def test_a_cancellation_weir_did_not_ask_for_fails_the_batch_clearly():
    chain = _chain(Coalescing(), mode=UNORDERED, timeout_ms=100, capacity=2)
    with pytest.raises(UserFunctionError, match="Coalescing.async_invoke .* CancelledError"):
        chain.run_columns([("k", 0.5), ("x", 0.06), ("k", 0.5)], [0, 0, 0])


def test_a_result_predicate_sees_results_only():
    seen = []
    retry = AsyncRetryStrategy.fixed_delay(3, 1, lambda r: seen.append(r) or False, None)
    with pytest.raises(UserFunctionError, match="got None"):
        _chain(Failing(bad=-1, result=None), retry=retry).run_columns([1], [0])
    assert seen == []
