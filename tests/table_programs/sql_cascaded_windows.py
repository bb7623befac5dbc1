"""A window aggregation of a window aggregation's rows, grouped by its window_start and
window_end under other names (Flink aggregates the same windows again: rows that only
insert), and the top bidders of each window by a join on those windows (Nexmark q5's
shape)."""

import os
import tempfile

from weir.table import EnvironmentSettings, TableEnvironment

directory = tempfile.mkdtemp()
with open(os.path.join(directory, "bids.csv"), "w") as out:
    out.write(
        "2020-04-15 08:05:00,4,alice\n2020-04-15 08:07:00,2,bob\n"
        "2020-04-15 08:09:00,5,alice\n2020-04-15 08:11:00,3,carol\n"
        "2020-04-15 08:13:00,1,bob\n2020-04-15 08:17:00,6,alice\n"
        "2020-04-15 08:18:30,7,carol\n2020-04-15 08:19:00,9,carol\n"
        "2020-04-15 08:21:00,8,alice\n"
    )

t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
t_env.get_config().set("parallelism.default", "1")
t_env.execute_sql(f"""
    CREATE TABLE bids (bidtime TIMESTAMP(3), price BIGINT, bidder STRING,
                       WATERMARK FOR bidtime AS bidtime - INTERVAL '1' SECOND)
    WITH ('connector' = 'filesystem', 'path' = '{directory}/bids.csv', 'format' = 'csv')
""")
t_env.execute_sql("""
    CREATE VIEW per_bidder AS
    SELECT bidder, COUNT(*) AS num, SUM(price) AS spent, window_start AS starttime,
           window_end AS endtime
    FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES))
    GROUP BY bidder, window_start, window_end
""")
t_env.execute_sql("""
    SELECT starttime, endtime, MAX(num) AS most, SUM(spent) AS total, COUNT(*) AS bidders
    FROM per_bidder GROUP BY starttime, endtime
""").print()
t_env.execute_sql("""
    SELECT P.bidder, P.num, P.starttime
    FROM per_bidder AS P
    JOIN (SELECT MAX(num) AS most, starttime, endtime FROM per_bidder
          GROUP BY starttime, endtime) AS M
    ON P.starttime = M.starttime AND P.endtime = M.endtime AND P.num >= M.most
""").print()
