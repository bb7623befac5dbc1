"""The legacy conversions real programs still call: to_retract_stream(table, type_info)
gives (flag, row) tuples (the row keeps its kind), to_append_stream(table, type_info)
rows or tuples of the given type, printed as Flink prints them."""

from weir.common import Types
from weir.datastream import StreamExecutionEnvironment
from weir.table import StreamTableEnvironment
from weir.table.expressions import col

env = StreamExecutionEnvironment.get_execution_environment()
env.set_parallelism(1)
t_env = StreamTableEnvironment.create(env)
words = t_env.from_elements([("a", 1), ("a", 2), ("a", 3)], ["w", "n"])
totals = words.group_by(col("w")).select(col("w"), col("n").sum.alias("s"))
t_env.to_retract_stream(totals, Types.ROW([Types.STRING(), Types.LONG()])).print()
env.execute("retract stream")
t_env.to_append_stream(words, Types.ROW([Types.STRING(), Types.LONG()])).print()
env.execute("append stream of rows")
t_env.to_append_stream(words, Types.TUPLE([Types.STRING(), Types.LONG()])).print()
env.execute("append stream of tuples")
