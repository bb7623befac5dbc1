"""User function base classes, with PyFlink's names (`pyflink.datastream.functions`)."""

from abc import ABC, ABCMeta, abstractmethod
from typing import Callable, Generic, List, Optional, TypeVar

from weir.common.gaps import module_gaps
from weir.common.watermark_strategy import TimestampAssigner  # noqa: F401
from weir.runtime.context import (
    ProcessContext,
    RuntimeContext,
    TimeDomain,  # noqa: F401
    TimerService,  # noqa: F401
)
from weir.runtime import broadcast
from weir.runtime.interval_join import ProcessJoinContext
from weir.runtime.window.contexts import ProcessWindowContext

IN = TypeVar("IN")
OUT = TypeVar("OUT")
KEY = TypeVar("KEY")
W = TypeVar("W")
W2 = TypeVar("W2")
IN1 = TypeVar("IN1")
IN2 = TypeVar("IN2")


class Function(ABC):
    def open(self, runtime_context: RuntimeContext):
        pass

    def close(self):
        pass


class MapFunction(Function):
    @abstractmethod
    def map(self, value):
        pass


class FlatMapFunction(Function):
    @abstractmethod
    def flat_map(self, value):
        pass


class FilterFunction(Function):
    @abstractmethod
    def filter(self, value):
        pass


class ReduceFunction(Function):
    @abstractmethod
    def reduce(self, value1, value2):
        pass


class AggregateFunction(Function):
    @abstractmethod
    def create_accumulator(self):
        pass

    @abstractmethod
    def add(self, value, accumulator):
        pass

    @abstractmethod
    def get_result(self, accumulator):
        pass

    def merge(self, acc_a, acc_b):
        raise NotImplementedError("this AggregateFunction does not implement merge")


class KeySelector(Function):
    @abstractmethod
    def get_key(self, value):
        pass


class ProcessFunction(Function):
    """process_element(value, ctx) yields outputs; `yield tag, value` for a side output."""

    class Context(ABC):
        """timestamp(), timer_service(), output(tag, value)."""

    @abstractmethod
    def process_element(self, value, ctx):
        pass


class KeyedProcessFunction(Function):
    """process_element(value, ctx) and on_timer(timestamp, ctx) yield outputs."""

    class Context(ABC):
        """timestamp(), timer_service(), get_current_key(), output(tag, value)."""

    class OnTimerContext(Context):
        """The Context, and time_domain() of the firing timer."""

    @abstractmethod
    def process_element(self, value, ctx):
        pass

    def on_timer(self, timestamp: int, ctx):
        pass


class CoMapFunction(Function):
    """map1(value) for each record of the first input, map2(value) for the second."""

    @abstractmethod
    def map1(self, value):
        pass

    @abstractmethod
    def map2(self, value):
        pass


class CoFlatMapFunction(Function):
    """flat_map1(value) / flat_map2(value) return (or yield) each input's outputs."""

    @abstractmethod
    def flat_map1(self, value):
        pass

    @abstractmethod
    def flat_map2(self, value):
        pass


class CoProcessFunction(Function):
    """process_element1(value, ctx) / process_element2(value, ctx) yield outputs;
    `yield tag, value` for a side output."""

    class Context(ABC):
        """timestamp(), timer_service(), output(tag, value)."""

    @abstractmethod
    def process_element1(self, value, ctx):
        pass

    @abstractmethod
    def process_element2(self, value, ctx):
        pass


class KeyedCoProcessFunction(Function):
    """process_element1/process_element2(value, ctx) and on_timer(timestamp, ctx) yield
    outputs; both inputs share the key's state and timers."""

    class Context(ABC):
        """timestamp(), timer_service(), get_current_key(), output(tag, value)."""

    class OnTimerContext(Context):
        """The Context, and time_domain() of the firing timer."""

    @abstractmethod
    def process_element1(self, value, ctx):
        pass

    @abstractmethod
    def process_element2(self, value, ctx):
        pass

    def on_timer(self, timestamp: int, ctx):
        pass


