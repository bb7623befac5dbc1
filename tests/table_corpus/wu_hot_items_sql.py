"""Hot items: the top 5 items by page views per sliding 1-hour event-time window (every 5
minutes), in SQL: a legacy HOP group window (HOP_END) under a ROW_NUMBER() Top-N, read
from a DataStream with a rowtime attribute and printed as a retract stream.

Source: https://github.com/wagnzi/PyFlink-UserBehaviorAnalysis
  file HotItemsAnalysis/hot_items_with_sql.py (commit d400e05508a775619852ce40e7fabd456a15e8cf).
  Exercises: a text file read line by line, flat_map with a generator into Types.ROW_NAMED,
  WatermarkStrategy.for_bounded_out_of_orderness(Duration.of_seconds(5)) with a
  TimestampAssigner subclass (seconds * 1000), StreamTableEnvironment.create(env),
  create_temporary_view(name, DataStream, col(..), col(..), col("timestamp").rowtime.alias("ts")),
  sql_query with WHERE behavior = 'pv', GROUP BY item_id, HOP(ts, INTERVAL '5' MINUTE,
  INTERVAL '1' HOUR), HOP_END, COUNT, and row_number() over (partition by windowEnd order
  by cnt desc) ... where row_num <= 5 (a regular, retracting Top-N), to_retract_stream with
  Types.TUPLE([...]) and print(), env.execute.

Adapted for weir's test corpus (the SQL, functions and Table API calls are verbatim):
- env.read_text_file('UserBehavior.csv') (gone in PyFlink 2.x) becomes env.from_source over a
  FileSource with StreamFormat.text_line_format() of data/wu_user_behavior.csv (18 lines in
  the repository's UserBehavior.csv format, 6 minutes of event time, in order), with
  WatermarkStrategy.no_watermarks() (the program assigns its own watermarks after);
- env.set_stream_time_characteristic(TimeCharacteristic.EventTime) (gone in PyFlink 2.x;
  event time is the default) and its import are removed;
- pyflink is replaced by weir in imports.
"""
import os
DATA = os.environ.get("TABLE_CORPUS_DATA",
                      os.path.join(os.path.dirname(os.path.abspath(__file__)), "data"))

from typing import Any

from weir.common import Duration, Row
from weir.table import StreamTableEnvironment, DataTypes, Schema
from weir.table.expressions import col
from weir.datastream import StreamExecutionEnvironment
from weir.datastream.connectors.file_system import FileSource, StreamFormat
from weir.common.typeinfo import Types
from weir.table.window import Slide
from weir.table import expressions as expr
from weir.common.watermark_strategy import TimestampAssigner, WatermarkStrategy


def split_data(row):
    line = row.split(',')
    user_id, item_id, category_id, behavior, timestamp = int(line[0]), int(line[1]), int(line[2]), line[3], int(line[4])
    yield Row(user_id, item_id, category_id, behavior, timestamp)


def hot_items_stat_sql():
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(1)
    input_stream = env.from_source(
        FileSource.for_record_stream_format(StreamFormat.text_line_format(),
                                            os.path.join(DATA, 'wu_user_behavior.csv')).build(),
        WatermarkStrategy.no_watermarks(), 'UserBehavior.csv')
    watermark_strategy = WatermarkStrategy.for_bounded_out_of_orderness(Duration.of_seconds(5)) \
        .with_timestamp_assigner(RowTimestampAssigner())
    type_info = Types.ROW_NAMED(["user_id", "item_id", "category_id", "behavior", "timestamp"], [Types.INT(), Types.INT(), Types.INT(), Types.STRING(), Types.LONG()])
    data_stream = input_stream.flat_map(split_data, output_type=type_info)
    data_stream = data_stream.assign_timestamps_and_watermarks(watermark_strategy)

    table_env = StreamTableEnvironment.create(env)

    # 纯SQL实现
    table_env.create_temporary_view("data_table", data_stream, col("item_id"), col("behavior"), col("timestamp").rowtime.alias("ts"))

    result_table = table_env.sql_query("""
        select *
        from (
            select *, row_number() over (partition by windowEnd order by cnt desc) as row_num
            from (
                select item_id, hop_end(ts, interval '5' minute, interval '1' hour) as windowEnd, count(item_id) as cnt
                from data_table
                where behavior = 'pv'
                group by
                    item_id,
                    hop(ts, interval '5' minute, interval '1' hour)
            )
        ) where row_num <= 5
    """)
    result_stream = table_env.to_retract_stream(result_table, Types.TUPLE([Types.INT(), Types.INSTANT(), Types.BIG_DEC(), Types.BIG_DEC()]))
    result_stream.print()
    env.execute("hot items sql job")


class RowTimestampAssigner(TimestampAssigner):
    def extract_timestamp(self, value: Any, record_timestamp: int) -> int:
        return int(value[4]) * 1000

if __name__ == '__main__':
    hot_items_stat_sql()
