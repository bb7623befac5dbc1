"""Top-N whose ranks start past 1: `ROW_NUMBER() ... WHERE rn BETWEEN 2 AND 3` (and
`rn > 1 AND rn <= 3`) with and without the rank number over an insert-only table (each
rank's row updated in place as better rows push it down), per window (`window_start,
window_end` in the partition), and a streaming `ORDER BY ... LIMIT 2 OFFSET 1`. (One row
per price: no ties. Over a changelog: sql_top_n_offsets_changelog.py.)"""

import os
import tempfile

from weir.table import EnvironmentSettings, TableEnvironment

directory = tempfile.mkdtemp()
with open(os.path.join(directory, "bids.csv"), "w") as out:
    for second, (item, price) in enumerate(
        [
            ("a", 10),
            ("b", 30),
            ("a", 20),
            ("c", 25),
            ("b", 5),
            ("c", 40),
            ("a", 35),
            ("d", 15),
            ("b", 45),
            ("d", 1),
            ("c", 12),
            ("a", 8),
        ]
    ):
        out.write(f"{item},{price},2026-01-01 00:00:{second * 2:02d}\n")

t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
t_env.get_config().set("parallelism.default", "1")
t_env.execute_sql(f"""
    CREATE TABLE bids (item STRING, price BIGINT, ts TIMESTAMP(3),
                       WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
    WITH ('connector' = 'filesystem', 'path' = '{directory}/bids.csv', 'format' = 'csv')
""")
for bounds, rank in (
    ("rn BETWEEN 2 AND 3", ", rn"),
    ("rn BETWEEN 2 AND 3", ""),
    ("rn > 1 AND rn <= 3", ", rn"),
):
    t_env.execute_sql(f"""
        SELECT item, price{rank} FROM (
            SELECT *, ROW_NUMBER() OVER (ORDER BY price DESC) AS rn FROM bids)
        WHERE {bounds}
    """).print()
t_env.execute_sql("""
    SELECT window_start, item, price, rn FROM (
        SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end
                                     ORDER BY price DESC) AS rn
        FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(ts), INTERVAL '10' SECOND)))
    WHERE rn BETWEEN 2 AND 3
""").print()
t_env.execute_sql("SELECT item, price FROM bids ORDER BY price LIMIT 2 OFFSET 1").print()
