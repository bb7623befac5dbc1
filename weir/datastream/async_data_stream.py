"""AsyncDataStream: async I/O on a DataStream (PyFlink 2.x's API)."""

import inspect

from weir.datastream import async_retry_strategies
from weir.datastream.data_stream import DataStream


def _timeout_ms(timeout) -> int:
    if not hasattr(timeout, "to_milliseconds"):
        raise TypeError(f"timeout must be a Time or Duration, got {type(timeout).__name__}")
    return timeout.to_milliseconds()


def _validate(data_stream, async_function, timeout_ms: int, retry_strategy, capacity) -> None:
    if not isinstance(data_stream, DataStream):
        raise TypeError(f"expected a DataStream, got {type(data_stream).__name__}")
    if not inspect.iscoroutinefunction(getattr(async_function, "async_invoke", None)):
        raise TypeError(
            f"Method 'async_invoke' of class '{type(async_function).__name__}' "
            "should be declared as 'async def'."
        )
    if isinstance(capacity, bool) or not isinstance(capacity, int) or capacity <= 0:
        raise ValueError(f"capacity must be a positive int, got {capacity!r}")
    if retry_strategy is None:
        raise ValueError("Async retry strategy should not be None.")
    if retry_strategy is not async_retry_strategies.NO_RETRY_STRATEGY and timeout_ms <= 0:
        raise ValueError("Timeout should be configured when do async with retry.")
    if retry_strategy.get_retry_predicate() is None:
        raise ValueError(
            f"Retry predicate of the async retry strategy "
            f"'{type(retry_strategy).__name__}' is None."
        )


def _async_wait(
    data_stream, async_function, timeout, retry_strategy, capacity, output_type, output_mode
) -> DataStream:
    from weir.runtime.async_io import AsyncWaitSpec  # asyncio only for jobs that use it

    timeout_ms = _timeout_ms(timeout)
    _validate(data_stream, async_function, timeout_ms, retry_strategy, capacity)
    spec = AsyncWaitSpec(async_function, max(0, timeout_ms), capacity, retry_strategy, output_mode)
    return data_stream._stateless("async", spec, output_type, "async wait operator")


class AsyncDataStream:
    """Applies an AsyncFunction to a stream: `capacity` requests in flight at most, each
    record's results emitted in input order (ordered) or as they complete (unordered)."""

    @staticmethod
    def unordered_wait(
        data_stream, async_function, timeout, capacity: int = 100, output_type=None
    ) -> DataStream:
        return _async_wait(
            data_stream,
            async_function,
            timeout,
            async_retry_strategies.NO_RETRY_STRATEGY,
            capacity,
            output_type,
            "unordered",
        )

    @staticmethod
    def unordered_wait_with_retry(
        data_stream,
        async_function,
        timeout,
        async_retry_strategy,
        capacity: int = 100,
        output_type=None,
    ) -> DataStream:
        return _async_wait(
            data_stream,
            async_function,
            timeout,
            async_retry_strategy,
            capacity,
            output_type,
            "unordered",
        )

    @staticmethod
    def ordered_wait(
        data_stream, async_function, timeout, capacity: int = 100, output_type=None
    ) -> DataStream:
        return _async_wait(
            data_stream,
            async_function,
            timeout,
            async_retry_strategies.NO_RETRY_STRATEGY,
            capacity,
            output_type,
            "ordered",
        )

    @staticmethod
    def ordered_wait_with_retry(
        data_stream,
        async_function,
        timeout,
        async_retry_strategy,
        capacity: int = 100,
        output_type=None,
    ) -> DataStream:
        return _async_wait(
            data_stream,
            async_function,
            timeout,
            async_retry_strategy,
            capacity,
            output_type,
            "ordered",
        )
