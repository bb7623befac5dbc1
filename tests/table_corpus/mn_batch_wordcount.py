"""Word count with a Python UDTF through join_lateral(call(...)), batch mode, print sink.

Source: https://github.com/MaheshNamala/word_count-using-Flink
  file batch_wordcount.py (commit 7a0ab235d44b9d026428872129954bb84ed54883); data input/sample.txt.
  Exercises: StreamTableEnvironment.create(env, environment_settings=in_batch_mode()), a
  filesystem csv source of one STRING column, @udtf yielding 1-tuples, a UDTF registered by
  create_temporary_function and called by name through call("split_words", col("line"))
  .alias("word") in join_lateral, group_by + count, a print-connector sink in batch mode.

Adapted for weir's test corpus (the user's function and Table API calls are verbatim):
- the path 'input/sample.txt' is replaced by data/mn_sample.txt (the repository's three lines,
  then five more: capitalised words, runs of spaces, repeated words); the DDL string becomes
  an f-string for that;
- pyflink is replaced by weir in imports.
"""
import os
DATA = os.environ.get("TABLE_CORPUS_DATA",
                      os.path.join(os.path.dirname(os.path.abspath(__file__)), "data"))
from weir.datastream import StreamExecutionEnvironment
from weir.table import StreamTableEnvironment, EnvironmentSettings
from weir.table import DataTypes
from weir.table.udf import udtf
from weir.table.expressions import col, call

# 1. Set up the PyFlink environment in batch mode
env = StreamExecutionEnvironment.get_execution_environment()
settings = EnvironmentSettings.in_batch_mode()
t_env = StreamTableEnvironment.create(env, environment_settings=settings)

# 2. Define input table (from CSV file)
t_env.execute_sql(f"""
    CREATE TABLE input_table (
        line STRING
    ) WITH (
        'connector' = 'filesystem',
        'path' = '{DATA}/mn_sample.txt',
        'format' = 'csv'
    )
""")

# 3. Define a Python UDTF (table function) using @udtf
@udtf(result_types=[DataTypes.STRING()])
def split_words(line: str):
    for word in line.split():
        yield word,

# 4. Register the UDTF
t_env.create_temporary_function("split_words", split_words)

# 5. Read the table
table = t_env.from_path("input_table")

# 6. Use expression-based join_lateral (✅ fixed)
words_table = table \
    .join_lateral(call("split_words", col("line")).alias("word")) \
    .group_by(col("word")) \
    .select(col("word"), col("word").count.alias("cnt"))

# 7. Define the output table (print)
t_env.execute_sql("""
    CREATE TABLE result_table (
        word STRING,
        cnt BIGINT
    ) WITH (
        'connector' = 'print'
    )
""")

# 8. Insert the result into the print sink
words_table.execute_insert("result_table").wait()
