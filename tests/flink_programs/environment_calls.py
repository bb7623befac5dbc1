"""The environment calls real PyFlink programs make: a Configuration given to
get_execution_environment, add_jars and add_classpaths (Flink's connector jars: weir needs
none), the ExecutionConfig's global job parameters read in a function through
runtime_context.get_job_parameter, the auto-watermark interval and object reuse.
(PyFlink's output was recorded with an existing jar in place of the path below.)"""

from weir.common import Configuration
from weir.datastream import MapFunction, RuntimeContext, StreamExecutionEnvironment


class Tag(MapFunction):
    def open(self, runtime_context: RuntimeContext):
        self.prefix = runtime_context.get_job_parameter("prefix", "none")
        self.missing = runtime_context.get_job_parameter("missing", "default")

    def map(self, value):
        return f"{self.prefix}-{value}-{self.missing}"


config = Configuration()
config.set_integer("parallelism.default", 1)
env = StreamExecutionEnvironment.get_execution_environment(config)
env.add_jars("file:///path/to/flink-sql-connector-kafka.jar")
env.add_classpaths("file:///path/to/flink-connector-base.jar")
env.get_config().set_global_job_parameters({"prefix": "p", "n": 3})
env.get_config().set_auto_watermark_interval(500).enable_object_reuse()
print(env.get_config().get_global_job_parameters(), env.get_parallelism(),
      env.get_config().get_auto_watermark_interval(), env.get_config().is_object_reuse_enabled())
env.from_collection([1, 2]).map(Tag()).print()
env.execute("environment calls")
