"""Average value per event-time session window (Table API Session.with_gap) over a csv file.

Source: https://github.com/jumbokh/Big-Data-Framework-30-days
  file 30days/day28/window_session.py (commit 2e1dd4de90ea0cbc5a7a402c53aa8d6273764490); data shaped as the repository's
  30days/day28/test_data.py writes 30days/day28/test_data.csv.
  Exercises: a streaming TableEnvironment, a filesystem csv source with a TIMESTAMP(3) column
  and WATERMARK FOR event_time AS event_time - INTERVAL '5' SECOND, a backquoted `value`
  column, Session.with_gap(lit(5).seconds).on(col('event_time')).alias('w'),
  group_by(col("w")) with w.start and value.avg (DOUBLE averages such as 1/3), a print sink.

Adapted for weir's test corpus (the Table API calls are verbatim):
- the path 'test_data.csv' (random data written by test_data.py) is replaced by
  data/jb_session.csv: 18 rows in six sessions: gaps of exactly 5 s (which merge), a gap of
  5.001 s (which does not), a session of one row, rows out of order by at most 4 s (within the
  watermark's delay, so Flink drops none whatever its watermark timing), fractional seconds;
  the DDL string becomes an f-string for that;
- pyflink is replaced by weir in imports.
"""
import os
DATA = os.environ.get("TABLE_CORPUS_DATA",
                      os.path.join(os.path.dirname(os.path.abspath(__file__)), "data"))
from weir.table import EnvironmentSettings, TableEnvironment
from weir.table.window import Session
from weir.table.expressions import lit, col

env_settings = EnvironmentSettings.in_streaming_mode()
t_env = TableEnvironment.create(env_settings)

t_env.execute_sql(f"""
    CREATE TABLE my_source (
        event_time TIMESTAMP(3),
        `value` DOUBLE,
        WATERMARK FOR event_time AS event_time - INTERVAL '5' SECOND
    ) WITH (
        'connector' = 'filesystem',
        'path' = '{DATA}/jb_session.csv',
        'format' = 'csv'
    )
""")

t_env.execute_sql("""
    CREATE TABLE my_avg (
        window_start_time TIMESTAMP(3),
        avg_value DOUBLE
    ) WITH (
        'connector' = 'print'
    )
""")

t_env.from_path('my_source')\
    .window(Session.with_gap(lit(5).seconds).on(col('event_time')).alias('w'))\
    .group_by(col("w")) \
    .select(col("w").start.alias('window_start_time'), col('value').avg.alias('avg_value'))\
    .execute_insert("my_avg")\
    .wait()

