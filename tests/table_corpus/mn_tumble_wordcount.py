"""Word count per 10-second event-time tumbling window in SQL (GROUP BY TUMBLE, TUMBLE_END).

Source: https://github.com/MaheshNamala/word_count-using-Flink
  file tumbling_window_wordcount.py (commit 7a0ab235d44b9d026428872129954bb84ed54883).
  Exercises: StreamTableEnvironment.create(env, environment_settings=in_streaming_mode()), a
  csv source with WATERMARK FOR ts AS ts - INTERVAL '5' SECOND, the legacy group window
  GROUP BY TUMBLE(ts, INTERVAL '10' SECOND), word with TUMBLE_END, COUNT(*), INSERT INTO a
  print sink.

Adapted for weir's test corpus (the SQL is verbatim):
- the 'socket' source (localhost:9999, csv lines "word,ts") is replaced by a 'filesystem' source
  over data/mn_words.csv with the same columns and format: 16 lines, a row at 10:00:09.999 and
  one at 10:00:10 (either side of a window end), rows out of order by at most 4 s (within the
  watermark's delay), 'Hello' next to 'hello', a window of one row; the DDL string becomes an
  f-string for that;
- the INSERT's execute_sql(...) gets .wait() (a bounded source: without it the script ends
  before the job runs);
- pyflink is replaced by weir in imports.
"""
import os
DATA = os.environ.get("TABLE_CORPUS_DATA",
                      os.path.join(os.path.dirname(os.path.abspath(__file__)), "data"))
from weir.datastream import StreamExecutionEnvironment
from weir.table import StreamTableEnvironment, EnvironmentSettings

env = StreamExecutionEnvironment.get_execution_environment()
settings = EnvironmentSettings.in_streaming_mode()
t_env = StreamTableEnvironment.create(env, environment_settings=settings)

# Table with timestamp
t_env.execute_sql(f"""
    CREATE TABLE input_table (
        word STRING,
        ts TIMESTAMP(3),
        WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
    ) WITH (
        'connector' = 'filesystem',
        'path' = '{DATA}/mn_words.csv',
        'format' = 'csv'
    )
""")

# Output to print
t_env.execute_sql("""
    CREATE TABLE word_counts (
        word STRING,
        cnt BIGINT,
        window_end TIMESTAMP(3)
    ) WITH (
        'connector' = 'print'
    )
""")

# Count with 10-sec window
t_env.execute_sql("""
    INSERT INTO word_counts
    SELECT word, COUNT(*) AS cnt, TUMBLE_END(ts, INTERVAL '10' SECOND) AS window_end
    FROM input_table
    GROUP BY TUMBLE(ts, INTERVAL '10' SECOND), word
""").wait()
