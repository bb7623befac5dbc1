"""Window joins: two window table functions' rows joined on their window_start and
window_end (and keys), INNER, LEFT, RIGHT and FULL, with a further condition; each
window's pairs (and, for outer joins, its unmatched rows padded with NULLs) inserted once
the watermark passes the window's end."""

import os
import tempfile

from weir.table import EnvironmentSettings, TableEnvironment

directory = tempfile.mkdtemp()
with open(os.path.join(directory, "left.csv"), "w") as out:
    out.write(
        "2020-04-15 12:02:00,1,L1\n2020-04-15 12:03:00,3,L3\n"
        "2020-04-15 12:03:30,1,L4\n2020-04-15 12:06:00,2,L2\n"
    )
with open(os.path.join(directory, "right.csv"), "w") as out:
    out.write(
        "2020-04-15 12:01:00,2,R2\n2020-04-15 12:04:00,1,R1\n"
        "2020-04-15 12:07:00,2,R3\n2020-04-15 12:08:00,4,R4\n"
    )

t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
t_env.get_config().set("parallelism.default", "1")
for name in ("left", "right"):
    t_env.execute_sql(f"""
        CREATE TABLE {name}_table (row_time TIMESTAMP(3), num INT, id STRING,
                                   WATERMARK FOR row_time AS row_time - INTERVAL '1' SECOND)
        WITH ('connector' = 'filesystem', 'path' = '{directory}/{name}.csv',
              'format' = 'csv')""")
windows = {
    side: f"(SELECT * FROM TABLE(TUMBLE(TABLE {side}_table, DESCRIPTOR(row_time), "
    "INTERVAL '5' MINUTES)))"
    for side in ("left", "right")
}
for kind in ("INNER", "LEFT", "RIGHT", "FULL"):
    t_env.execute_sql(f"""
        SELECT L.num AS l_num, L.id AS l_id, R.num AS r_num, R.id AS r_id,
               COALESCE(L.window_start, R.window_start) AS window_start,
               COALESCE(L.window_end, R.window_end) AS window_end
        FROM {windows["left"]} L {kind} JOIN {windows["right"]} R
        ON L.num = R.num AND L.window_start = R.window_start
           AND L.window_end = R.window_end
    """).print()
t_env.execute_sql(f"""
    SELECT L.id, R.id, L.window_start
    FROM {windows["left"]} L JOIN {windows["right"]} R
    ON L.window_start = R.window_start AND L.window_end = R.window_end AND L.id < 'L4'
       AND L.num <> R.num
""").print()
