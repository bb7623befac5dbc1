"""Per-(user, item, category, behavior, ts) counts in 10-second event-time TUMBLE window TVF
windows, filtered by a WHERE on the TVF's output, into a print sink.

Source: https://github.com/yhyyz/msf-pyflink-job
  file src/main-simple.py (commit 2e68ac9d67cd5b2c6564a241f9889ca5146f095d).
  Exercises: TableEnvironment in streaming mode, get_config().get_configuration()
  .set_string("pipeline.name", ...), a source with TIMESTAMP(3) ts and WATERMARK FOR ts AS
  ts - INTERVAL '5' SECOND, INSERT INTO a print sink SELECT ... FROM TABLE(TUMBLE(TABLE t,
  DESCRIPTOR(ts), INTERVAL '10' SECOND)) WHERE category_id <= 5 GROUP BY user_id, item_id,
  category_id, behavior, ts, window_start, window_end with COUNT(*); logging to stderr.

Adapted for weir's test corpus (the SQL is verbatim but for the connector options):
- the datagen source (random values, one row a second, unbounded) becomes a filesystem csv
  source over data/ym_user_behavior.csv with the same columns: 20 user-behavior rows over
  32 seconds of event time, in event-time order, some repeated (so some counts are 2 or 3);
  'connector', 'path' and 'format' replace the datagen options, and the source DDL gains
  the {DATA} path;
- parallelism.default is set to 1 (one more get_config().set(...) line);
- pyflink is replaced by weir in imports.
"""
import os
DATA = os.environ.get("TABLE_CORPUS_DATA",
                      os.path.join(os.path.dirname(os.path.abspath(__file__)), "data"))

import logging
import sys
from weir.table import EnvironmentSettings, TableEnvironment

def main():
    # Set up logging
    logging.basicConfig(level=logging.INFO)
    logger = logging.getLogger(__name__)
    
    logger.info("Starting PyFlink SQL job...")
    
    # Create table environment for streaming
    env_settings = EnvironmentSettings.new_instance().in_streaming_mode().build()
    table_env = TableEnvironment.create(env_settings)
    
    # Set job name and configuration
    config = table_env.get_config()
    config.get_configuration().set_string("pipeline.name", "PyFlink-SQL-Demo")
    config.set("parallelism.default", "1")
    
    logger.info("Creating source table...")
    
    # Create source table with datagen connector
    table_env.execute_sql(f"""
        CREATE TABLE source_table (
            user_id BIGINT,
            item_id BIGINT,
            category_id BIGINT,
            behavior STRING,
            ts TIMESTAMP(3),
            WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
        ) WITH (
            'connector' = 'filesystem',
            'path' = '{DATA}/ym_user_behavior.csv',
            'format' = 'csv'
        )
    """)
    
    logger.info("Creating sink table...")
    
    # Create sink table with print connector
    table_env.execute_sql("""
        CREATE TABLE sink_table (
            user_id BIGINT,
            item_id BIGINT,
            category_id BIGINT,
            behavior STRING,
            ts TIMESTAMP(3),
            window_start TIMESTAMP(3),
            window_end TIMESTAMP(3),
            cnt BIGINT
        ) WITH (
            'connector' = 'print'
        )
    """)
    
    logger.info("Executing streaming SQL query...")
    
    # Execute streaming SQL query with windowing
    result = table_env.execute_sql("""
        INSERT INTO sink_table
        SELECT 
            user_id,
            item_id,
            category_id,
            behavior,
            ts,
            window_start,
            window_end,
            COUNT(*) as cnt
        FROM TABLE(
            TUMBLE(TABLE source_table, DESCRIPTOR(ts), INTERVAL '10' SECOND)
        )
        WHERE category_id <= 5
        GROUP BY user_id, item_id, category_id, behavior, ts, window_start, window_end
    """)
    
    logger.info("Job started, waiting for completion...")
    
    # Wait for the job to finish (it will run indefinitely in streaming mode)
    result.wait()

if __name__ == '__main__':
    main()
