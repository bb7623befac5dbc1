"""ListState per sensor: the three highest water levels seen so far.

Source: https://github.com/huanglaoxie0503/pyflink-basic-introduction
  file state/keyed_list_state.py (commit 260781c6ccbad613cb6b7d438b37902d1ed7bcdd),
  a Chinese PyFlink tutorial. Exercises: KeyedProcessFunction with ListState (get/add/update).

Adapted for weir's test corpus (the user's functions and classes are verbatim):
- the Kafka source (KafkaSource, SimpleStringSchema) is replaced by env.from_collection
  of deterministic "id,vc,ts" strings (the lines the tutorial's producer writes);
- the classes the program imports from the repository's own modules (model/water_sensor.py: WaterSensor; functions/func.py: WSMapFunction)
  are inlined here, verbatim;
- imports of the Kafka connector are dropped; pyflink is replaced by weir in imports.
"""
from weir.common import WatermarkStrategy, Types
from weir.datastream import StreamExecutionEnvironment, KeyedProcessFunction, RuntimeContext, MapFunction
from weir.datastream.state import ListStateDescriptor


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




class ListValueStateKeyedProcessFunction(KeyedProcessFunction):
    def __init__(self):
        self.vc_list_state = None

    def open(self, runtime_context: RuntimeContext):
        self.vc_list_state = runtime_context.get_list_state(ListStateDescriptor('vc_list_state', Types.INT()))

    def process_element(self, value, ctx: 'KeyedProcessFunction.Context'):
        # 1.来一条，存到list状态里
        self.vc_list_state.add(value.vc)
        # 2.从list状态拿出来(Iterable)， 拷贝到一个List中，排序， 只留3个最大的
        vc_list_it = self.vc_list_state.get()
        vc_list = []
        for vc in vc_list_it:
            # 拷贝到一个List中
            vc_list.append(vc)
        # 2.2 对List进行降序排序
        vc_list.sort(reverse=True)
        # 2.3 只保留最大的3个(list中的个数一定是连续变大，一超过3就立即清理即可)
        if len(vc_list) > 3:
            vc_list.pop(3)

        p = '传感器id为{0},最大的3个水位值={1}'.format(value.id, vc_list)
        yield p

        # 3.更新list状态
        self.vc_list_state.update(vc_list)

        # self.vc_list_state.get();            # 取出 list状态 本组的数据，是一个Iterable
        # self.vc_list_state.add();            # 向 list状态 本组 添加一个元素
        # self.vc_list_state.addAll();         # 向 list状态 本组 添加多个元素
        # self.vc_list_state.update();         # 更新 list状态 本组数据（覆盖）
        # self.vc_list_state.clear();          # 清空List状态 本组数据




def list_state_demo():
    """
    针对每种传感器输出最高的3个水位值
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

    process = sensor_ds.key_by(lambda sensor: sensor.id).process(ListValueStateKeyedProcessFunction())
    process.print()

    env.execute("KeyedListState")


if __name__ == '__main__':
    list_state_demo()
