"""The Table API's row operations: expressions with NULLs, if_then_else, concat, like,
in_, between, a Python aggregate per group, and a table aggregate (top 2) per group."""

from weir.common import Row
from weir.table import DataTypes, EnvironmentSettings, TableEnvironment
from weir.table.expressions import col, concat, if_then_else
from weir.table.udf import AggregateFunction, TableAggregateFunction, udaf, udtaf

t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
t_env.get_config().set("parallelism.default", "1")
table = t_env.from_elements(
    [(1, "a", 10), (2, "b", None), (3, "a", 30), (4, "c", 5), (5, "a", 20), (6, "b", 7)],
    DataTypes.ROW(
        [
            DataTypes.FIELD("id", DataTypes.BIGINT()),
            DataTypes.FIELD("k", DataTypes.STRING()),
            DataTypes.FIELD("v", DataTypes.INT()),
        ]
    ),
)

table.select(
    col("id"),
    (col("v") + 1).alias("v1"),
    if_then_else(col("v") > 9, "big", "small").alias("size"),
    concat(col("k"), "-", col("id").cast(DataTypes.STRING())).alias("tag"),
    col("k").in_("a", "c").alias("ac"),
    col("v").between(5, 10).alias("mid"),
    col("v").is_null.alias("missing"),
).execute().print()
table.where(col("k").like("a%") & (col("v") > 15)).execute().print()


class Spread(AggregateFunction):
    def create_accumulator(self):
        return Row(None, None)

    def accumulate(self, accumulator, value):
        if value is not None:
            accumulator[0] = value if accumulator[0] is None else min(accumulator[0], value)
            accumulator[1] = value if accumulator[1] is None else max(accumulator[1], value)

    def get_value(self, accumulator):
        return None if accumulator[0] is None else accumulator[1] - accumulator[0]

    def get_result_type(self):
        return DataTypes.INT()

    def get_accumulator_type(self):
        return DataTypes.ROW(
            [DataTypes.FIELD("lo", DataTypes.INT()), DataTypes.FIELD("hi", DataTypes.INT())]
        )


spread = udaf(Spread())
table.group_by(col("k")).select(col("k"), spread(col("v")).alias("spread")).execute().print()


class Top2(TableAggregateFunction):
    def create_accumulator(self):
        return [None, None]

    def accumulate(self, accumulator, value):
        if value is None:
            return
        if accumulator[0] is None or value > accumulator[0]:
            accumulator[1], accumulator[0] = accumulator[0], value
        elif accumulator[1] is None or value > accumulator[1]:
            accumulator[1] = value

    def emit_value(self, accumulator):
        for value in accumulator:
            if value is not None:
                yield Row(value)

    def get_result_type(self):
        return DataTypes.ROW([DataTypes.FIELD("top", DataTypes.INT())])

    def get_accumulator_type(self):
        return DataTypes.ARRAY(DataTypes.INT())


top2 = udtaf(Top2())
table.group_by(col("k")).flat_aggregate(top2(col("v"))).select(
    col("k"), col("top")
).execute().print()
