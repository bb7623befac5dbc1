"""Pandas scalar functions (udf(func_type="pandas")): each gets its arguments as pandas
Series and returns a Series of as many values, in select, where and SQL."""

import pandas as pd

from weir.table import DataTypes, EnvironmentSettings, TableEnvironment
from weir.table.expressions import col
from weir.table.udf import udf


@udf(result_type=DataTypes.STRING(), func_type="pandas")
def shout(names: pd.Series) -> pd.Series:
    return names.str.upper() + "!"


@udf(result_type=DataTypes.DOUBLE(), func_type="pandas")
def weighted(amount: pd.Series, weight: pd.Series) -> pd.Series:
    return (amount * weight).round(2)


@udf(result_type=DataTypes.BIGINT(), func_type="pandas")
def digits(amount: pd.Series) -> pd.Series:
    return amount.astype(str).str.len()


t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
t_env.get_config().set("parallelism.default", "1")
orders = t_env.from_elements(
    [(1, "alice", 30, 0.5), (2, "bob", 5, 1.25), (3, "carol", 1200, 0.1)],
    ["id", "name", "amount", "weight"],
)
orders.select(
    col("id"), shout(col("name")).alias("loud"), weighted(col("amount"), col("weight")).alias("w")
).execute().print()
orders.where(digits(col("amount")) > 1).select(col("name")).execute().print()
t_env.create_temporary_view("orders", orders)
t_env.create_temporary_function("shout", shout)
t_env.execute_sql("SELECT shout(name) AS loud, amount FROM orders WHERE id <> 2").print()
