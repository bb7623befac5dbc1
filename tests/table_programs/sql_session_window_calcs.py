"""SESSION window aggregations with a WHERE or a projection between the window table
function and the GROUP BY (Flink applies them to the rows before it puts them in
sessions: a row filtered out does not join or extend a session), and grouped by other
keys than the PARTITION BY keys (Flink then aggregates the sessions' rows, each with its
session's bounds, in a group aggregation: a changelog; by keys of several columns in
sql_session_window_keys.py). The rows are in time order, so none is late."""

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
for query in (
    """SELECT symbol, window_start, window_end, COUNT(*) AS n, SUM(price) AS total
           FROM TABLE(SESSION(TABLE trades PARTITION BY symbol, DESCRIPTOR(ts),
                              INTERVAL '6' SECOND))
           WHERE price < 50
           GROUP BY symbol, window_start, window_end""",
    """SELECT symbol, window_start, window_end, COUNT(*) AS n, SUM(doubled) AS total
           FROM (SELECT symbol, window_start, window_end, price * 2 AS doubled
                 FROM TABLE(SESSION(TABLE trades PARTITION BY symbol, DESCRIPTOR(ts),
                                    INTERVAL '6' SECOND))
                 WHERE price > 1)
           GROUP BY symbol, window_start, window_end""",
    """SELECT window_start, window_end, COUNT(*) AS n, MAX(price) AS top
           FROM TABLE(SESSION(TABLE trades, DESCRIPTOR(ts), INTERVAL '6' SECOND))
           GROUP BY window_start, window_end""",
    """SELECT window_start, window_end, COUNT(*) AS n
           FROM TABLE(SESSION(TABLE trades PARTITION BY symbol, DESCRIPTOR(ts),
                              INTERVAL '6' SECOND))
           GROUP BY window_start, window_end""",
):
    t_env.execute_sql(query).print()
