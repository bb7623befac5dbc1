"""Streaming word count in SQL with CROSS JOIN UNNEST(split(line, ' ')) over a raw-format
source, into a print sink (changelog).

Source: https://github.com/BDT-2025/IntroToPyFlink
  file 06-kafka-sql.py (commit b8d7f86b7dbdd1bbddf75f97aa9d0c63b2e5468e).
  Exercises: StreamTableEnvironment.create(environment_settings=...) without a
  StreamExecutionEnvironment, the 'raw' format (one STRING column per line, 'raw.charset'),
  a comma join with UNNEST(split(word_line, ' ')) AS t(word) (the built-in SPLIT returning
  an ARRAY), GROUP BY COUNT(*) in a subquery-fed INSERT INTO a print sink, a plain print()
  before the job's wait().

Adapted for weir's test corpus (the SQL text is verbatim but for the connector options):
- the pipeline.jars lines (a Kafka connector jar) are removed;
- the Kafka source (format raw, raw.charset UTF-8) becomes a filesystem source over
  data/bd_sentences.txt with the same column and format options (5 lines, repeated words);
- pyflink is replaced by weir in imports.
"""
import os
DATA = os.environ.get("TABLE_CORPUS_DATA",
                      os.path.join(os.path.dirname(os.path.abspath(__file__)), "data"))

from weir.table import StreamTableEnvironment, EnvironmentSettings
from weir.table.expressions import col

env_settings = EnvironmentSettings.in_streaming_mode()
table_env = StreamTableEnvironment.create(environment_settings=env_settings)

# Define Kafka source table
table_env.execute_sql(f"""
CREATE TABLE input_table (
    word_line STRING
) WITH (
  'connector' = 'filesystem',
  'path' = '{DATA}/bd_sentences.txt',
  'format' = 'raw',
  'raw.charset' = 'UTF-8'
)
""")

# # Define Kafka sink table
# table_env.execute_sql("""
# CREATE TABLE output_table (
#     word STRING,
#     word_count BIGINT
# ) WITH (
#   'connector' = 'kafka',
#   'topic' = 'output_topic',
#   'properties.bootstrap.servers' = 'localhost:9092',
#   'format' = 'json'
# )
# """)

# Define console sink table
table_env.execute_sql("""
CREATE TABLE output_table (
    word STRING,
    word_count BIGINT
) WITH (
  'connector' = 'print'
)
""")


# Transform: split lines into words and count them
res = table_env.execute_sql("""
INSERT INTO output_table
SELECT word, COUNT(*) as word_count
FROM (
    SELECT word
    FROM input_table,
         UNNEST(split(word_line, ' ')) AS t(word)
)
GROUP BY word
""")

print("Job submitted. Waiting for completion...")

res.wait()  # Wait for the job to finish
