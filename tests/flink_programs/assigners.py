from weir.common import Duration, Types, WatermarkStrategy
from weir.common.time import Time
from weir.common.watermark_strategy import TimestampAssigner
from weir.datastream import KeyedProcessFunction, StreamExecutionEnvironment
from weir.datastream.connectors.number_seq import NumberSequenceSource
from weir.datastream.window import TumblingEventTimeWindows


class Scaled(TimestampAssigner):
    def __init__(self, scale):
        self.scale = scale

    def extract_timestamp(self, value, record_timestamp):
        return value * self.scale


class Stamps(KeyedProcessFunction):
    def process_element(self, value, ctx):
        yield "element", value, ctx.timestamp()
        ctx.timer_service().register_event_time_timer(ctx.timestamp() + 5000)

    def on_timer(self, timestamp, ctx):
        yield "timer", ctx.get_current_key(), timestamp


env = StreamExecutionEnvironment.get_execution_environment()
env.set_parallelism(1)
ds = env.from_source(NumberSequenceSource(0, 19), WatermarkStrategy.no_watermarks(), "seq")
ds = ds.assign_timestamps_and_watermarks(
    WatermarkStrategy.for_monotonous_timestamps().with_timestamp_assigner(Scaled(1000)))
ds = ds.map(lambda v: v + 1, Types.LONG()).assign_timestamps_and_watermarks(
    WatermarkStrategy.for_bounded_out_of_orderness(Duration.of_seconds(1))
    .with_timestamp_assigner(Scaled(2000)))
keyed = ds.key_by(lambda v: v % 2)
keyed.window(TumblingEventTimeWindows.of(Time.seconds(10))).reduce(lambda a, b: a + b) \
    .print("window")
keyed.process(Stamps()).filter(lambda r: r[1] in (1, 2, 19, 20) or r[0] == "timer") \
    .print("stamps")
env.execute()
