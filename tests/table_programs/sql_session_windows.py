"""The SESSION window table function: sessions per PARTITION BY key (in parentheses or
not), and over the whole table, with the window columns named, renamed and computed on."""

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
    SELECT bidder, window_start, window_end, SUM(price) AS total, COUNT(*) AS bids
    FROM TABLE(SESSION(TABLE bids PARTITION BY bidder, DESCRIPTOR(bidtime),
                       INTERVAL '5' MINUTES))
    GROUP BY bidder, window_start, window_end
""").print()
t_env.execute_sql("""
    SELECT window_start AS opened, window_end, window_time, MAX(price) AS top
    FROM TABLE(SESSION(TABLE bids, DESCRIPTOR(bidtime), INTERVAL '3' MINUTES))
    GROUP BY window_start, window_end, window_time
""").print()
t_env.execute_sql("""
    SELECT item, bidder, COUNT(*) AS n,
           TIMESTAMPDIFF(MINUTE, window_start, window_end) AS minutes
    FROM TABLE(SESSION(TABLE bids PARTITION BY (item, bidder), DESCRIPTOR(bidtime),
                       INTERVAL '1' MINUTE))
    GROUP BY window_start, window_end, bidder, item
""").print()
