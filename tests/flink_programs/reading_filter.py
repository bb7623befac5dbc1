"""Stream Processing with Apache Flink's reading filter, in event time: a switch
(sensor, time, duration) lets a sensor's readings through for `duration` milliseconds.
Both inputs share the sensor's state and timers (KeyedCoProcessFunction); a reading is
decided when the watermark of both inputs passes it, so the output is deterministic."""

from weir.common import Types, WatermarkStrategy
from weir.common.watermark_strategy import TimestampAssigner
from weir.datastream import KeyedCoProcessFunction, OutputTag, StreamExecutionEnvironment
from weir.datastream.state import ListStateDescriptor, MapStateDescriptor

DROPPED = OutputTag("dropped", Types.STRING())
READINGS = [("s1", 1000, 20.5), ("s2", 1500, 31.0), ("s1", 2000, 21.0), ("s1", 4000, 22.5),
            ("s2", 4500, 33.0), ("s3", 5000, 10.0), ("s1", 7000, 23.5), ("s2", 8000, 35.0)]
SWITCHES = [("s1", 500, 2000), ("s2", 4000, 5000), ("s1", 6500, 1000), ("s4", 100, 100)]


class Second(TimestampAssigner):
    def extract_timestamp(self, value, record_timestamp):
        return value[1]


class ReadingFilter(KeyedCoProcessFunction):
    def open(self, runtime_context):
        self.pending = runtime_context.get_list_state(ListStateDescriptor(
            "pending", Types.TUPLE([Types.STRING(), Types.LONG(), Types.DOUBLE()])))
        self.open_until = runtime_context.get_map_state(
            MapStateDescriptor("open_until", Types.LONG(), Types.LONG()))

    def process_element1(self, reading, ctx):
        self.pending.add(reading)
        ctx.timer_service().register_event_time_timer(ctx.timestamp())

    def process_element2(self, switch, ctx):
        self.open_until.put(switch[1], switch[1] + switch[2])
        yield DROPPED, f"switch {ctx.get_current_key()} {switch[1]}+{switch[2]}"

    def on_timer(self, timestamp, ctx):
        keep = []
        for reading in self.pending.get():
            if reading[1] != timestamp:
                keep.append(reading)
            elif any(start <= timestamp < end for start, end in self.open_until.items()):
                yield reading
            else:
                yield DROPPED, f"dropped {ctx.get_current_key()} {reading[1]}"
        self.pending.update(keep)


env = StreamExecutionEnvironment.get_execution_environment()
env.set_parallelism(1)
strategy = WatermarkStrategy.for_monotonous_timestamps().with_timestamp_assigner(Second())
readings = env.from_collection(READINGS, Types.TUPLE(
    [Types.STRING(), Types.LONG(), Types.DOUBLE()])).assign_timestamps_and_watermarks(strategy)
switches = env.from_collection(SWITCHES, Types.TUPLE(
    [Types.STRING(), Types.LONG(), Types.LONG()])).assign_timestamps_and_watermarks(strategy)
forwarded = readings.connect(switches) \
    .key_by(lambda r: r[0], lambda s: s[0]) \
    .process(ReadingFilter(), Types.TUPLE([Types.STRING(), Types.LONG(), Types.DOUBLE()]))
forwarded.print("forwarded")
forwarded.get_side_output(DROPPED).print("side")
env.execute("reading filter")
