"""Event-time tumbling windows with out-of-orderness, allowed lateness and a late-data side output, at parallelism 2.

Source: https://github.com/huanglaoxie0503/pyflink-basic-introduction
  file watermark/watermark_data_late.py (commit 260781c6ccbad613cb6b7d438b37902d1ed7bcdd),
  a Chinese PyFlink tutorial. Exercises: TimestampAssigner class that print()s, for_bounded_out_of_orderness, TumblingEventTimeWindows, allowed_lateness, side_output_late_data, ProcessWindowFunction formatting window bounds with time.localtime (so the output depends on the machine's time zone, the same for both runs).

Adapted for weir's test corpus (the user's functions and classes are verbatim):
- the Kafka source (KafkaSource, SimpleStringSchema) and add_jars of a jar that does not exist
  here are replaced by env.from_collection
  of deterministic "id,vc,ts" strings (the lines the tutorial's producer writes);
- the classes the program imports from the repository's own modules (model/water_sensor.py: WaterSensor; functions/func.py: WSMapFunction, WSProcessWindowFunction; utils/common.py: time_stamp_to_date; watermark/watermark_mono.py: MsTimestampAssigner)
  are inlined here, verbatim;
- imports of the Kafka connector are dropped; pyflink is replaced by weir in imports.
"""
import time
from typing import Iterable

from weir.common import WatermarkStrategy, Duration, Time, Types
from weir.common.watermark_strategy import TimestampAssigner
from weir.datastream import StreamExecutionEnvironment, OutputTag, MapFunction, ProcessWindowFunction, TimeWindow
from weir.datastream.window import TumblingEventTimeWindows


class WaterSensor:
    def __init__(self, id, vc, ts):
        self.id = id
        self.ts = ts
        self.vc = vc

    def to_dict(self):
        return {
            'id': self.id,
            'vc': self.vc,
            'ts': self.ts
        }

    def __repr__(self):
        return f"WaterSensor(id={self.id}, vc={self.vc}, ts={self.ts})"




def time_stamp_to_date(time_num):
    """
    输入毫秒级的时间，转出正常格式的时间
    :param time_num: 13位时间戳
    :return:
    """
    time_stamp = float(time_num/1000)
    time_array = time.localtime(time_stamp)
    other_style_time = time.strftime("%Y-%m-%d %H:%M:%S", time_array)
    return other_style_time




class WSMapFunction(MapFunction):
    def map(self, value):
        # "s1", 1, 1
        words = value.split(',')
        return WaterSensor(words[0], int(words[1]), int(words[2]))


class WSProcessWindowFunction(ProcessWindowFunction[tuple, tuple, str, TimeWindow]):
    def process(self,
                key: str,
                context: 'ProcessWindowFunction.Context',
                elements: Iterable[tuple]) -> Iterable[tuple]:
        """

        :param key: 分组的key
        :param context: 上下文
        :param elements: 存的数据
        :return:
        """
        start_ts = context.window().start
        end_ts = context.window().end
        # yyyy-MM-dd HH:mm:ss.SSS
        window_start = time_stamp_to_date(start_ts)
        window_end = time_stamp_to_date(end_ts)

        count = len([e for e in elements])
        result = "key={0}的窗口 [{1} --> {2}) 包含 {3} 条数据===>{4}".format(key, window_start, window_end, count,
                                                                             elements)
        yield result




class MsTimestampAssigner(TimestampAssigner):
    def extract_timestamp(self, value: WaterSensor, record_timestamp: int) -> int:
        print("数据={0},record_ts={1}".format(value, record_timestamp))
        return value.ts * 1000




def watermark_data_late_demo():
    """
    迟到数据
    :return:
    """
    env = StreamExecutionEnvironment.get_execution_environment()

    # TODO 演示watermark多并行度下的传递
    """
    1、接收到上游多个，取最小
    2、往下游多个发送， 广播
    """
    env.set_parallelism(2)

    # 周期性生成 watermark， 默认是200ms，一般不建议修改
    # env.get_config().set_auto_watermark_interval()

    sensor_ds = env.from_collection(
        [
            "s1,1,1",
            "s1,2,3",
            "s2,3,5",
            "s1,4,12",
            "s2,5,8",
            "s1,6,14",
            "s1,7,6",
            "s2,8,21",
            "s3,9,25",
            "s2,10,13",
            "s3,11,9",
        ],
        type_info=Types.STRING()
    ).map(WSMapFunction())

    # 1.1 指定watermark生成：乱序的，等待3s
    watermark_strategy = WatermarkStrategy \
        .for_bounded_out_of_orderness(Duration.of_seconds(3)) \
        .with_timestamp_assigner(MsTimestampAssigner())  # 1.2 指定 时间戳分配器，从数据中提取
    sensor_ds_with_watermark = sensor_ds.assign_timestamps_and_watermarks(watermark_strategy=watermark_strategy)

    sensor_ks = sensor_ds_with_watermark.key_by(lambda sensor: sensor.id)

    # 1.窗口分配器
    late_tag = OutputTag("late-data", Types.TUPLE([Types.STRING()]))
    sensor_ws = sensor_ks.window(TumblingEventTimeWindows.of(Time.seconds(10))) \
        .allowed_lateness(2).side_output_late_data(late_tag)  # 推迟2s关窗 且 关窗后的迟到数据，放入侧输出流

    # 2. 全窗口函数：  全窗口函数计算逻辑：  窗口触发时才会调用一次，统一计算窗口的所有数据
    sensor_process = sensor_ws.process(WSProcessWindowFunction())

    # 侧输出流
    sensor_process.get_side_output(late_tag).print()
    # 主流
    sensor_process.print()

    env.execute("WatermarkOutOfOrderNess")


if __name__ == '__main__':
    watermark_data_late_demo()
