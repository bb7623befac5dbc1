"""Broadcast partitioning (`broadcast()` without state descriptors): every parallel
instance of the next operator gets every record, a map's and a print sink's."""

from weir.common import Types
from weir.datastream import MapFunction, StreamExecutionEnvironment


class Tag(MapFunction):
    def open(self, runtime_context):
        self.index = runtime_context.get_index_of_this_subtask()

    def map(self, value):
        return f"instance {self.index} got {value}"


env = StreamExecutionEnvironment.get_execution_environment()
env.set_parallelism(2)
words = env.from_collection(["apple", "pear", "fig"], type_info=Types.STRING())
words.broadcast().map(Tag(), output_type=Types.STRING()).print()
words.map(lambda w: w.upper(), output_type=Types.STRING()).broadcast().print()
env.execute("broadcast partitioning")
