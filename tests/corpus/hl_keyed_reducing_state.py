"""ReducingState per sensor: running sum of water levels.

Source: https://github.com/huanglaoxie0503/pyflink-basic-introduction
  file state/keyed_reducing_state.py (commit 260781c6ccbad613cb6b7d438b37902d1ed7bcdd),
  a Chinese PyFlink tutorial. Exercises: KeyedProcessFunction with ReducingState and a ReduceFunction class, parallelism 3.

Adapted for weir's test corpus (the user's functions and classes are verbatim):
- the Kafka source (KafkaSource, SimpleStringSchema) is replaced by env.from_collection
  of deterministic "id,vc,ts" strings (the lines the tutorial's producer writes);
- the classes the program imports from the repository's own modules (model/water_sensor.py: WaterSensor; functions/func.py: WSMapFunction)
  are inlined here, verbatim;
- imports of the Kafka connector are dropped; pyflink is replaced by weir in imports.
"""
from weir.common import WatermarkStrategy, Types
from weir.datastream import StreamExecutionEnvironment, KeyedProcessFunction, RuntimeContext, ReduceFunction, MapFunction
from weir.datastream.state import ReducingStateDescriptor


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




class KeyedReducingStateReduceFunction(ReduceFunction):
    def reduce(self, value1, value2):
        return value1 + value2


class KeyedReducingStateKeyedProcessFunction(KeyedProcessFunction):
    def __init__(self):
        self.vc_sum_reducing_state = None

    def open(self, runtime_context: RuntimeContext):
        self.vc_sum_reducing_state = runtime_context.get_reducing_state(
            ReducingStateDescriptor(name='vc_sum_reducing_state', reduce_function=KeyedReducingStateReduceFunction(),
                                    type_info=Types.INT())
        )

    def process_element(self, value, ctx: 'KeyedProcessFunction.Context'):
        # 来一条数据，添加到 reducing状态里
        self.vc_sum_reducing_state.add(value.vc)
        vc_sum = self.vc_sum_reducing_state.get()
        result = "传感器id为:{0},水位值总和={1}".format(value.id, vc_sum)
        yield result

        # self.vc_sum_reducing_state.get();   # 对本组的Reducing状态，获取结果
        # self.vc_sum_reducing_state.add();   # 对本组的Reducing状态，添加数据
        # self.vc_sum_reducing_state.clear(); # 对本组的Reducing状态，清空数据




def keyed_reducing_state_demo():
    """"
    计算每种传感器的水位和
    """
    env = StreamExecutionEnvironment.get_execution_environment()

    env.set_parallelism(3)

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

    process = sensor_ds.key_by(lambda sensor: sensor.id).process(KeyedReducingStateKeyedProcessFunction())

    process.print()

    env.execute("KeyedReducingState")


if __name__ == '__main__':
    keyed_reducing_state_demo()
