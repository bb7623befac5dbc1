"""A processing-time timer still pending when a bounded input ends does not fire."""

from weir.datastream import KeyedProcessFunction, StreamExecutionEnvironment


class LaterTimer(KeyedProcessFunction):
    def process_element(self, value, ctx):
        timers = ctx.timer_service()
        timers.register_processing_time_timer(timers.current_processing_time() + 3000)
        yield value, "element"

    def on_timer(self, timestamp, ctx):
        yield ctx.get_current_key(), "timer"


env = StreamExecutionEnvironment.get_execution_environment()
env.set_parallelism(1)
env.from_collection([1, 2, 3]).key_by(lambda v: v).process(LaterTimer()).print()
env.execute()
