"""A SESSION window aggregation grouped by other keys than the PARTITION BY keys, and
by an expression: Flink aggregates the sessions' rows, each with its session's bounds, in
a group aggregation (a changelog); a WHERE between filters the sessions' rows (the
sessions are the whole table's: a row filtered out still joins its session). Compared as
final tables: weir's aggregation takes a micro-batch's rows key group by key group, so
the order of its intermediate changes across groups is not Flink's
(docs/limitations.md)."""

import os
import tempfile

from weir.table import EnvironmentSettings, TableEnvironment

directory = tempfile.mkdtemp()
with open(os.path.join(directory, "trades.csv"), "w") as out:
    for symbol, price, second in [
        ("a", 1, 0),
        ("b", 2, 1),
        ("a", 100, 5),
        ("b", 4, 6),
        ("a", 3, 10),
        ("b", 6, 20),
        ("a", 7, 30),
        ("b", 8, 33),
        ("a", 9, 34),
        ("b", 1, 50),
    ]:
        out.write(f"{symbol},{price},2026-01-01 00:00:{second:02d}\n")

t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
t_env.get_config().set("parallelism.default", "1")
t_env.execute_sql(f"""
    CREATE TABLE trades (symbol STRING, price BIGINT, ts TIMESTAMP(3),
                         WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
    WITH ('connector' = 'filesystem', 'path' = '{directory}/trades.csv', 'format' = 'csv')
""")
t_env.execute_sql("""
    SELECT symbol, price > 5 AS big, window_start, window_end, COUNT(*) AS n
    FROM TABLE(SESSION(TABLE trades PARTITION BY symbol, DESCRIPTOR(ts),
                       INTERVAL '6' SECOND))
    GROUP BY symbol, price > 5, window_start, window_end
""").print()
t_env.execute_sql("""
    SELECT price > 5 AS big, window_start, window_end, COUNT(*) AS n
    FROM TABLE(SESSION(TABLE trades PARTITION BY symbol, DESCRIPTOR(ts),
                       INTERVAL '6' SECOND))
    WHERE price < 50
    GROUP BY price > 5, window_start, window_end
""").print()
