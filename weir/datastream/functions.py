"""User function base classes, with PyFlink's names (`pyflink.datastream.functions`)."""

from abc import ABC, abstractmethod

from weir.common.watermark_strategy import TimestampAssigner  # noqa: F401
from weir.runtime.context import RuntimeContext, TimeDomain  # noqa: F401


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

    @abstractmethod
    def process_element(self, value, ctx):
        pass


class KeyedProcessFunction(Function):
    """process_element(value, ctx) and on_timer(timestamp, ctx) yield outputs."""

    @abstractmethod
    def process_element(self, value, ctx):
        pass

    def on_timer(self, timestamp: int, ctx):
        pass


class SinkFunction(Function):
    """A custom sink: invoke(value, context) is called once per record, on the driver."""

    @abstractmethod
    def invoke(self, value, context):
        pass


class WindowFunction(Function):
    """apply(key, window, inputs) returns the outputs for a fired window."""

    @abstractmethod
    def apply(self, key, window, inputs):
        pass


class AllWindowFunction(Function):
    """apply(window, inputs), for window_all()."""

    @abstractmethod
    def apply(self, window, inputs):
        pass


class ProcessWindowFunction(Function):
    """process(key, context, elements) returns the outputs for a fired window.

    context: window(), current_processing_time(), current_watermark(), window_state(),
    global_state(), output(tag, value). clear(context) runs when the window is removed.
    """

    @abstractmethod
    def process(self, key, context, elements):
        pass

    def clear(self, context):
        pass


class ProcessAllWindowFunction(Function):
    """process(context, elements), for window_all()."""

    @abstractmethod
    def process(self, context, elements):
        pass

    def clear(self, context):
        pass
