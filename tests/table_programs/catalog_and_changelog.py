"""What programs mixing the DataStream API and catalog calls use: from_changelog_stream of
Rows with their kinds (a SUM over it retracts an emptied group), the current catalog and
database, listing and dropping views and functions, an insert into an inline
TableDescriptor sink through Table.insert_into(...).execute()."""

from weir.common import Row, Types
from weir.common.types import RowKind
from weir.datastream import StreamExecutionEnvironment
from weir.table import StreamTableEnvironment, TableDescriptor, Schema, DataTypes
from weir.table.udf import udf

env = StreamExecutionEnvironment.get_execution_environment()
env.set_parallelism(1)
t_env = StreamTableEnvironment.create(env)
rows = [
    Row.of_kind(RowKind.INSERT, "alice", 12),
    Row.of_kind(RowKind.INSERT, "bob", 5),
    Row.of_kind(RowKind.UPDATE_BEFORE, "alice", 12),
    Row.of_kind(RowKind.UPDATE_AFTER, "alice", 100),
    Row.of_kind(RowKind.DELETE, "bob", 5),
]
stream = env.from_collection(
    rows, type_info=Types.ROW_NAMED(["name", "score"], [Types.STRING(), Types.INT()])
)
table = t_env.from_changelog_stream(stream)
t_env.create_temporary_view("scores", table)
t_env.execute_sql("SELECT name, SUM(score) AS total FROM scores GROUP BY name").print()
print(t_env.get_current_catalog(), t_env.get_current_database())
print(sorted(t_env.list_temporary_views()))
t_env.create_temporary_function("twice", udf(lambda v: v * 2, result_type=DataTypes.INT()))
print(t_env.list_user_defined_functions())
t_env.drop_temporary_function("twice")
print(t_env.list_user_defined_functions())
t_env.drop_temporary_view("scores")
print(t_env.list_temporary_views())
sink = (
    TableDescriptor.for_connector("print")
    .schema(
        Schema.new_builder()
        .column("name", DataTypes.STRING())
        .column("score", DataTypes.BIGINT())
        .build()
    )
    .build()
)
t_env.from_elements([("carol", 7)], ["name", "score"]).insert_into(sink).execute().wait()
