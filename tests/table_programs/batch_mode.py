"""BATCH mode: final results only (no changelog), and the tableau without the op column,
its widths from the data."""

from weir.table import DataTypes, EnvironmentSettings, TableEnvironment
from weir.table.expressions import col

t_env = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
t_env.get_config().set("parallelism.default", "1")
table = t_env.from_elements(
    [("apple", 3, 1.5), ("pear", 1, 2.25), ("apple", 2, None), ("a long name of a fruit", 4, 0.5)],
    DataTypes.ROW(
        [
            DataTypes.FIELD("item", DataTypes.STRING()),
            DataTypes.FIELD("qty", DataTypes.INT()),
            DataTypes.FIELD("price", DataTypes.DOUBLE()),
        ]
    ),
)
table.execute().print()
table.group_by(col("item")).select(
    col("item"), col("qty").sum.alias("qty"), col("price").max.alias("top")
).execute().print()
t_env.create_temporary_view("fruit", table)
t_env.execute_sql("SELECT COUNT(*) AS n, SUM(qty) AS q FROM fruit").print()
t_env.execute_sql("SELECT item FROM fruit WHERE qty > 10").print()
