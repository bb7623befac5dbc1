from weir.datastream import KeyedProcessFunction, StreamExecutionEnvironment
class P(KeyedProcessFunction):
    def process_element(self, value, ctx):
        ctx.timer_service().register_processing_time_timer(ctx.timer_service().current_processing_time() + 3000)
        yield value, "element"
    def on_timer(self, timestamp, ctx):
        yield ctx.get_current_key(), "timer"
env = StreamExecutionEnvironment.get_execution_environment()
env.set_parallelism(1)
env.from_collection([1, 2, 3]).key_by(lambda v: v).process(P()).print()
env.execute()
