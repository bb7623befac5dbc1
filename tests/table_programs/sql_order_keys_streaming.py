"""ORDER BY keys a query does not select, by position and by an output alias, as
streaming Top-Ns (sql_order_keys: BATCH mode). Flink 2.3's Top-N with an OFFSET over an
aggregation's updates ended holding ('a', 2), a count 'a' no longer had, where weir ends
with the query's answer, so OFFSET is in sql_order_keys only."""

from weir.table import EnvironmentSettings, TableEnvironment

ROWS = [
    ("a", 1, "x"),
    ("b", 2, "y"),
    ("a", 3, "y"),
    ("c", 4, "x"),
    ("b", 5, "x"),
    ("a", 6, "z"),
    ("d", 1, "z"),
]

t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
t_env.get_config().set("parallelism.default", "1")
t_env.create_temporary_view("t", t_env.from_elements(ROWS, ["k", "v", "tag"]))
t_env.sql_query(
    "SELECT k FROM t GROUP BY k ORDER BY MAX(v) - MIN(v) DESC, k LIMIT 3"
).execute().print()
t_env.sql_query("SELECT k AS key, v FROM t ORDER BY 2 DESC, key LIMIT 4").execute().print()
t_env.sql_query("SELECT tag, v FROM t ORDER BY k DESC, v LIMIT 3").execute().print()
