"""MapState per sensor: how often each water level occurred (dict-style MapState access).

Source: https://github.com/huanglaoxie0503/pyflink-basic-introduction
  file state/keyed_map_state.py (commit 260781c6ccbad613cb6b7d438b37902d1ed7bcdd),
  a Chinese PyFlink tutorial. Exercises: KeyedProcessFunction with MapState used like a dict (in .keys(), [k] = v, .items()), parallelism 3.

Adapted for weir's test corpus (the user's functions and classes are verbatim):
- the Kafka source (KafkaSource, SimpleStringSchema) is replaced by env.from_collection
  of deterministic "id,vc,ts" strings (the lines the tutorial's producer writes);
- the classes the program imports from the repository's own modules (model/water_sensor.py: WaterSensor; functions/func.py: WSMapFunction)
  are inlined here, verbatim;
- imports of the Kafka connector are dropped; pyflink is replaced by weir in imports.
"""
from weir.common import WatermarkStrategy, Types
from weir.datastream import StreamExecutionEnvironment, KeyedProcessFunction, RuntimeContext, MapFunction
from weir.datastream.state import MapStateDescriptor


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




class KeyedMapStateKeyedProcessFunction(KeyedProcessFunction):
    def __init__(self):
        self.vc_count_map_state = {}

    def open(self, runtime_context: RuntimeContext):
        self.vc_count_map_state = runtime_context.get_map_state(
            MapStateDescriptor(name='vc_count_map_state', key_type_info=Types.INT(), value_type_info=Types.INT()))

    def process_element(self, value, ctx: 'KeyedProcessFunction.Context'):
        # 1.判断是否存在vc对应的key
        vc = value.vc
        if vc in self.vc_count_map_state.keys():
            # 1.1 如果包含这个vc的key，直接对value+1
            count = self.vc_count_map_state.get(vc)
            count = count + 1
            self.vc_count_map_state[vc] = count
        else:
            # 1.2 如果不包含这个vc的key，初始化进Map去
            self.vc_count_map_state[vc] = 1
        # 2.遍历Map状态，输出每个k-v的值
        items = []
        for k, v in self.vc_count_map_state.items():
            row = (k, v)
            items.append(row)
        p = '传感器id为{0},\n 各水位值出现次数：{1}\n'.format(value.id, items)
        yield p

        # self.vc_count_map_state.get();          # 对本组的Map状态，根据key，获取value
        # self.vc_count_map_state.contains();     # 对本组的Map状态，判断key是否存在
        # self.vc_count_map_state.put(, );        # 对本组的Map状态，添加一个 键值对
        # self.vc_count_map_state.putAll();       # 对本组的Map状态，添加多个 键值对
        # self.vc_count_map_state.entries();      # 对本组的Map状态，获取所有键值对
        # self.vc_count_map_state.keys();         # 对本组的Map状态，获取所有键
        # self.vc_count_map_state.values();       # 对本组的Map状态，获取所有值
        # self.vc_count_map_state.remove();       # 对本组的Map状态，根据指定key，移除键值对
        # self.vc_count_map_state.isEmpty();      # 对本组的Map状态，判断是否为空
        # self.vc_count_map_state.iterator();     # 对本组的Map状态，获取迭代器
        # self.vc_count_map_state.clear();        # 对本组的Map状态，清空




def keyed_map_state_demo():
    """
    统计每种传感器每种水位值出现的次数
    :return:
    """
    env = StreamExecutionEnvironment.get_execution_environment()

    env.set_parallelism(3)

    sensor_ds = env.from_collection(
        [
            "s1,1,1",
            "s1,12,2",
            "s2,5,3",
            "s1,1,4",
            "s2,20,5",
            "s3,8,6",
            "s1,12,7",
            "s2,5,8",
            "s3,8,9",
            "s1,1,10",
            "s3,3,11",
            "s2,40,12",
        ],
        type_info=Types.STRING()
    ).map(WSMapFunction())

    process = sensor_ds.key_by(lambda sensor: sensor.id).process(KeyedMapStateKeyedProcessFunction())
    process.print()

    env.execute("KeyedMapState")


if __name__ == '__main__':
    keyed_map_state_demo()
