"""SQL's group windows in GROUP BY (TUMBLE, HOP, SESSION with their _START and _END)
over a table with a computed time attribute."""

import os
import tempfile

from weir.table import EnvironmentSettings, TableEnvironment

directory = tempfile.mkdtemp()
with open(os.path.join(directory, "clicks.csv"), "w") as out:
    out.write(
        "ann,1000,/home\nbob,2500,/cart\nann,3000,/cart\nann,9000,/home\n"
        "bob,14000,/pay\ncy,15500,/home\nann,21000,/home\nbob,21500,/home\n"
    )

t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
t_env.get_config().set("parallelism.default", "1")
t_env.execute_sql(f"""
    CREATE TABLE clicks (usr STRING, ms BIGINT, url STRING,
                         ts AS TO_TIMESTAMP_LTZ(ms, 3),
                         WATERMARK FOR ts AS ts - INTERVAL '2' SECOND)
    WITH ('connector' = 'filesystem', 'path' = '{directory}/clicks.csv', 'format' = 'csv')
""")
t_env.execute_sql("""
    SELECT usr, COUNT(*) AS n, TUMBLE_START(ts, INTERVAL '10' SECOND) AS wstart,
           TUMBLE_END(ts, INTERVAL '10' SECOND) AS wend
    FROM clicks GROUP BY usr, TUMBLE(ts, INTERVAL '10' SECOND)
""").print()
t_env.execute_sql("""
    SELECT url, COUNT(*) AS n, HOP_START(ts, INTERVAL '5' SECOND, INTERVAL '10' SECOND) AS s
    FROM clicks GROUP BY url, HOP(ts, INTERVAL '5' SECOND, INTERVAL '10' SECOND)
""").print()
t_env.execute_sql("""
    SELECT usr, COUNT(*) AS n, SESSION_START(ts, INTERVAL '6' SECOND) AS s,
           SESSION_END(ts, INTERVAL '6' SECOND) AS e
    FROM clicks GROUP BY usr, SESSION(ts, INTERVAL '6' SECOND)
""").print()
