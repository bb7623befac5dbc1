"""Splitting a stream with side outputs from a (non-keyed) ProcessFunction.

Source: https://github.com/huanglaoxie0503/pyflink-basic-introduction
  file split/side_output.py (commit 260781c6ccbad613cb6b7d438b37902d1ed7bcdd),
  a Chinese PyFlink tutorial. Exercises: from_collection of user-class objects, a MapFunction
  that print()s, a ProcessFunction whose OutputTags are created in __init__ and yielded as
  (tag, value), three named print sinks.

Adapted for weir's test corpus (the user's functions and classes are verbatim):
- nothing to replace (the program already reads a collection); the classes it imports from
  the repository's own modules (model/water_sensor.py: WaterSensor; functions/func.py:
  WaterSensorMapFunction, WaterSensorProcessFunction) are inlined here, verbatim;
- pyflink is replaced by weir in imports.
"""
from weir.common import Types
from weir.datastream import StreamExecutionEnvironment, OutputTag, MapFunction, ProcessFunction


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




class WaterSensorMapFunction(MapFunction):
    def map(self, value):
        print(value)
        return WaterSensor(value.id, int(value.ts), int(value.vc))


class WaterSensorProcessFunction(ProcessFunction):
    def __init__(self):
        self.output_tag_s1 = OutputTag("side-output-s1", Types.STRING())
        self.output_tag_s2 = OutputTag("side-output-s2", Types.STRING())
        self.output_tag = OutputTag("side-output", Types.STRING())

    def process_element(self, value, ctx: 'ProcessFunction.Context'):
        s_id = value.id
        if s_id == "s1":
            # 如果是s1,放到侧输出流s1中
            yield self.output_tag_s1, " side-output-1 " + str(value)
        elif s_id == "s2":
            # 如果是s1,放到侧输出流s2中
            yield self.output_tag_s2, " side-output-2 " + str(value)
        else:
            # 非 s1、s2的数据，放到主流中
            yield value




def side_output_stream_demo():
    """
    使用侧输出流实现分流
    :return:
    """
    env = StreamExecutionEnvironment.get_execution_environment()

    env.set_parallelism(1)

    # 定义数据源
    data = [
        WaterSensor("s1", 1, 1),
        WaterSensor("s1", 11, 11),
        WaterSensor("s2", 22, 2),
        WaterSensor("s3", 32, 3),
        WaterSensor("s1", 10, 10),
        WaterSensor("s2", 2, 2),
        WaterSensor("s3", 3, 3),
    ]

    # 将数据转换为DataStream
    sensor_ds = env.from_collection(data).map(WaterSensorMapFunction())

    output_tag_s1 = OutputTag("side-output-s1", Types.STRING())
    output_tag_s2 = OutputTag("side-output-s2", Types.STRING())

    process_stream = sensor_ds.process(WaterSensorProcessFunction())

    # 从主流中，根据标签 获取 侧输出流
    side_output_stream_s1 = process_stream.get_side_output(output_tag_s1)
    side_output_stream_s2 = process_stream.get_side_output(output_tag_s2)

    # 主流
    process_stream.print("主流-非s1、s2")

    side_output_stream_s1.print("s1")
    side_output_stream_s2.print("s2")

    env.execute()




if __name__ == '__main__':
    side_output_stream_demo()
