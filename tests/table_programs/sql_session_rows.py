"""The SESSION window table function on its own: each row with its session's bounds
(per PARTITION BY key and over the whole table), filtered after the sessions are made,
and under a regular GROUP BY of window_start alone (a changelog). (Late rows: the file is
one micro-batch on weir, whose watermark moves between micro-batches, so the operator's
tests drop them: tests/unit/test_table_session_rows.py.)"""

import os
import tempfile

from weir.table import EnvironmentSettings, TableEnvironment

directory = tempfile.mkdtemp()
with open(os.path.join(directory, "bids.csv"), "w") as out:
    out.write(
        "2020-04-15 08:05:00,4.00,C,alice\n2020-04-15 08:07:00,2.00,A,bob\n"
        "2020-04-15 08:09:00,5.00,D,alice\n2020-04-15 08:11:00,3.00,B,carol\n"
        "2020-04-15 08:13:00,1.00,E,bob\n2020-04-15 08:17:00,6.00,F,alice\n"
        "2020-04-15 08:18:30,7.50,G,carol\n2020-04-15 08:31:00,0.50,H,alice\n"
        "2020-04-15 08:33:00,1.50,I,carol\n"
    )

t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
t_env.get_config().set("parallelism.default", "1")
t_env.execute_sql(f"""
    CREATE TABLE bids (bidtime TIMESTAMP(3), price DECIMAL(10, 2), item STRING,
                       bidder STRING,
                       WATERMARK FOR bidtime AS bidtime - INTERVAL '1' SECOND)
    WITH ('connector' = 'filesystem', 'path' = '{directory}/bids.csv', 'format' = 'csv')
""")
t_env.execute_sql("""
    SELECT bidder, item, bidtime, window_start, window_end, window_time
    FROM TABLE(SESSION(TABLE bids PARTITION BY bidder, DESCRIPTOR(bidtime),
                       INTERVAL '5' MINUTES))
""").print()
t_env.execute_sql("""
    SELECT item, window_start, window_end
    FROM TABLE(SESSION(TABLE bids, DESCRIPTOR(bidtime), INTERVAL '3' MINUTES))
    WHERE price > 2
""").print()
t_env.execute_sql("""
    SELECT window_start, COUNT(*) AS bids, SUM(price) AS total
    FROM TABLE(SESSION(TABLE bids PARTITION BY bidder, DESCRIPTOR(bidtime),
                       INTERVAL '5' MINUTES))
    GROUP BY window_start
""").print()
