"""A Top-N whose ranks start past 1 over a changelog (a group aggregation's sums), with
the rank number: its final rows are Flink's (compared as final tables: the intermediate
changes follow each side's order of the aggregation's updates). Without the rank number
PyFlink 2.3's own changelog does not add up to its Top-N (it retracts rows it never
inserted), so that form is checked against a brute force in
tests/unit/test_table_changelog_rank.py instead."""

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
t_env.execute_sql("""
    SELECT item, total, rn FROM (
        SELECT *, ROW_NUMBER() OVER (ORDER BY total DESC) AS rn FROM (
            SELECT item, SUM(price) AS total FROM bids GROUP BY item))
    WHERE rn >= 2 AND rn <= 3
""").print()
