"""Flink's statistical and collecting aggregate functions over another aggregation's
updates (retraction: weir.table.statistic_aggregates); compared on final rows, since
weir's second aggregation sees the first one's updates key group by key group."""

from weir.table import DataTypes, EnvironmentSettings, TableEnvironment

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


t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
t_env.get_config().set("parallelism.default", "1")
t_env.create_temporary_view("t", t_env.from_elements(ROWS, TYPE))
t_env.execute_sql(
    "SELECT c, LISTAGG(k) AS ks, VAR_POP(total) AS v, LAST_VALUE(k) AS lk FROM "
    "(SELECT k, COUNT(*) AS c, SUM(n) AS total FROM t GROUP BY k) GROUP BY c"
).print()
