"""Event-time tumbling windows over an out-of-order click stream with two late events.

Source: https://github.com/Conan-kid/pyflink-tutorial
  file examples/03_watermark_window.py (commit 207863911086911799a9bcf61e37a9fbe21fda2f),
  a Chinese PyFlink tutorial. Exercises: a TimestampAssigner class, for_bounded_out_of_orderness
  of 5 s, TumblingEventTimeWindows of 5 s, a ProcessWindowFunction reading the window bounds;
  the author expects one of the two late events to be dropped (whether it is depends on when
  the periodic watermark is emitted).

Adapted for weir's test corpus: nothing (the program already reads a collection); the user's
functions are verbatim (the module docstring, a tutorial text, is shortened to this one, and
so are the comments of main()); pyflink is replaced by weir in imports.
"""

import sys

from weir.common import Duration, WatermarkStrategy
from weir.common.time import Time
from weir.common.typeinfo import Types
from weir.common.watermark_strategy import TimestampAssigner
from weir.datastream import StreamExecutionEnvironment
from weir.datastream.functions import MapFunction, ProcessWindowFunction
from weir.datastream.window import TumblingEventTimeWindows


# ======================================================================
# 数据源：模拟一条「乱序的点击流」
# 格式：(用户ID, 页面, 事件时间毫秒)
# 注意观察时间戳：故意让一部分事件晚到，制造乱序
# ======================================================================
CLICK_EVENTS = [
    ("u1", "/home",  1000),   # 事件时间 第 1 秒
    ("u2", "/home",  1500),
    ("u1", "/sku",   2500),   # 第 2 秒
    ("u3", "/home",  3000),
    ("u1", "/cart",  4500),   # 第 4 秒
    ("u2", "/sku",   5000),
    ("u3", "/sku",   5500),
    ("u1", "/pay",   6500),   # 第 6 秒
    ("u2", "/cart",  7000),
    ("u3", "/cart",  8000),
    ("u1", "/home",  9500),   # 第 9 秒
    ("u2", "/pay",  10500),   # 第 10 秒
    # ↓ 下面两条是「迟到事件」：时间戳比它们前面的小
    #   如果没有 watermark 的延迟容忍，它们会被丢弃
    ("u3", "/pay",   4000),   # 迟到 4 秒，在容忍范围内（5秒）→ 应该被正确计入
    ("u1", "/sku",   2000),   # 迟到 7 秒 5，超出容忍 → 会被丢弃（这是设计行为，不是 bug）
]


class ClickTimestampAssigner(TimestampAssigner):
    """
    从数据里提取事件时间。

    【新手必踩的坑】
    你可能想直接写 lambda：
        .with_timestamp_assigner(lambda event, ts: event[2])

    在 PyFlink 1.20 里这会报：
        AttributeError: 'function' object has no attribute 'extract_timestamp'

    原因是 with_timestamp_assigner 要求一个 TimestampAssigner 的「实现类」，
    而不是普通函数。Flink 需要序列化这个对象分发到各个 TaskManager，
    普通 lambda 没法跨进程传递。

    所以正确姿势就是像下面这样定义一个小类。
    """

    def extract_timestamp(self, value, record_timestamp: int) -> int:
        # value 是流里的元素（这里是元组），record_timestamp 是系统给的参考时间戳
        return value[2]


class FormatClick(MapFunction):
    """把元组转成更易读的字符串，顺便演示 MapFunction 的写法。"""

    def map(self, value):
        user, page, ts = value
        return f"用户={user} 页面={page} 事件时间={ts}ms"


class WindowResult(ProcessWindowFunction):
    """
    自定义窗口输出函数。
    用 ProcessWindowFunction 而不是简单的 ReduceFunction/AggregateFunction，
    因为它能拿到窗口的元信息（窗口起止时间），输出更丰富。

    签名：(key, context, elements) → iterator
      key      : 分组键（这里是用户ID）
      context  : 可以取 window() 拿到窗口起止时间
      elements : 这个窗口内该 key 的所有元素（可迭代对象）
    """

    def process(self, key, context, elements):
        events = list(elements)
        start = context.window().start
        end = context.window().end
        yield f"窗口[{start}, {end}) 用户={key} 点击次数={len(events)} 页面序列={[e[1] for e in events]}"


def main():
    # StreamExecutionEnvironment 是 DataStream API 的入口
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(1)   # 本地学习调 1 并行度，输出顺序更直观

    # 【Windows 上必须配的一步】指定 Python 解释器绝对路径
    env.set_python_executable(sys.executable)

    # 1. 从集合创建流
    stream = env.from_collection(
        CLICK_EVENTS,
        # 显式声明类型，避免 Flink 类型推断出错
        type_info=Types.TUPLE([Types.STRING(), Types.STRING(), Types.LONG()]),
    )

    # 2. 分配时间戳 + 生成 Watermark（关键一步）
    watermark_strategy = WatermarkStrategy.for_bounded_out_of_orderness(
        Duration.of_seconds(5)
    ).with_timestamp_assigner(ClickTimestampAssigner())

    timestamped = stream.assign_timestamps_and_watermarks(watermark_strategy)

    # 3. 按用户分组 → 开 5 秒滚动窗口 → 统计
    result = (
        timestamped
        .key_by(lambda e: e[0])                                   # 按用户ID分组
        # 注意：窗口的 of() 要 Time，不是 Duration！
        .window(TumblingEventTimeWindows.of(Time.seconds(5)))     # 5秒滚动窗口
        .process(WindowResult())
    )

    # 4. 输出
    result.print()

    env.execute("03-watermark-tumbling-window")


if __name__ == "__main__":
    main()
