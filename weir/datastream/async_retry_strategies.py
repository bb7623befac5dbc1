"""Retry strategies of async I/O: none, a fixed delay, an exponential backoff.

Attempts count from 1; an attempt is retried while `can_retry(attempt)` and a predicate
matches its results or its exception, and the record's timeout has not passed.
"""

from typing import Callable, Generic, List, Optional, TypeVar

from weir.datastream.functions import AsyncRetryPredicate, AsyncRetryStrategy

__all__ = [
    "RetryPredicate",
    "NoRetryStrategy",
    "FixedDelayRetryStrategy",
    "ExponentialBackoffDelayRetryStrategy",
    "NO_RETRY_STRATEGY",
]

OUT = TypeVar("OUT")


def _positive(value, name: str):
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
        raise ValueError(f"{name} should be greater than zero, got {value!r}")
    return value


class RetryPredicate(AsyncRetryPredicate, Generic[OUT]):
    def __init__(
        self,
        result_predicate: Optional[Callable[[List[OUT]], bool]],
        exception_predicate: Optional[Callable[[Exception], bool]],
    ):
        self._result_predicate = result_predicate
        self._exception_predicate = exception_predicate

    def result_predicate(self):
        return self._result_predicate

    def exception_predicate(self):
        return self._exception_predicate


class NoRetryStrategy(AsyncRetryStrategy, Generic[OUT]):
    def can_retry(self, current_attempts: int) -> bool:
        return False

    def get_backoff_time_millis(self, current_attempts: int) -> int:
        return -1

    def get_retry_predicate(self) -> AsyncRetryPredicate:
        return RetryPredicate(None, None)


class FixedDelayRetryStrategy(AsyncRetryStrategy, Generic[OUT]):
    """Up to `max_attempts` retries, `backoff_time_millis` apart."""

    def __init__(
        self, max_attempts: int, backoff_time_millis: int, result_predicate, exception_predicate
    ):
        self._max_attempts = _positive(max_attempts, "max_attempts")
        self._backoff_time_millis = _positive(backoff_time_millis, "backoff_time_millis")
        self._predicate = RetryPredicate(result_predicate, exception_predicate)

    def can_retry(self, current_attempts: int) -> bool:
        return current_attempts <= self._max_attempts

    def get_backoff_time_millis(self, current_attempts: int) -> int:
        return self._backoff_time_millis

    def get_retry_predicate(self) -> AsyncRetryPredicate:
        return self._predicate


class ExponentialBackoffDelayRetryStrategy(AsyncRetryStrategy, Generic[OUT]):
    """Up to `max_attempts` retries; the first after `initial_delay` ms, each next one
    `multiplier` times later, at most `max_retry_delay` ms. The delay depends on the
    attempt only, so records in flight at once do not share a backoff."""

    def __init__(
        self,
        max_attempts: int,
        initial_delay: int,
        max_retry_delay: int,
        multiplier: float,
        result_predicate,
        exception_predicate,
    ):
        self._max_attempts = _positive(max_attempts, "max_attempts")
        self._initial_delay = _positive(initial_delay, "initial_delay")
        self._max_retry_delay = _positive(max_retry_delay, "max_retry_delay")
        self._multiplier = _positive(multiplier, "multiplier")
        self._predicate = RetryPredicate(result_predicate, exception_predicate)

    def can_retry(self, current_attempts: int) -> bool:
        return current_attempts <= self._max_attempts

    def get_backoff_time_millis(self, current_attempts: int) -> int:
        delay = self._initial_delay
        for _ in range(1, current_attempts):
            delay = int(min(delay * self._multiplier, self._max_retry_delay))
            if delay == self._max_retry_delay:
                break
        return delay

    def get_retry_predicate(self) -> AsyncRetryPredicate:
        return self._predicate


NO_RETRY_STRATEGY: AsyncRetryStrategy = NoRetryStrategy()
