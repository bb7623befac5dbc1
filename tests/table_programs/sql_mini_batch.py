"""Group aggregations under mini-batch (Flink's `table.exec.mini-batch.*`): a key's rows
of one bundle change its result once, so a bounded input read in one bundle gives each
group's final row as +I, and an aggregation over an aggregation sees those rows only."""

from weir.table import EnvironmentSettings, TableEnvironment

t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
config = t_env.get_config()
config.set("parallelism.default", "1")
config.set("table.exec.mini-batch.enabled", "true")
config.set("table.exec.mini-batch.allow-latency", "5 s")
config.set("table.exec.mini-batch.size", "5000")
orders = t_env.from_elements(
    [
        (1, "apple", "Ann", 3, 1.5),
        (2, "pear", "Bob", 1, 2.25),
        (3, "apple", "Bob", 2, 1.5),
        (4, "fig", "Ann", 10, 0.4),
        (5, "pear", "Cy", 4, 2.0),
        (6, "apple", "Ann", 1, 1.25),
        (7, "fig", "Dee", None, 0.5),
    ],
    ["id", "item", "buyer", "qty", "price"],
)
t_env.create_temporary_view("orders", orders)

t_env.execute_sql("""
    SELECT item, COUNT(*) AS orders, SUM(qty) AS qty, MIN(price) AS lo, MAX(price) AS hi,
           AVG(qty) AS avg_qty, COUNT(DISTINCT buyer) AS buyers,
           COUNT(*) FILTER (WHERE qty > 2) AS big
    FROM orders GROUP BY item
""").print()
t_env.execute_sql("""
    SELECT cnt, COUNT(*) AS buyers, MIN(buyer) AS who FROM (
        SELECT buyer, COUNT(*) AS cnt FROM orders GROUP BY buyer
    ) GROUP BY cnt
""").print()
t_env.execute_sql("""
    SELECT buyer, SUM(qty) AS qty FROM orders GROUP BY buyer HAVING SUM(qty) > 3
""").print()
