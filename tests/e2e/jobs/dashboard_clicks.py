"""A job for the dashboard's test (and its screenshot): clicks per page in 5 s tumbling
event-time windows, the clicks stamped with the time they are generated (every 7th one a
minute late, which the window drops and counts), a few pages taking most clicks (skew
across key groups), at parallelism 2.

Usage: weir run -d dashboard_clicks.py OUTPUT_DIR EVENTS RATE
"""

import sys
import time

from weir.common import Duration, Time, WatermarkStrategy
from weir.datastream import MapFunction, StreamExecutionEnvironment
from weir.datastream.connectors import DataGeneratorSource, FileSink
from weir.datastream.window import TumblingEventTimeWindows

PAGES = ["home"] * 6 + ["search"] * 3 + ["cart"] * 2 + [f"item-{n}" for n in range(12)]


def click(index):
    late = 60_000 if index % 7 == 0 else 0
    return (PAGES[(index * 7919) % len(PAGES)], int(time.time() * 1000) - late)


class Visit(MapFunction):
    """A click as (page, 1, time), counting the clicks of the home page in a metric."""

    def open(self, runtime_context):
        self.home = runtime_context.get_metrics_group().counter("home_clicks")

    def map(self, value):
        if value[0] == "home":
            self.home.inc()
        return (value[0], 1, value[1])


def main(output_dir, events, rate):
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(2).set_spark_config("spark.master", "local[2]")
    env.enable_checkpointing(500)
    source = DataGeneratorSource(
        click, count=events, records_per_second=rate, max_records_per_batch=max(1, int(rate))
    )
    strategy = WatermarkStrategy.for_bounded_out_of_orderness(
        Duration.of_seconds(1)
    ).with_timestamp_assigner(lambda c, ts: c[1])
    visits = env.from_source(source, strategy, "clicks").uid("clicks").map(Visit()).uid("visits")
    counts = (
        visits.key_by(lambda v: v[0])
        .window(TumblingEventTimeWindows.of(Time.seconds(5)))
        .reduce(lambda a, b: (a[0], a[1] + b[1], max(a[2], b[2])))
        .uid("clicks-per-page")
    )
    counts.sink_to(FileSink.for_json_lines(output_dir).build()).uid("counts-out")
    env.execute("clicks per page")


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), float(sys.argv[3]))
