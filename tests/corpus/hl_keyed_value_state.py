"""ValueState per sensor: alert when two consecutive water levels differ by more than 10.

Source: https://github.com/huanglaoxie0503/pyflink-basic-introduction
  file state/keyed_value_state.py (commit 260781c6ccbad613cb6b7d438b37902d1ed7bcdd),
  a Chinese PyFlink tutorial. Exercises: map to a user class, key_by, KeyedProcessFunction with ValueState.

Adapted for weir's test corpus (the user's functions and classes are verbatim):
- the Kafka source (KafkaSource, SimpleStringSchema) is replaced by env.from_collection
  of deterministic "id,vc,ts" strings (the lines the tutorial's producer writes);
- the classes the program imports from the repository's own modules (model/water_sensor.py: WaterSensor; functions/func.py: WSMapFunction)
  are inlined here, verbatim;
- imports of the Kafka connector are dropped; pyflink is replaced by weir in imports.
"""
import math
from weir.common import WatermarkStrategy, Types
from weir.datastream import StreamExecutionEnvironment, KeyedProcessFunction, RuntimeContext, MapFunction
from weir.datastream.state import ValueStateDescriptor


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


class KeyedValueStateKeyedProcessFunction(KeyedProcessFunction):
    def __init__(self):
        self.last_value_state = None

    def open(self, runtime_context: RuntimeContext):
        # TODO 2.在open方法中，初始化状态
        # 状态描述器两个参数：第一个参数，起个名字，不重复；第二个参数，存储的类型
        self.last_value_state = runtime_context.get_state(ValueStateDescriptor('lastVcState', Types.INT()))

    def process_element(self, value, ctx: 'KeyedProcessFunction.Context'):
        # 1、取出上一条数据的水位值(Integer默认值是null，判断)
        last_vc_value = self.last_value_state.value()
        if last_vc_value is None:
            last_vc = 0
        else:
            last_vc = self.last_value_state.value()

        # 2. 求差值的绝对值，判断是否超过10
        vc = value.vc
        if abs(vc - last_vc) > 10:
            p = '传感器={0},==>当前水位值={1}，,与上一条水位值={2},相差超过10！'.format(value.id, vc, last_vc)
            yield p

        # 3. 更新状态里的水位值
        self.last_value_state.update(vc)


def keyed_value_state_demo():
    """
    检测每种传感器的水位值，如果连续的两个水位值超过10，就输出报警。
    :return:
    """
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

    # side_output_tag = OutputTag("side-warn", Types.STRING())
    process = sensor_ds.key_by(lambda sensor: sensor.id).process(KeyedValueStateKeyedProcessFunction())
    process.print()

    env.execute("KeyedValueState")


if __name__ == '__main__':
    keyed_value_state_demo()
