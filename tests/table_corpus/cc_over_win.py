"""Over window (partition by a, order by rowtime, unbounded preceding to current range).

Source: https://github.com/cc3213252/pyflink-learn
  file src/operations/over_win.py (commit 9bf97d290a120353fac06583e9ee20cf08f88d61); data
  src/operations/source.txt.
  Exercises: `from pyflink.table import *`, a filesystem csv source whose fields after a comma
  start with a space, with WATERMARK FOR rowtime AS rowtime - INTERVAL '1' SECOND,
  Over.partition_by(col("a")).order_by(col("rowtime")).preceding(UNBOUNDED_RANGE)
  .following(CURRENT_RANGE), avg/max/min .over(col('w')) on a BIGINT column (integer avg),
  unaliased over-aggregate columns in execute().print() (streaming: an op column).

Adapted for weir's test corpus (the Table API calls are verbatim):
- EnvironmentSettings.in_batch_mode() becomes in_streaming_mode(): in batch mode PyFlink 2.3
  rejects the program ("Second argument in OVER window must be a TIME ATTRIBUTE, but is:
  TIMESTAMP(3)");
- the path "source.txt" is replaced by data/cc_source.txt: the repository's four lines (one row
  has an empty name), then five later ones: two rows of one key with the same rowtime (one
  RANGE peer group), a row 0.5 s out of order (within the watermark's 1 s delay, so Flink
  drops none whatever its watermark timing);
- pyflink is replaced by weir in imports.
"""
import os
DATA = os.environ.get("TABLE_CORPUS_DATA",
                      os.path.join(os.path.dirname(os.path.abspath(__file__)), "data"))
# encoding: utf-8
# Date: 2022/7/5 16:35

__author__ = 'yudan.chen'

from weir.table.window import Over
from weir.table.expressions import col, UNBOUNDED_RANGE, CURRENT_RANGE
from weir.table import *


t_env = TableEnvironment.create(
    environment_settings=EnvironmentSettings.in_streaming_mode())
source_data_path = f"{DATA}/cc_source.txt"
result_data_path = "result"
source_ddl = f"""
        create table Orders(
            a VARCHAR,
            b BIGINT,
            c BIGINT,
            rowtime TIMESTAMP(3),
            WATERMARK FOR rowtime AS rowtime - INTERVAL '1' SECOND
        ) with (
            'connector' = 'filesystem',
            'format' = 'csv',
            'path' = '{source_data_path}'
        )
        """
t_env.execute_sql(source_ddl)
orders = t_env.from_path("Orders")
result = orders.over_window(Over.partition_by(col("a")).order_by(col("rowtime"))
                            .preceding(UNBOUNDED_RANGE).following(CURRENT_RANGE)
                            .alias("w")) \
               .select(col("a"), col("b").avg.over(col('w')), col("b").max.over(col('w')), col("b").min.over(col('w')))
result.execute().print()
