"""ORDER BY keys a query does not select (an input column, an aggregate, an expression),
by position and by an output alias, in BATCH mode (sql_order_keys_streaming: the same as
streaming Top-Ns); a ROW(...) column; collected rows printed as PyFlink prints them (no
field names), nested rows too; a Top-N whose ranks start past 1 over an aggregation."""

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

t_env = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
t_env.get_config().set("parallelism.default", "1")
t_env.create_temporary_view("t", t_env.from_elements(ROWS, ["k", "v", "tag"]))
t_env.sql_query(
    "SELECT k, c FROM (SELECT k, COUNT(*) AS c, SUM(v) AS s FROM t "
    "GROUP BY k) ORDER BY s DESC LIMIT 2 OFFSET 1"
).execute().print()
t_env.sql_query(
    "SELECT k FROM t GROUP BY k ORDER BY MAX(v) - MIN(v) DESC, k LIMIT 3"
).execute().print()
t_env.sql_query("SELECT k AS key, v FROM t ORDER BY 2 DESC, key LIMIT 4").execute().print()
t_env.sql_query("SELECT tag, v FROM t ORDER BY k DESC, v LIMIT 3").execute().print()
t_env.sql_query("SELECT UPPER(k) AS k, v * 10 AS ten FROM t ORDER BY tag, v").execute().print()
t_env.sql_query(
    "SELECT tag, k, s, rn FROM (SELECT tag, k, s, ROW_NUMBER() OVER (PARTITION BY "
    "tag ORDER BY s DESC) AS rn FROM (SELECT tag, k, SUM(v) AS s FROM t GROUP BY "
    "tag, k)) WHERE rn BETWEEN 2 AND 3"
).execute().print()
t_env.sql_query(
    "SELECT tag, k, s FROM (SELECT tag, k, s, ROW_NUMBER() OVER (PARTITION BY "
    "tag ORDER BY s DESC) AS rn FROM (SELECT tag, k, SUM(v) AS s FROM t GROUP BY "
    "tag, k)) WHERE rn > 1 AND rn <= 2"
).execute().print()
nested = t_env.sql_query("SELECT k, ROW(v, tag) AS r FROM t ORDER BY v DESC LIMIT 3")
nested.print_schema()
nested.execute().print()
with nested.execute().collect() as rows:
    for row in rows:
        print(row.get_row_kind(), row, row[1][0])
