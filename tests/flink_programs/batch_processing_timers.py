"""BATCH mode: when a key's input ends its event-time timers fire, then its
processing-time timers, however far ahead (Flink's BatchExecutionInternalTimeService)."""

from weir.datastream import (KeyedProcessFunction, RuntimeExecutionMode,
                             StreamExecutionEnvironment, TimeDomain)


class LaterTimers(KeyedProcessFunction):
    """Each element registers an event-time timer at `value[1]` and a processing-time
    timer `value[1]` seconds ahead (0: due at once)."""

    def process_element(self, value, ctx):
        timers = ctx.timer_service()
        timers.register_processing_time_timer(
            timers.current_processing_time() + 1000 * value[1])
        timers.register_event_time_timer(value[1])
        yield value, "element"

    def on_timer(self, timestamp, ctx):
        if ctx.time_domain() == TimeDomain.EVENT_TIME:
            yield ctx.get_current_key(), "event-time timer", timestamp
        else:
            yield ctx.get_current_key(), "processing-time timer"


env = StreamExecutionEnvironment.get_execution_environment()
env.set_runtime_mode(RuntimeExecutionMode.BATCH)
env.set_parallelism(1)
env.from_collection([("a", 1), ("b", 2), ("c", 0), ("a", 4), ("a", 2)]) \
    .key_by(lambda v: v[0]).process(LaterTimers()).print()
env.execute()
