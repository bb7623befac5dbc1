"""Stream Processing with Apache Flink's dynamic alert thresholds: thresholds arrive as a
broadcast stream of rules (sensor, valid from, threshold) kept in broadcast state; a
KeyedBroadcastProcessFunction alerts when a sensor's temperature jumps by more than the
threshold valid at the reading's time. Readings are decided in event-time timers, once the
watermark of both inputs passed them, so the output is deterministic; each parallel
instance reports each rule it learns (twice at parallelism 2)."""

from weir.common import Types, WatermarkStrategy
from weir.common.watermark_strategy import TimestampAssigner
from weir.datastream import (KeyedBroadcastProcessFunction, OutputTag,
                             StreamExecutionEnvironment)
from weir.datastream.state import (ListStateDescriptor, MapStateDescriptor,
                                   ValueStateDescriptor)

RULES = [("s1", 0, 5.0), ("s2", 0, 3.0), ("s1", 4000, 1.0), ("s3", 2000, 10.0)]
READINGS = [("s1", 1000, 20.0), ("s2", 1000, 30.0), ("s1", 2000, 24.0), ("s2", 2500, 34.0),
            ("s1", 3000, 30.0), ("s3", 3000, 50.0), ("s1", 5000, 31.5), ("s2", 5000, 35.0),
            ("s3", 6000, 55.0), ("s1", 7000, 31.0), ("s4", 7000, 1.0), ("s4", 8000, 90.0)]
THRESHOLDS = MapStateDescriptor("thresholds", Types.STRING(), Types.PICKLED_BYTE_ARRAY())
LEARNED = OutputTag("learned", Types.STRING())


class Second(TimestampAssigner):
    def extract_timestamp(self, value, record_timestamp):
        return value[1]


class ThresholdAlerts(KeyedBroadcastProcessFunction):
    def open(self, runtime_context):
        self.last = runtime_context.get_state(ValueStateDescriptor("last", Types.DOUBLE()))
        self.pending = runtime_context.get_list_state(ListStateDescriptor(
            "pending", Types.TUPLE([Types.STRING(), Types.LONG(), Types.DOUBLE()])))

    def process_broadcast_element(self, rule, ctx):
        thresholds = ctx.get_broadcast_state(THRESHOLDS)
        history = thresholds.get(rule[0]) or []
        thresholds.put(rule[0], sorted(history + [(rule[1], rule[2])]))
        yield LEARNED, f"rule {rule[0]} from {rule[1]}: {rule[2]}"

    def process_element(self, reading, ctx):
        self.pending.add(reading)
        ctx.timer_service().register_event_time_timer(ctx.timestamp())

    def on_timer(self, timestamp, ctx):
        history = ctx.get_broadcast_state(THRESHOLDS).get(ctx.get_current_key()) or []
        valid = [threshold for start, threshold in history if start <= timestamp]
        keep = []
        for reading in self.pending.get():
            if reading[1] != timestamp:
                keep.append(reading)
                continue
            last = self.last.value()
            self.last.update(reading[2])
            if last is not None and valid and abs(reading[2] - last) > valid[-1]:
                yield f"alert {reading[0]} at {timestamp}: {last} -> {reading[2]} " \
                      f"(threshold {valid[-1]})"
        self.pending.update(keep)


env = StreamExecutionEnvironment.get_execution_environment()
env.set_parallelism(2)
strategy = WatermarkStrategy.for_monotonous_timestamps().with_timestamp_assigner(Second())
readings = env.from_collection(READINGS, Types.TUPLE(
    [Types.STRING(), Types.LONG(), Types.DOUBLE()])).assign_timestamps_and_watermarks(strategy)
rules = env.from_collection(RULES, Types.TUPLE(
    [Types.STRING(), Types.LONG(), Types.DOUBLE()])).assign_timestamps_and_watermarks(strategy)
alerts = readings.key_by(lambda r: r[0]).connect(rules.broadcast(THRESHOLDS)) \
    .process(ThresholdAlerts(), Types.STRING())
alerts.print("alerts")
alerts.get_side_output(LEARNED).print("learned")
env.execute("dynamic thresholds")
