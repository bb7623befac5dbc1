"""OVER aggregations ordered by a processing-time attribute (PROCTIME()): each row is
emitted when it comes, with the aggregates over its partition's rows so far (unbounded)
or its last rows (ROWS ... PRECEDING), in arrival order, in SQL and in the Table API."""

import os
import tempfile

from weir.table import EnvironmentSettings, TableEnvironment
from weir.table.expressions import CURRENT_ROW, UNBOUNDED_ROW, col, row_interval
from weir.table.window import Over

directory = tempfile.mkdtemp()
with open(os.path.join(directory, "prices.csv"), "w") as out:
    for symbol, price in [
        ("a", 1),
        ("b", 5),
        ("a", 3),
        ("a", 2),
        ("b", 6),
        ("a", 4),
        ("b", 1),
        ("c", 7),
        ("a", 9),
    ]:
        out.write(f"{symbol},{price}\n")

t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
t_env.get_config().set("parallelism.default", "1")
t_env.execute_sql(f"""
    CREATE TABLE prices (symbol STRING, price BIGINT, pt AS PROCTIME())
    WITH ('connector' = 'filesystem', 'path' = '{directory}/prices.csv', 'format' = 'csv')
""")
t_env.execute_sql("""
    SELECT symbol, price,
           SUM(price) OVER w AS total, COUNT(*) OVER w AS n, MAX(price) OVER w AS top
    FROM prices
    WINDOW w AS (PARTITION BY symbol ORDER BY pt
                 ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
""").print()
t_env.execute_sql("""
    SELECT symbol, price,
           SUM(price) OVER (PARTITION BY symbol ORDER BY pt
                            ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS last_two,
           MIN(price) OVER (PARTITION BY symbol ORDER BY pt
                            ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS low
    FROM prices
""").print()
t_env.execute_sql("""
    SELECT symbol, price, AVG(price) OVER (ORDER BY pt
        RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS average
    FROM prices
""").print()
t_env.from_path("prices").over_window(
    Over.partition_by(col("symbol")).order_by(col("pt")).preceding(row_interval(2)).alias("w")
).select(col("symbol"), col("price"), col("price").sum.over(col("w")).alias("s")).execute().print()
t_env.from_path("prices").over_window(
    Over.partition_by(col("symbol"))
    .order_by(col("pt"))
    .preceding(UNBOUNDED_ROW)
    .following(CURRENT_ROW)
    .alias("w")
).select(col("symbol"), col("price"), col("price").max.over(col("w")).alias("m")).execute().print()
