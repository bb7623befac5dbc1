"""Interval joins: rows of two tables joined where their event times lie within a bound
of each other (BETWEEN ... AND ..., or two comparisons), inner and outer; an outer join's
row that met no row in its interval comes out once, padded with NULLs, when the watermark
passes the interval (insert-only: no retraction)."""

import os
import tempfile

from weir.table import EnvironmentSettings, TableEnvironment

directory = tempfile.mkdtemp()
with open(os.path.join(directory, "orders.csv"), "w") as out:
    out.write(
        "2020-04-15 12:00:00,o1,a\n2020-04-15 12:02:00,o2,b\n"
        "2020-04-15 12:05:00,o3,a\n2020-04-15 12:09:00,o4,c\n"
        "2020-04-15 12:30:00,o5,a\n"
    )
with open(os.path.join(directory, "shipments.csv"), "w") as out:
    out.write(
        "2020-04-15 12:01:00,s1,o1\n2020-04-15 12:04:00,s2,o2\n"
        "2020-04-15 12:06:00,s3,o1\n2020-04-15 12:20:00,s4,o3\n"
        "2020-04-15 12:31:00,s5,o5\n2020-04-15 12:40:00,s6,o9\n"
    )

t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
t_env.get_config().set("parallelism.default", "1")
t_env.execute_sql(f"""
    CREATE TABLE orders (order_time TIMESTAMP(3), order_id STRING, customer STRING,
                         WATERMARK FOR order_time AS order_time - INTERVAL '1' SECOND)
    WITH ('connector' = 'filesystem', 'path' = '{directory}/orders.csv', 'format' = 'csv')
""")
t_env.execute_sql(f"""
    CREATE TABLE shipments (ship_time TIMESTAMP(3), ship_id STRING, order_id STRING,
                            WATERMARK FOR ship_time AS ship_time - INTERVAL '1' SECOND)
    WITH ('connector' = 'filesystem', 'path' = '{directory}/shipments.csv',
          'format' = 'csv')
""")
t_env.execute_sql("""
    SELECT o.order_id, s.ship_id, o.order_time, s.ship_time
    FROM orders o, shipments s
    WHERE o.order_id = s.order_id
      AND s.ship_time BETWEEN o.order_time AND o.order_time + INTERVAL '5' MINUTE
""").print()
for kind in ("LEFT", "RIGHT", "FULL"):
    t_env.execute_sql(f"""
        SELECT o.order_id, o.customer, s.ship_id
        FROM orders o {kind} JOIN shipments s
        ON o.order_id = s.order_id AND s.ship_time >= o.order_time
           AND s.ship_time < o.order_time + INTERVAL '5' MINUTE
    """).print()
t_env.execute_sql("""
    SELECT o.order_id, s.ship_id
    FROM orders o JOIN shipments s
    ON o.customer = 'a' AND s.ship_time BETWEEN o.order_time - INTERVAL '1' MINUTE
                                           AND o.order_time + INTERVAL '1' MINUTE
""").print()
