"""Event time in SQL over a csv file with a watermark: TUMBLE, HOP and CUMULATE window
aggregations, OVER aggregations (rows and range) and a Top-N per key."""

import os
import tempfile

from weir.table import EnvironmentSettings, TableEnvironment

directory = tempfile.mkdtemp()
with open(os.path.join(directory, "bids.csv"), "w") as out:
    out.write(
        "2020-04-15 08:05:00,4.00,C,alice\n2020-04-15 08:07:00,2.00,A,bob\n"
        "2020-04-15 08:09:00,5.00,D,alice\n2020-04-15 08:11:00,3.00,B,carol\n"
        "2020-04-15 08:13:00,1.00,E,bob\n2020-04-15 08:17:00,6.00,F,alice\n"
        "2020-04-15 08:18:30,7.50,G,carol\n2020-04-15 08:21:00,0.50,H,alice\n"
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
    SELECT window_start, window_end, SUM(price) AS total, COUNT(*) AS bids
    FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES))
    GROUP BY window_start, window_end
""").print()
t_env.execute_sql("""
    SELECT bidder, window_start, window_end, MAX(price) AS top
    FROM TABLE(HOP(TABLE bids, DESCRIPTOR(bidtime), INTERVAL '5' MINUTES,
                   INTERVAL '10' MINUTES))
    GROUP BY bidder, window_start, window_end
""").print()
t_env.execute_sql("""
    SELECT window_start, window_end, SUM(price) AS total
    FROM TABLE(CUMULATE(TABLE bids, DESCRIPTOR(bidtime), INTERVAL '4' MINUTES,
                        INTERVAL '12' MINUTES))
    GROUP BY window_start, window_end
""").print()
t_env.execute_sql("""
    SELECT bidder, item, price,
           SUM(price) OVER (PARTITION BY bidder ORDER BY bidtime
                            ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS last_two,
           COUNT(*) OVER (PARTITION BY bidder ORDER BY bidtime
                          ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS n
    FROM bids
""").print()
t_env.execute_sql("""
    SELECT bidder, item, price,
           MAX(price) OVER (PARTITION BY bidder ORDER BY bidtime
                            RANGE BETWEEN INTERVAL '5' MINUTE PRECEDING AND CURRENT ROW)
             AS recent_top
    FROM bids
""").print()
t_env.execute_sql("""
    SELECT item, COUNT(*) OVER (PARTITION BY bidder ORDER BY bidtime
                                ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS so_far
    FROM bids
""").print()
t_env.execute_sql("""
    SELECT bidder, item, price, rn FROM (
        SELECT *, ROW_NUMBER() OVER (PARTITION BY bidder ORDER BY price DESC) AS rn
        FROM bids)
    WHERE rn <= 2
""").print()
