"""Streaming ORDER BY an event-time attribute (ascending, then other keys): rows come out
in event-time order as the watermark passes them; rows behind the watermark are dropped
(Flink's temporal sort: here the watermark trails by a minute, so none is late: the
harness tests those, tests/unit/test_temporal_sort.py); the Table API's order_by
likewise; and what Flink refuses."""

import os
import tempfile

from weir.table import EnvironmentSettings, TableEnvironment
from weir.table.expressions import col

directory = tempfile.mkdtemp()
with open(os.path.join(directory, "events.csv"), "w") as out:
    out.write(
        "2020-04-15 12:00:05,e1,3\n2020-04-15 12:00:01,e2,7\n"
        "2020-04-15 12:00:03,e3,1\n2020-04-15 12:00:03,e4,9\n"
        "2020-04-15 12:00:09,e5,2\n2020-04-15 12:00:02,e6,4\n"
        "2020-04-15 12:00:07,e7,5\n2020-04-15 12:00:07,e8,0\n"
        "2020-04-15 12:00:20,e9,6\n2020-04-15 12:00:04,e10,8\n"
    )

t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
t_env.get_config().set("parallelism.default", "1")
t_env.execute_sql(f"""
    CREATE TABLE events (ts TIMESTAMP(3), name STRING, score INT,
                         WATERMARK FOR ts AS ts - INTERVAL '1' MINUTE)
    WITH ('connector' = 'filesystem', 'path' = '{directory}/events.csv', 'format' = 'csv')
""")
t_env.execute_sql("SELECT ts, name, score FROM events ORDER BY ts").print()
t_env.execute_sql("SELECT name, score FROM events ORDER BY ts, score DESC").print()
t_env.execute_sql(
    "SELECT name, score * 2 AS twice FROM events WHERE score > 2 ORDER BY ts ASC, name"
).print()
t_env.execute_sql("SELECT t, name FROM (SELECT ts AS t, name FROM events) ORDER BY t").print()
events = t_env.from_path("events")
events.order_by(col("ts"), col("score").desc).select(col("name"), col("ts")).execute().print()
for query in (
    "SELECT name FROM events ORDER BY ts DESC",
    "SELECT name FROM events ORDER BY score, ts",
):
    try:
        t_env.execute_sql(query).print()
    except Exception as error:
        print(str(error).splitlines()[0][-52:])
