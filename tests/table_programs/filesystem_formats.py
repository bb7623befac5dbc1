"""The filesystem connector in csv and json: files read by their tables' schemas, a
query written to csv and json directories, and the written lines printed back."""

import glob
import os
import tempfile

from weir.table import EnvironmentSettings, TableEnvironment

directory = tempfile.mkdtemp()
with open(os.path.join(directory, "readings.csv"), "w") as out:
    out.write(
        "s1,2026-01-01 10:00:00,21.5,true\n"
        "s2,2026-01-01 10:00:05,-3.25,false\n"
        '"s,3",2026-01-01 10:01:00,100.0,true\n'
    )
with open(os.path.join(directory, "sensors.json"), "w") as out:
    out.write(
        '{"id": "s1", "room": "kitchen", "level": 1}\n'
        '{"id": "s2", "room": "cellar"}\n'
        '{"id": "s,3", "room": "attic \\"top\\"", "level": 3}\n'
    )

t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
t_env.get_config().set("parallelism.default", "1")
t_env.execute_sql(f"""
    CREATE TABLE readings (sensor STRING, ts TIMESTAMP(3), temp DOUBLE, ok BOOLEAN)
    WITH ('connector' = 'filesystem', 'path' = '{directory}/readings.csv', 'format' = 'csv')
""")
t_env.execute_sql(f"""
    CREATE TABLE sensors (id STRING, room STRING, level INT)
    WITH ('connector' = 'filesystem', 'path' = '{directory}/sensors.json', 'format' = 'json')
""")
t_env.execute_sql("SELECT * FROM readings").print()
t_env.execute_sql("SELECT * FROM sensors").print()
for fmt in ("csv", "json"):
    t_env.execute_sql(f"""
        CREATE TABLE out_{fmt} (sensor STRING, room STRING, level INT, temp DOUBLE,
                                ts TIMESTAMP(3), ok BOOLEAN)
        WITH ('connector' = 'filesystem', 'path' = '{directory}/out_{fmt}',
              'format' = '{fmt}')
    """)
    t_env.execute_sql(f"""
        INSERT INTO out_{fmt}
        SELECT sensor, room, level, temp * 2, ts, ok FROM readings JOIN sensors
        ON sensor = id
    """).wait()
    lines = []
    for path in glob.glob(os.path.join(directory, f"out_{fmt}", "*")):
        if not os.path.basename(path).startswith((".", "_")):
            with open(path) as written:
                lines += written.read().splitlines()
    print(f"{fmt}:")
    for line in sorted(lines):
        print(line)