class BaseBroadcastProcessFunction(Function):
    """What both broadcast process functions share: their contexts."""

    class BaseContext(ABC):
        """timestamp(), current_processing_time(), current_watermark()."""

    class Context(BaseContext):
        """The BaseContext, get_broadcast_state(descriptor) (read and write)."""

    class ReadOnlyContext(BaseContext):
        """The BaseContext, get_broadcast_state(descriptor) (read only)."""


class BroadcastProcessFunction(BaseBroadcastProcessFunction, Generic[IN1, IN2, OUT]):
    """process_element(value, ctx) for the non-broadcast input (ctx: ReadOnlyContext),
    process_broadcast_element(value, ctx) for the broadcast one (ctx: Context)."""

    class Context(BaseBroadcastProcessFunction.Context, ABC):
        pass

    class ReadOnlyContext(BaseBroadcastProcessFunction.ReadOnlyContext, ABC):
        pass

    @abstractmethod
    def process_element(self, value, ctx):
        pass

    @abstractmethod
    def process_broadcast_element(self, value, ctx):
        pass


class KeyedBroadcastProcessFunction(BaseBroadcastProcessFunction, Generic[KEY, IN1, IN2, OUT]):
    """As BroadcastProcessFunction on a keyed stream: process_element's ctx also has
    timer_service() and get_current_key(); on_timer(timestamp, ctx) for its timers;
    process_broadcast_element's ctx also has apply_to_keyed_state(descriptor, function)."""

    class Context(BaseBroadcastProcessFunction.Context, ABC):
        pass

    class ReadOnlyContext(BaseBroadcastProcessFunction.ReadOnlyContext, ABC):
        pass

    class OnTimerContext(ReadOnlyContext, ABC):
        pass

    @abstractmethod
    def process_element(self, value, ctx):
        pass

    @abstractmethod
    def process_broadcast_element(self, value, ctx):
        pass

    def on_timer(self, timestamp: int, ctx):
        pass


class JoinFunction(Function):
    """join(first, second) returns the output of one pair (window joins; Flink's Java
    API, which PyFlink lacks)."""

    @abstractmethod
    def join(self, first, second):
        pass


class FlatJoinFunction(Function):
    """join(first, second) returns (or yields) any number of outputs for one pair."""

    @abstractmethod
    def join(self, first, second):
        pass


class CoGroupFunction(Function):
    """co_group(first, second) returns (or yields) the outputs for a window's elements of
    each input (either may be empty)."""

    @abstractmethod
    def co_group(self, first, second):
        pass


class ProcessJoinFunction(Function):
    """process_element(left, right, ctx) returns (or yields) the outputs of one joined
    pair of an interval join; `yield tag, value` for a side output."""

    class Context(ABC):
        """get_left_timestamp(), get_right_timestamp(), get_timestamp(), output()."""

    @abstractmethod
    def process_element(self, left, right, ctx):
        pass


class CheckpointedFunction(ABC):
    """Operator state for a non-keyed function (Flink's Java CheckpointedFunction; PyFlink
    has none): mix it into a MapFunction, FlatMapFunction, FilterFunction or
    ProcessFunction. `initialize_state(context)` runs before the first record, and on a
    restore: `context.get_operator_state_store()` gives `get_list_state(descriptor)` and
    `get_union_list_state(descriptor)`, and `context.is_restored()` says whether they hold
    an earlier snapshot. `snapshot_state(context)` runs at the end of every micro-batch
    the instance ran in (weir's checkpoint), to put the function's state in them."""

    @abstractmethod
    def snapshot_state(self, context):
        pass

    @abstractmethod
    def initialize_state(self, context):
        pass


class SinkFunction(Function):
    """A custom sink: invoke(value, context) is called once per record, on the driver."""

    @abstractmethod
    def invoke(self, value, context):
        pass


class WindowFunction(Function, Generic[IN, OUT, KEY, W]):
    """apply(key, window, inputs) returns the outputs for a fired window."""

    @abstractmethod
    def apply(self, key, window, inputs):
        pass


class AllWindowFunction(Function, Generic[IN, OUT, W]):
    """apply(window, inputs), for window_all()."""

    @abstractmethod
    def apply(self, window, inputs):
        pass


