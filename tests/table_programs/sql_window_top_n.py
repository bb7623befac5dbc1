"""Window Top-N and window deduplication: ROW_NUMBER() over PARTITION BY window_start,
window_end (and keys) over a window aggregation's rows and right over a window table
function's rows (TUMBLE, HOP), kept where the number is small: each window's final
rows, inserted once the window ends."""

import os
import tempfile

from weir.table import EnvironmentSettings, TableEnvironment

directory = tempfile.mkdtemp()
with open(os.path.join(directory, "bids.csv"), "w") as out:
    out.write(
        "2020-04-15 08:05:00,4.00,C,supplier1\n2020-04-15 08:07:00,2.00,A,supplier1\n"
        "2020-04-15 08:09:00,5.00,D,supplier2\n2020-04-15 08:11:00,3.00,B,supplier2\n"
        "2020-04-15 08:13:00,1.00,E,supplier1\n2020-04-15 08:17:00,6.00,F,supplier2\n"
        "2020-04-15 08:18:30,6.00,G,supplier1\n2020-04-15 08:19:00,2.50,H,supplier3\n"
        "2020-04-15 08:21:00,7.00,I,supplier3\n"
    )

t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
t_env.get_config().set("parallelism.default", "1")
t_env.execute_sql(f"""
    CREATE TABLE bids (bidtime TIMESTAMP(3), price DECIMAL(10, 2), item STRING,
                       supplier_id STRING,
                       WATERMARK FOR bidtime AS bidtime - INTERVAL '1' SECOND)
    WITH ('connector' = 'filesystem', 'path' = '{directory}/bids.csv', 'format' = 'csv')
""")
t_env.execute_sql("""
    SELECT * FROM (
      SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end
                                   ORDER BY price DESC) AS rownum
      FROM (
        SELECT window_start, window_end, supplier_id, SUM(price) AS price, COUNT(*) AS cnt
        FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES))
        GROUP BY window_start, window_end, supplier_id))
    WHERE rownum <= 2
""").print()
t_env.execute_sql("""
    SELECT window_start, window_end, item, price, rownum FROM (
      SELECT item, price, window_start, window_end,
             ROW_NUMBER() OVER (PARTITION BY window_start, window_end
                                ORDER BY price DESC) AS rownum
      FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES)))
    WHERE rownum <= 3
""").print()
t_env.execute_sql("""
    SELECT window_start, supplier_id, item, price FROM (
      SELECT supplier_id, item, price, window_start, window_end,
             ROW_NUMBER() OVER (PARTITION BY window_start, window_end, supplier_id
                                ORDER BY price ASC) AS rownum
      FROM TABLE(HOP(TABLE bids, DESCRIPTOR(bidtime), INTERVAL '5' MINUTES,
                     INTERVAL '10' MINUTES)))
    WHERE rownum = 1
""").print()
t_env.execute_sql("""
    SELECT window_start, supplier_id, item, bidtime FROM (
      SELECT supplier_id, item, bidtime, window_start, window_end,
             ROW_NUMBER() OVER (PARTITION BY window_start, window_end, supplier_id
                                ORDER BY bidtime DESC) AS rownum
      FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES)))
    WHERE rownum <= 1
""").print()
