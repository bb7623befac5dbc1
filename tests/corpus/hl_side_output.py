"""Side output from a KeyedProcessFunction: water levels above 10 go to a side output, named print sinks.

Source: https://github.com/huanglaoxie0503/pyflink-basic-introduction
  file process/side_output.py (commit 260781c6ccbad613cb6b7d438b37902d1ed7bcdd),
  a Chinese PyFlink tutorial. Exercises: KeyedProcessFunction yielding (OutputTag, value) pairs, get_side_output, print(name).

Adapted for weir's test corpus (the user's functions and classes are verbatim):
- the Kafka source (KafkaSource, SimpleStringSchema) is replaced by env.from_collection
  of deterministic "id,vc,ts" strings (the lines the tutorial's producer writes);
- the classes the program imports from the repository's own modules (model/water_sensor.py: WaterSensor; functions/func.py: WSMapFunction)
  are inlined here, verbatim;
- imports of the Kafka connector are dropped; pyflink is replaced by weir in imports.
"""
from weir.common import WatermarkStrategy, Types
from weir.datastream import StreamExecutionEnvironment, OutputTag, KeyedProcessFunction, MapFunction


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




class WSMapFunction(MapFunction):
    def map(self, value):
        # "s1", 1, 1
        words = value.split(',')
        return WaterSensor(words[0], int(words[1]), int(words[2]))




class SideOutputKeyedProcessFunction(KeyedProcessFunction):
    def __init__(self, output_tag):
        self.output_tag = output_tag

    def process_element(self, value, ctx: 'KeyedProcessFunction.Context'):
        # 使用侧输出流告警
        if value.vc > 10:
            # r = "{0}，当前水位={1},大于阈值10。value={2}".format(self.output_tag_warn, value.vc, value)
            # yield r
            yield self.output_tag, "side_out-" + str(value)
        else:
            # 主流正常 发送数据
            yield value




def side_output_demo():
    env = StreamExecutionEnvironment.get_execution_environment()

    env.set_parallelism(1)

    sensor_ds = env.from_collection(
        [
            "s1,1,1",
            "s1,12,2",
            "s2,5,3",
            "s1,3,4",
            "s2,20,5",
            "s3,8,6",
            "s1,30,7",
            "s2,2,8",
            "s3,25,9",
            "s1,15,10",
            "s3,3,11",
            "s2,40,12",
        ],
        type_info=Types.STRING()
    ).map(WSMapFunction())

    side_output_tag = OutputTag("side-warn", Types.STRING())
    process = sensor_ds.key_by(lambda sensor: sensor.id).process(SideOutputKeyedProcessFunction(side_output_tag))

    process.print("主流")

    process.get_side_output(side_output_tag).print("warn")

    env.execute("SideOutput")


if __name__ == '__main__':
    side_output_demo()