class ProcessWindowFunction(Function, Generic[IN, OUT, KEY, W]):
    """process(key, context, elements) returns the outputs for a fired window;
    clear(context) runs when the window is removed."""

    class Context(ABC, Generic[W2]):
        """window(), current_processing_time(), current_watermark(), window_state(),
        global_state(), output(tag, value)."""

    @abstractmethod
    def process(self, key, context, elements):
        pass

    def clear(self, context):
        pass


class ProcessAllWindowFunction(Function, Generic[IN, OUT, W]):
    """process(context, elements), for window_all()."""

    class Context(ABC, Generic[W2]):
        """window(), current_processing_time(), current_watermark(), window_state(),
        global_state(), output(tag, value)."""

    @abstractmethod
    def process(self, context, elements):
        pass

    def clear(self, context):
        pass


_context: ABCMeta
for _context in (
    ProcessFunction.Context,
    KeyedProcessFunction.OnTimerContext,
    CoProcessFunction.Context,
    KeyedCoProcessFunction.OnTimerContext,
):
    _context.register(ProcessContext)
ProcessJoinFunction.Context.register(ProcessJoinContext)
for _function in (BroadcastProcessFunction, KeyedBroadcastProcessFunction):
    _function.ReadOnlyContext.register(broadcast.ReadOnlyContext)
    _function.Context.register(broadcast.BroadcastContext)
KeyedBroadcastProcessFunction.OnTimerContext.register(broadcast.ReadOnlyContext)
for _context in (ProcessWindowFunction.Context, ProcessAllWindowFunction.Context):
    _context.register(ProcessWindowContext)


class AsyncFunction(Function, Generic[IN, OUT]):
    """Async I/O (AsyncDataStream): `async_invoke` is a coroutine (`async def`) returning
    a collection of results for one record; `timeout` gives the results of a record whose
    requests did not complete in time (by default it fails the job)."""

    @abstractmethod
    async def async_invoke(self, value: IN) -> List[OUT]:
        pass

    def timeout(self, value: IN) -> List[OUT]:
        raise TimeoutError(f"Async function call has timed out for input: {value}")


class AsyncRetryPredicate(ABC, Generic[OUT]):
    """When an attempt is retried: a predicate on its results, one on its exception."""

    @abstractmethod
    def result_predicate(self) -> Optional[Callable[[List[OUT]], bool]]:
        pass

    @abstractmethod
    def exception_predicate(self) -> Optional[Callable[[Exception], bool]]:
        pass


class AsyncRetryStrategy(ABC, Generic[OUT]):
    """Whether and when a record's async request is tried again (attempts count from 1)."""

    @abstractmethod
    def can_retry(self, current_attempts: int) -> bool:
        pass

    @abstractmethod
    def get_backoff_time_millis(self, current_attempts: int) -> int:
        pass

    @abstractmethod
    def get_retry_predicate(self) -> AsyncRetryPredicate[OUT]:
        pass

    @staticmethod
    def no_restart() -> "AsyncRetryStrategy":
        from weir.datastream import async_retry_strategies

        return async_retry_strategies.NO_RETRY_STRATEGY

    @staticmethod
    def fixed_delay(
        max_attempts: int,
        backoff_time_millis: int,
        result_predicate: Optional[Callable[[List[OUT]], bool]],
        exception_predicate: Optional[Callable[[Exception], bool]],
    ):
        from weir.datastream.async_retry_strategies import FixedDelayRetryStrategy

        return FixedDelayRetryStrategy(
            max_attempts, backoff_time_millis, result_predicate, exception_predicate
        )

    @staticmethod
    def exponential_backoff(
        max_attempts: int,
        initial_delay: int,
        max_retry_delay: int,
        multiplier: float,
        result_predicate: Optional[Callable[[List[OUT]], bool]],
        exception_predicate: Optional[Callable[[Exception], bool]],
    ):
        from weir.datastream.async_retry_strategies import ExponentialBackoffDelayRetryStrategy

        return ExponentialBackoffDelayRetryStrategy(
            max_attempts,
            initial_delay,
            max_retry_delay,
            multiplier,
            result_predicate,
            exception_predicate,
        )


__getattr__ = module_gaps(
    __name__,
    "pyflink.datastream.functions",
    ["AsyncFunctionDescriptor", "Partitioner", "SourceFunction"],
)
