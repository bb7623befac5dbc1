"""Non-keyed connected streams: CoMapFunction, CoFlatMapFunction and CoProcessFunction with
a side output, over two sources of different types."""

from weir.common import Types
from weir.datastream import (CoFlatMapFunction, CoMapFunction, CoProcessFunction,
                             OutputTag, StreamExecutionEnvironment)


class Describe(CoMapFunction):
    def map1(self, value):
        return "number", value * 10

    def map2(self, value):
        return "word", value.upper()


class Spread(CoFlatMapFunction):
    def flat_map1(self, value):
        for i in range(value):
            yield "number", value, i

    def flat_map2(self, value):
        return [("letter", value, c) for c in value]


LONG_WORDS = OutputTag("long-words", Types.STRING())


class Route(CoProcessFunction):
    def process_element1(self, value, ctx):
        yield f"number {value} at {ctx.timestamp()}"

    def process_element2(self, value, ctx):
        if len(value) > 3:
            yield LONG_WORDS, f"long {value}"
        else:
            yield f"word {value}"


env = StreamExecutionEnvironment.get_execution_environment()
env.set_parallelism(1)
numbers = env.from_collection([1, 2, 3], Types.INT())
words = env.from_collection(["ab", "flink", "spark", "c"], Types.STRING())
numbers.connect(words).map(Describe()).print("map")
numbers.connect(words).flat_map(Spread()).print("flat_map")
routed = numbers.connect(words).process(Route(), Types.STRING())
routed.print("process")
routed.get_side_output(LONG_WORDS).print("long")
env.execute("co functions")
