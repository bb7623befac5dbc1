"""BATCH mode sorts (weir.table.sort): ORDER BY without LIMIT, with LIMIT and OFFSET,
the Table API's order_by/offset/fetch, LIMIT and Top-N over an aggregate's final rows,
NULLs first ascending and last descending; and what real programs did beside them:
functions called by name (call("name")), alias() of fewer names than columns, a table
function's columns named by alias(), CJK text in printed tables."""

from weir.table import DataTypes, EnvironmentSettings, TableEnvironment
from weir.table.expressions import call, col
from weir.table.udf import udf, udtf

t_env = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
t_env.get_config().set("parallelism.default", "2")
orders = t_env.from_elements(
    [
        (1, "手机", 5999, "alice"),
        (2, "book", 35, "bob"),
        (3, "手机", 4299, "carol"),
        (4, None, 120, "alice"),
        (5, "pen", 3, None),
        (6, "book", 50, "carol"),
        (7, "耳机", 299, "bob"),
        (8, "pen", 4, "dave"),
    ],
    DataTypes.ROW(
        [
            DataTypes.FIELD("id", DataTypes.INT()),
            DataTypes.FIELD("item", DataTypes.STRING()),
            DataTypes.FIELD("price", DataTypes.INT()),
            DataTypes.FIELD("buyer", DataTypes.STRING()),
        ]
    ),
)
t_env.create_temporary_view("orders", orders)

t_env.sql_query("SELECT id, item, price FROM orders ORDER BY price DESC, id").execute().print()
t_env.sql_query("SELECT id, item FROM orders ORDER BY item, id LIMIT 3 OFFSET 2").execute().print()
orders.order_by(col("buyer").desc, col("id")).offset(1).fetch(4).execute().print()
orders.order_by(col("item")).select(col("id"), col("item")).execute().print()

totals = orders.group_by(col("buyer")).select(col("buyer"), col("price").sum.alias("total"))
totals.order_by(col("total").desc).limit(2).execute().print()
t_env.create_temporary_view("totals", totals)
t_env.sql_query("SELECT buyer, total FROM totals ORDER BY total LIMIT 2").execute().print()
t_env.sql_query(
    "SELECT item, buyer, spent, rn FROM (SELECT item, buyer, spent, ROW_NUMBER() OVER "
    "(PARTITION BY item ORDER BY spent DESC) AS rn FROM (SELECT item, buyer, SUM(price) "
    "AS spent FROM orders GROUP BY item, buyer)) WHERE rn <= 1 ORDER BY spent"
).execute().print()

t_env.create_temporary_function("twice", udf(lambda v: v * 2, result_type=DataTypes.INT()))
orders.select(col("id"), call("twice", col("price"))).order_by(col("id")).fetch(3).execute().print()
orders.alias("order_id").select(col("order_id"), col("item")).order_by(col("order_id")).fetch(
    2
).execute().print()


@udtf(result_types=[DataTypes.STRING(), DataTypes.INT()])
def letters(text):
    for position, letter in enumerate(text or ""):
        yield letter, position


t_env.create_temporary_function("letters", letters)
orders.where(col("id") < 3).join_lateral(
    call("letters", col("item")).alias("letter", "pos")
).select(col("id"), col("letter"), col("pos")).order_by(col("id"), col("pos")).execute().print()
