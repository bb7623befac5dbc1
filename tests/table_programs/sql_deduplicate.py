"""Flink's deduplication: ROW_NUMBER() ordered by the event-time attribute, kept where it
is 1. Keeping the last row, a row of an equal or later time replaces the kept one (-U/+U);
keeping the first row, each key's earliest row is inserted once, when the watermark passes
it. The same Top-1 ordered by another column is a Rank (ties: the first to arrive), whose
change of a partition's row is an update too. (One bidder per auction: the comparison of
the outputs takes a row's first column for its key.)"""

import os
import tempfile

from weir.table import EnvironmentSettings, TableEnvironment

directory = tempfile.mkdtemp()
with open(os.path.join(directory, "bids.csv"), "w") as out:
    out.write(
        "1,7,100,2026-01-01 00:00:01\n"
        "1,7,200,2026-01-01 00:00:01\n"
        "1,7,150,2026-01-01 00:00:00\n"
        "2,7,5,2026-01-01 00:00:02\n"
        "3,8,6,2026-01-01 00:00:02.500\n"
        "2,7,9,2026-01-01 00:00:03\n"
        "4,8,40,2026-01-01 00:00:02\n"
        "2,7,9,2026-01-01 00:00:03\n"
        "4,8,40,2026-01-01 00:00:01.999\n"
    )

t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
t_env.get_config().set("parallelism.default", "1")
t_env.execute_sql(f"""
    CREATE TABLE bids (auction BIGINT, bidder BIGINT, price BIGINT, ts TIMESTAMP(3),
                       WATERMARK FOR ts AS ts - INTERVAL '4' SECOND)
    WITH ('connector' = 'filesystem', 'path' = '{directory}/bids.csv', 'format' = 'csv')
""")
for order, rank in (
    ("ts DESC", ""),
    ("ts DESC", ", rn"),
    ("ts ASC", ""),
    ("ts ASC", ", rn"),
    ("price DESC", ""),
):
    t_env.execute_sql(f"""
        SELECT auction, bidder, price, ts{rank} FROM (
            SELECT *, ROW_NUMBER() OVER (PARTITION BY bidder, auction ORDER BY {order}) AS rn
            FROM bids)
        WHERE rn = 1
    """).print()
