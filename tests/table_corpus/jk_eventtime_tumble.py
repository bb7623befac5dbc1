"""Revenue per seller per 10-second event-time tumbling window (Table API Tumble over a
computed TO_TIMESTAMP_LTZ rowtime), written by a statement set to two sinks.

Source: https://github.com/jaehyeon-kim/flink-demos
  file pyflink-udemy/s4_12_eventtime_windows.py (commit 62194247aff31138b2603746fca8eef73deb0b80).
  Exercises: TableEnvironment in streaming mode, table.exec.source.idle-timeout, a json
  source with backquoted columns, computed columns `proctime` AS PROCTIME() and `evttime` AS
  TO_TIMESTAMP_LTZ(`sale_ts`, 3) with WATERMARK FOR `evttime` AS `evttime` - INTERVAL '5'
  SECOND, from_path, print_schema() of the source and of the result,
  window(Tumble.over(lit(10).seconds).on(col("evttime")).alias("w")), group_by(col("w"),
  col("seller_id")), col("w").start/.end, (col("quantity") * col("product_price")).sum, a
  statement set with add_insert into two sinks, execute().wait().

Adapted for weir's test corpus (the Table API calls and DDL are verbatim but for the
connector options):
- the Kafka source (json) becomes a filesystem json source over data/jk_sales_items.json with
  the same columns: 15 sales of 4 sellers over 40 seconds of event time, in order; the
  'json.fail-on-missing-field' and 'json.ignore-parse-errors' options are kept;
- the Kafka sink processed_sales becomes a print-connector sink with the same columns and
  'print-identifier' = 'processed_sales' (so its lines can be told from the print sink's);
- the pipeline.jars line (the Kafka connector jar) and the version map it needed are removed;
- parallelism.default is set to 1;
- pyflink is replaced by weir in imports.
"""
import os
DATA = os.environ.get("TABLE_CORPUS_DATA",
                      os.path.join(os.path.dirname(os.path.abspath(__file__)), "data"))

from weir.table import EnvironmentSettings, TableEnvironment
from weir.table.expressions import lit, col
from weir.table.window import Tumble

env_settings = EnvironmentSettings.in_streaming_mode()
table_env = TableEnvironment.create(env_settings)
table_env.get_config().set("parallelism.default", "1")

table_env.get_config().set("table.exec.source.idle-timeout", "1000")

## create kafka source table
table_env.execute_sql(
    f"""
    CREATE TABLE sales_items (
        `seller_id` VARCHAR,
        `product` VARCHAR,
        `quantity` INT,
        `product_price` DOUBLE,
        `sale_ts` BIGINT,
        `proctime` AS PROCTIME(),
        `evttime` AS TO_TIMESTAMP_LTZ(`sale_ts`, 3),
        WATERMARK FOR `evttime` AS `evttime` - INTERVAL '5' SECOND
    ) WITH (
        'connector' = 'filesystem',
        'path' = '{DATA}/jk_sales_items.json',
        'format' = 'json',
        'json.fail-on-missing-field' = 'false',
        'json.ignore-parse-errors' = 'true'
    )
    """
)
tbl = table_env.from_path("sales_items")
print("\nsource schema")
tbl.print_schema()

## tumbling window aggregate calculation of revenue per seller
windowed_rev = (
    tbl.window(Tumble.over(lit(10).seconds).on(col("evttime")).alias("w"))
    .group_by(col("w"), col("seller_id"))
    .select(
        col("seller_id"),
        col("w").start.alias("window_start"),
        col("w").end.alias("window_end"),
        (col("quantity") * col("product_price")).sum.alias("window_sales"),
    )
)

print("\nprocess sink schema")
windowed_rev.print_schema()

table_env.execute_sql(
    f"""
    CREATE TABLE print (
        `seller_id` VARCHAR,
        `window_start` TIMESTAMP(3),
        `window_end` TIMESTAMP(3),
        `window_sales` DOUBLE
    ) WITH (
        'connector' = 'print'
    )
    """
)

table_env.execute_sql(
    f"""
    CREATE TABLE processed_sales (
        `seller_id` VARCHAR,
        `window_start` TIMESTAMP(3),
        `window_end` TIMESTAMP(3),
        `window_sales` DOUBLE
    ) WITH (
        'connector' = 'print',
        'print-identifier' = 'processed_sales'
    )
    """
)

# windowed_rev.execute_insert("processed_sales").wait()
statement_set = table_env.create_statement_set()
statement_set.add_insert("print", windowed_rev)
statement_set.add_insert("processed_sales", windowed_rev)
statement_set.execute().wait()
