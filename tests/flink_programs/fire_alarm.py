"""Stream Processing with Apache Flink's fire alarm: a temperature stream and a smoke-level
stream, connected by building; a reading above 100 degrees raises "Risk of fire!" when the
building's smoke level at that time is HIGH. The book keeps the latest smoke level in a
field and decides as elements arrive, which depends on how the two inputs interleave; here
each reading is decided in an event-time timer, once the watermark of both inputs has
passed it, against the smoke level in force at its time, so Flink's output is
deterministic."""

from weir.common import Types, WatermarkStrategy
from weir.common.watermark_strategy import TimestampAssigner
from weir.datastream import KeyedCoProcessFunction, StreamExecutionEnvironment
from weir.datastream.state import ListStateDescriptor, MapStateDescriptor

BUILDING = {"s1": "north", "s2": "north", "s3": "south", "s4": "south"}
READINGS = [("s1", 1000, 80.0), ("s3", 1000, 120.0), ("s2", 2000, 101.5),
            ("s4", 3000, 130.0), ("s1", 4000, 140.0), ("s3", 5000, 110.0),
            ("s2", 6000, 99.0), ("s4", 7000, 105.0), ("s1", 8000, 150.0)]
SMOKE = [("north", 0, "LOW"), ("south", 0, "LOW"), ("north", 1500, "HIGH"),
         ("south", 4500, "HIGH"), ("north", 7500, "LOW"), ("south", 6500, "LOW")]
READING = Types.TUPLE([Types.STRING(), Types.LONG(), Types.DOUBLE()])


class Second(TimestampAssigner):
    def extract_timestamp(self, value, record_timestamp):
        return value[1]


def building_of(reading):
    return BUILDING[reading[0]]


def building(level):
    return level[0]


class RaiseAlert(KeyedCoProcessFunction):
    """Per building: smoke levels by time, readings waiting for the watermark."""

    def open(self, runtime_context):
        self.smoke = runtime_context.get_map_state(
            MapStateDescriptor("smoke", Types.LONG(), Types.STRING()))
        self.pending = runtime_context.get_list_state(ListStateDescriptor(
            "pending", Types.TUPLE([Types.STRING(), Types.LONG(), Types.DOUBLE()])))

    def process_element1(self, reading, ctx):
        self.pending.add(reading)
        ctx.timer_service().register_event_time_timer(reading[1])

    def process_element2(self, level, ctx):
        self.smoke.put(level[1], level[2])

    def on_timer(self, timestamp, ctx):
        levels = sorted((t, level) for t, level in self.smoke.items() if t <= timestamp)
        smoke = levels[-1][1] if levels else "LOW"
        keep = []
        for reading in self.pending.get():
            if reading[1] != timestamp:
                keep.append(reading)
            elif reading[2] > 100 and smoke == "HIGH":
                yield f"Risk of fire! {reading[0]} in {ctx.get_current_key()} at " \
                      f"{timestamp}: {reading[2]}"
        self.pending.update(keep)


env = StreamExecutionEnvironment.get_execution_environment()
env.set_parallelism(2)
strategy = WatermarkStrategy.for_monotonous_timestamps().with_timestamp_assigner(Second())
temperatures = env.from_collection(READINGS, READING).assign_timestamps_and_watermarks(
    strategy)
smoke = env.from_collection(SMOKE, Types.TUPLE(
    [Types.STRING(), Types.LONG(), Types.STRING()])).assign_timestamps_and_watermarks(strategy)
temperatures.connect(smoke).key_by(building_of, building) \
    .process(RaiseAlert(), Types.STRING()).print()
env.execute("fire alarm")
