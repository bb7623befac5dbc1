"""A datagen source of sequences, a nested SQL query with integer division, GROUP BY, print sink.

Source: https://github.com/cc3213252/pyflink-learn
  file src/intro_table_api/sql_agg_query.py (commit 9bf97d290a120353fac06583e9ee20cf08f88d61) (it follows the Flink docs' SQL
  snippet of the Python Table API intro).
  Exercises: a 'datagen' table with two 'sequence' fields (BIGINT 1..8, TINYINT 4..11), a
  subquery SELECT id / 2 (integer division), WHERE id > 1, GROUP BY with sum into a TINYINT
  sink column, INSERT INTO a print sink in streaming mode (a changelog of +I/-U/+U).

Adapted for weir's test corpus: nothing but `pyflink` replaced by `weir` in imports.
"""
# encoding: utf-8
# Date: 2022/7/4 15:16

__author__ = 'yudan.chen'

from weir.table import EnvironmentSettings, TableEnvironment

# use a stream TableEnvironment to execute the queries
env_settings = EnvironmentSettings.in_streaming_mode()
table_env = TableEnvironment.create(env_settings)


table_env.execute_sql("""
    CREATE TABLE random_source (
        id BIGINT, 
        data TINYINT
    ) WITH (
        'connector' = 'datagen',
        'fields.id.kind'='sequence',
        'fields.id.start'='1',
        'fields.id.end'='8',
        'fields.data.kind'='sequence',
        'fields.data.start'='4',
        'fields.data.end'='11'
    )
""")

table_env.execute_sql("""
    CREATE TABLE print_sink (
        id BIGINT, 
        data_sum TINYINT 
    ) WITH (
        'connector' = 'print'
    )
""")

table_env.execute_sql("""
    INSERT INTO print_sink
        SELECT id, sum(data) as data_sum FROM 
            (SELECT id / 2 as id, data FROM random_source)
        WHERE id > 1
        GROUP BY id
""").wait()
