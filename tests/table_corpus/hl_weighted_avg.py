"""A class AggregateFunction (with retract and merge) registered by instance and called in
SQL GROUP BY over a view made from a DataStream, printed as a changelog.

Source: https://github.com/huanglaoxie0503/pyflink-basic-introduction
  file sql/sql_aggregate_function.py (commit 1304f895d7fe707b0804a31834e4353bda67d185).
  Exercises: env.from_collection(collection=..., type_info=Types.ROW([...])) of 3-tuples,
  StreamTableEnvironment.create(env), create_temporary_view(name, data_stream, col('name'),
  col('score'), col('weight')) naming a DataStream's fields, an AggregateFunction subclass
  (list accumulator, accumulate/retract/merge/get_value, no result or accumulator type
  declared in the class) registered by create_temporary_function('WeightedAvg', udaf(...)),
  a two-argument call in SQL with a trailing ';', streaming execute().print() of the
  aggregate's changelog.

Adapted for weir's test corpus (the class and SQL are verbatim):
- PyFlink 2.3 rejects the bare instance ("RuntimeError: Method get_result_type is not
  implemented"), so the instance registered is wrapped as udaf(ScoreWeightedAvg(),
  result_type=DataTypes.DOUBLE(), accumulator_type=DataTypes.ARRAY(DataTypes.BIGINT()))
  (udaf imported for that);
- pyflink is replaced by weir in imports.
"""
#!/usr/bin/python
# -*- coding:UTF-8 -*-
from weir.common import Types
from weir.datastream import StreamExecutionEnvironment
from weir.table import StreamTableEnvironment, DataTypes
from weir.table.expressions import col
from weir.table.functions import AggregateFunction
from weir.table.udf import udf
from weir.table.udf import udaf  # added for the corpus


class ScoreWeightedAvg(AggregateFunction):
    """
    继承 AggregateFunction
    """

    def get_value(self, accumulator):
        # sum / count
        if accumulator[0] != 0:
            return accumulator[1] / accumulator[0]
        else:
            return None

    def create_accumulator(self) -> list:
        return [0, 0]

    def accumulate(self, accumulator: tuple, *args):
        """
        累加计算的方法，每来一行数据都会调用一次
        :param accumulator: 累加器类型
        :param args: 参数
        :return:
        """
        if args[0] is not None:
            accumulator[0] += 1
            accumulator[1] += args[0]

    def merge(self, accumulator, accumulators):
        for acc in accumulators:
            if acc[1] is not None:
                accumulator[0] += acc[0]
                accumulator[1] += acc[1]

    def retract(self, accumulator, *args):
        if args[0] is not None:
            accumulator[0] -= 1
            accumulator[1] -= args[0]


def aggregate_function_demo():
    env = StreamExecutionEnvironment.get_execution_environment()
    table_env = StreamTableEnvironment.create(env)

    # 姓名，分数，权重
    score_weight_data = [
        ("zs", 80, 3),
        ("zs", 90, 4),
        ("zs", 95, 4),
        ("ls", 75, 4),
        ("ls", 65, 4),
        ("ls", 85, 4)
    ]

    score_weight_ds = env.from_collection(
        collection=score_weight_data, type_info=Types.ROW([Types.STRING(), Types.INT(), Types.INT()]))

    table_env.create_temporary_view(
        "scores",
        score_weight_ds,
        col('name'),
        col('score'),
        col('weight')
    )

    # TODO 2.注册函数
    # table_env.create_temporary_function('WeightedAvg', ScoreWeightedAvg())
    table_env.create_temporary_function('WeightedAvg', udaf(ScoreWeightedAvg(), result_type=DataTypes.DOUBLE(),
                                                            accumulator_type=DataTypes.ARRAY(DataTypes.BIGINT())))

    # TODO 3.调用 自定义函数
    table_env.sql_query('select name,WeightedAvg(score,weight)  from scores group by name;').execute().print()


if __name__ == '__main__':
    aggregate_function_demo()
