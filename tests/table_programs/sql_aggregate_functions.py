"""Flink's statistical and collecting aggregate functions in SQL and the Table API
(weir.table.statistic_aggregates): STDDEV_POP/SAMP, VAR_POP/SAMP of DOUBLE and INT
columns, FIRST_VALUE, LAST_VALUE, LISTAGG with and without a separator, NULLs skipped; in
BATCH mode and as a streaming changelog, and over another aggregation's updates
(retraction)."""

from weir.table import DataTypes, EnvironmentSettings, TableEnvironment
from weir.table.expressions import col

ROWS = [
    ("a", 1.5, 3, "x"),
    ("b", 2.0, 10, "y"),
    ("a", 4.25, 4, None),
    ("a", None, 8, "z"),
    ("b", 3.0, 20, "w"),
    ("c", 7.0, 5, "v"),
    ("a", 0.5, 1, "u"),
]
TYPE = DataTypes.ROW(
    [
        DataTypes.FIELD("k", DataTypes.STRING()),
        DataTypes.FIELD("x", DataTypes.DOUBLE()),
        DataTypes.FIELD("n", DataTypes.INT()),
        DataTypes.FIELD("s", DataTypes.STRING()),
    ]
)

for batch in (True, False):
    t_env = TableEnvironment.create(
        EnvironmentSettings.in_batch_mode() if batch else EnvironmentSettings.in_streaming_mode()
    )
    t_env.get_config().set("parallelism.default", "1")
    t_env.create_temporary_view("t", t_env.from_elements(ROWS, TYPE))
    t_env.execute_sql(
        "SELECT k, STDDEV_POP(x) AS sp, STDDEV_SAMP(x) AS ss, VAR_POP(x) AS vp, "
        "VAR_SAMP(x) AS vs, STDDEV_POP(n) AS spn, VAR_SAMP(n) AS vsn FROM t GROUP BY k"
    ).print()
    t_env.execute_sql(
        "SELECT k, FIRST_VALUE(s) AS f, LAST_VALUE(s) AS l, LISTAGG(s) AS a, "
        "LISTAGG(s, '|') AS b, FIRST_VALUE(n) AS fn FROM t GROUP BY k"
    ).print()
    t_env.from_path("t").group_by(col("k")).select(
        col("k"),
        col("x").stddev_pop.alias("sp"),
        col("n").var_pop.alias("vp"),
        col("s").first_value.alias("f"),
        col("s").last_value.alias("l"),
        col("s").list_agg("-").alias("a"),
    ).execute().print()
