"""Overheating alerts with CEP: per sensor, three readings over 100 degrees within 10 s
is an alert; a run of hot readings whose 10 s pass before the third is reported as a
warning (a timed-out partial match, to a side output).

The pattern, in FlinkCEP's API (weir.cep):

    hot: temperature > 100, three times (not necessarily in a row), within 10 s;
    after a match, skip past its last reading (no overlapping alerts).

The readings are a fixed list with event times; the watermark follows them, so the
result is the same every run. The alerts and the warnings are printed together.

Run: `.venv/bin/python examples/overheating_alert.py` (on an embedded local Spark).
"""

from weir.cep import (
    CEP,
    AfterMatchSkipStrategy,
    Duration,
    Pattern,
    PatternProcessFunction,
    TimedOutPartialMatchHandler,
)
from weir.common import Types, WatermarkStrategy
from weir.common.watermark_strategy import TimestampAssigner
from weir.datastream import StreamExecutionEnvironment
from weir.datastream.output_tag import OutputTag

THRESHOLD = 100.0
WARNINGS = OutputTag("warnings", Types.STRING())

# (sensor, temperature, seconds)
READINGS = [
    ("sensor-1", 101.0, 0),
    ("sensor-2", 102.0, 1),
    ("sensor-1", 95.0, 3),
    ("sensor-1", 104.0, 5),
    ("sensor-1", 107.0, 8),
    ("sensor-2", 103.0, 12),
    ("sensor-2", 99.0, 14),
    ("sensor-3", 110.0, 20),
    ("sensor-3", 111.0, 22),
    ("sensor-3", 112.0, 25),
    ("sensor-3", 113.0, 27),
]


class ReadingTime(TimestampAssigner):
    def extract_timestamp(self, value, record_timestamp) -> int:
        return value[2] * 1000


class Overheating(PatternProcessFunction, TimedOutPartialMatchHandler):
    def process_match(self, match, ctx):
        hot = match["hot"]
        temperatures = ", ".join(f"{r[1]:.1f}" for r in hot)
        yield (
            f"ALERT {hot[0][0]}: 3 readings over {THRESHOLD:.1f} in "
            f"{hot[-1][2] - hot[0][2]} s ({temperatures})"
        )

    def process_timed_out_match(self, match, ctx):
        hot = match["hot"]
        ctx.output(
            WARNINGS,
            f"warning {hot[0][0]}: {len(hot)} reading(s) over "
            f"{THRESHOLD:.1f} from {hot[0][2]} s, none more by "
            f"{ctx.timestamp() // 1000} s",
        )


def overheating_pattern() -> Pattern:
    return (
        Pattern.begin("hot", AfterMatchSkipStrategy.skip_past_last_event())
        .where(lambda r: r[1] > THRESHOLD)
        .times(3)
        .within(Duration.of_seconds(10))
    )


def build(env):
    readings = env.from_collection(
        READINGS, Types.TUPLE([Types.STRING(), Types.DOUBLE(), Types.LONG()])
    ).assign_timestamps_and_watermarks(
        WatermarkStrategy.for_monotonous_timestamps().with_timestamp_assigner(ReadingTime())
    )
    alerts = CEP.pattern(readings.key_by(lambda r: r[0]), overheating_pattern()).process(
        Overheating(), Types.STRING()
    )
    reports = alerts.union(alerts.get_side_output(WARNINGS))
    reports.print()
    return reports


if __name__ == "__main__":
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(1)
    build(env)
    env.execute("overheating alerts")
