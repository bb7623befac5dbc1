"""`weir warm-up`: prepares this machine for quick job starts.

It runs a small keyed job (state, event-time timers, a window) on weir's embedded Spark,
whose JVM records the classes it loaded in an archive as it exits; every later embedded
JVM of the same Java, Spark and memory setting starts from that archive, seconds sooner
(weir.spark.class_archive). A job started on a machine without the archive starts one
in the background when it ends (`--quiet`), so `weir warm-up` only does it sooner.
"""

import json
import os
import sys

from weir.common import Duration, Types, WatermarkStrategy
from weir.datastream import KeyedProcessFunction, StreamExecutionEnvironment
from weir.datastream.state import ValueStateDescriptor
from weir.datastream.window import TumblingEventTimeWindows
from weir.spark import class_archive
from weir.spark.conf import embedded_conf

READINGS = [(f"k{i % 3}", i * 1000) for i in range(12)]


class _CountWithTimer(KeyedProcessFunction):
    def open(self, runtime_context):
        self.count = runtime_context.get_state(ValueStateDescriptor("count", Types.LONG()))

    def process_element(self, value, ctx):
        self.count.update((self.count.value() or 0) + 1)
        ctx.timer_service().register_event_time_timer(ctx.timestamp() + 5000)

    def on_timer(self, timestamp, ctx):
        yield ctx.get_current_key(), self.count.value()


def _job(env) -> None:
    readings = env.from_collection(READINGS).assign_timestamps_and_watermarks(
        WatermarkStrategy.for_bounded_out_of_orderness(
            Duration.of_seconds(1)
        ).with_timestamp_assigner(lambda reading, _: reading[1])
    )
    keyed = readings.key_by(lambda reading: reading[0])
    counts = keyed.process(_CountWithTimer())
    windows = keyed.window(TumblingEventTimeWindows.of(Duration.of_seconds(4))).reduce(
        lambda a, b: (a[0], a[1] + b[1])
    )
    counts.union(windows).add_sink(_discard)
    env.execute_async("weir warm-up").wait()  # (no summary line: `--quiet` prints nothing)


def _discard(value, context) -> None:
    pass


def warm_up(arguments) -> int:
    """Records the archive of Spark's classes, unless it is there or being recorded."""
    env = StreamExecutionEnvironment.get_execution_environment()
    conf = class_archive.recording_conf() or embedded_conf(env.spark_conf, env.parallelism, False)
    archive = class_archive.for_embedded_jvm(conf)
    say = (lambda text: None) if arguments.quiet else (lambda text: print(text, file=sys.stderr))
    if archive is None:
        say(
            f"weir: no class archive ({class_archive.SETTING} is off, the job's Java options "
            f"choose their own class sharing, or no java or Spark was found)"
        )
    elif archive.exists():
        say(f"weir: Spark's class archive is ready: {archive.path}")
    elif not archive.claim():
        say("weir: another process is recording Spark's class archive")
    else:
        os.environ[class_archive.RECORDING] = json.dumps(conf)
        _job(env)
        say(f"weir: recording Spark's classes in {archive.path} as this process exits")
    return 0
