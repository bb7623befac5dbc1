from weir.common import Types, WatermarkStrategy
from weir.common.time import Time
from weir.common.watermark_strategy import TimestampAssigner
from weir.datastream import (KeyedProcessFunction, RuntimeExecutionMode,
                                StreamExecutionEnvironment)
from weir.datastream.state import ValueStateDescriptor
from weir.datastream.window import TumblingEventTimeWindows


class Stamp(TimestampAssigner):
    def extract_timestamp(self, value, record_timestamp):
        return value[1]


class Totals(KeyedProcessFunction):
    """Sums per key; a timer 10 ms after each element reports the running total."""

    def open(self, runtime_context):
        self.total = runtime_context.get_state(ValueStateDescriptor("total", Types.INT()))

    def process_element(self, value, ctx):
        self.total.update((self.total.value() or 0) + value[2])
        ctx.timer_service().register_event_time_timer(ctx.timestamp() + 10)

    def on_timer(self, timestamp, ctx):
        yield ctx.get_current_key(), "timer", timestamp, self.total.value()


env = StreamExecutionEnvironment.get_execution_environment()
env.set_runtime_mode(RuntimeExecutionMode.BATCH)
env.set_parallelism(1)
events = env.from_collection(
    [("a", 1, 1), ("b", 2, 5), ("a", 12, 2), ("a", 3, 4), ("b", 40, 1), ("c", 7, 3),
     ("a", 30, 6), ("b", 41, 2)],
    Types.TUPLE([Types.STRING(), Types.INT(), Types.INT()])
).assign_timestamps_and_watermarks(
    WatermarkStrategy.for_monotonous_timestamps().with_timestamp_assigner(Stamp()))
keyed = events.key_by(lambda v: v[0])
keyed.process(Totals()).print("timers")
keyed.window(TumblingEventTimeWindows.of(Time.milliseconds(10))) \
    .reduce(lambda a, b: (a[0], max(a[1], b[1]), a[2] + b[2])).print("tumbling")
keyed.sum(2).print("sum")
env.execute()
