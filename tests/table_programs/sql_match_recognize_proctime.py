"""MATCH_RECOGNIZE ordered by a processing-time attribute (PROCTIME()): rows are matched
in the order they arrive, per symbol, with no watermark to wait for."""

import os
import tempfile

from weir.table import EnvironmentSettings, TableEnvironment

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
        ("b", 2),
        ("a", 9),
        ("a", 8),
        ("b", 7),
    ]:
        out.write(f"{symbol},{price}\n")

t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
t_env.get_config().set("parallelism.default", "1")
t_env.execute_sql(f"""
    CREATE TABLE prices (symbol STRING, price BIGINT, pt AS PROCTIME())
    WITH ('connector' = 'filesystem', 'path' = '{directory}/prices.csv', 'format' = 'csv')
""")
t_env.execute_sql("""
    SELECT * FROM prices MATCH_RECOGNIZE (
        PARTITION BY symbol ORDER BY pt
        MEASURES A.price AS low, LAST(B.price) AS high, COUNT(B.price) AS rises
        AFTER MATCH SKIP PAST LAST ROW
        PATTERN (A B+? C)
        DEFINE B AS B.price > A.price, C AS C.price < LAST(B.price))
""").print()
