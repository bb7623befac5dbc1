"""Event-time temporal joins: each order joined with the version of its currency's rate
valid at the order's time (`FOR SYSTEM_TIME AS OF o.order_time` over a versioned table:
a primary key and an event-time attribute), inner and LEFT (an order before any rate of
its currency keeps its row with NULLs), emitted once the watermark passes the order; and
over a versioned view (a deduplication keeping each currency's latest rate)."""

import os
import tempfile

from weir.table import EnvironmentSettings, TableEnvironment

directory = tempfile.mkdtemp()
with open(os.path.join(directory, "orders.csv"), "w") as out:
    out.write(
        "2020-04-15 12:00:00,o1,2,EUR\n2020-04-15 12:01:00,o2,1,USD\n"
        "2020-04-15 12:03:00,o3,5,EUR\n2020-04-15 12:05:00,o4,3,JPY\n"
        "2020-04-15 12:07:00,o5,4,EUR\n2020-04-15 12:09:00,o6,2,USD\n"
        "2020-04-15 12:20:00,o7,1,EUR\n"
    )
with open(os.path.join(directory, "rates.csv"), "w") as out:
    out.write(
        "2020-04-15 11:59:00,EUR,114\n2020-04-15 12:00:30,USD,102\n"
        "2020-04-15 12:02:00,EUR,116\n2020-04-15 12:06:00,JPY,1\n"
        "2020-04-15 12:07:00,EUR,119\n2020-04-15 12:08:00,USD,103\n"
        "2020-04-15 12:21:00,EUR,120\n"
    )

t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
t_env.get_config().set("parallelism.default", "1")
t_env.execute_sql(f"""
    CREATE TABLE orders (order_time TIMESTAMP(3), order_id STRING, amount INT,
                         currency STRING,
                         WATERMARK FOR order_time AS order_time - INTERVAL '1' SECOND)
    WITH ('connector' = 'filesystem', 'path' = '{directory}/orders.csv', 'format' = 'csv')
""")
t_env.execute_sql(f"""
    CREATE TABLE rates (update_time TIMESTAMP(3), currency STRING, rate INT,
                        PRIMARY KEY (currency) NOT ENFORCED,
                        WATERMARK FOR update_time AS update_time - INTERVAL '1' SECOND)
    WITH ('connector' = 'filesystem', 'path' = '{directory}/rates.csv', 'format' = 'csv')
""")
t_env.execute_sql("""
    SELECT o.order_id, o.order_time, o.amount * r.rate AS converted, r.update_time
    FROM orders AS o
    JOIN rates FOR SYSTEM_TIME AS OF o.order_time AS r ON o.currency = r.currency
""").print()
t_env.execute_sql("""
    SELECT o.order_id, o.currency, r.rate
    FROM orders AS o
    LEFT JOIN rates FOR SYSTEM_TIME AS OF o.order_time AS r
    ON o.currency = r.currency AND r.rate > 100
""").print()
t_env.execute_sql(f"""
    CREATE TABLE rates_log (update_time TIMESTAMP(3), currency STRING, rate INT,
                            WATERMARK FOR update_time AS update_time - INTERVAL '1' SECOND)
    WITH ('connector' = 'filesystem', 'path' = '{directory}/rates.csv', 'format' = 'csv')
""")
t_env.execute_sql("""
    CREATE VIEW versioned_rates AS
    SELECT currency, rate, update_time FROM (
      SELECT *, ROW_NUMBER() OVER (PARTITION BY currency ORDER BY update_time DESC) AS n
      FROM rates_log)
    WHERE n = 1
""")
t_env.execute_sql("""
    SELECT o.order_id, o.amount * r.rate AS converted
    FROM orders AS o
    JOIN versioned_rates FOR SYSTEM_TIME AS OF o.order_time AS r
    ON o.currency = r.currency
""").print()
