"""SQL over a view: filters, expressions, casts, string functions, GROUP BY with the
built-in aggregates, an aggregate over an aggregate (retractions), DISTINCT and LIMIT."""

from weir.table import EnvironmentSettings, TableEnvironment

t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
t_env.get_config().set("parallelism.default", "1")
orders = t_env.from_elements(
    [
        (1, "apple", "Ann", 3, 1.5),
        (2, "pear", "Bob", 1, 2.25),
        (3, "apple", "Bob", 2, 1.5),
        (4, "fig", "Ann", 10, 0.4),
        (5, "pear", "Cy", 4, 2.0),
        (6, "apple", "Ann", 1, 1.25),
    ],
    ["id", "item", "buyer", "qty", "price"],
)
t_env.create_temporary_view("orders", orders)

t_env.execute_sql("""
    SELECT id, UPPER(item) AS item, qty * price AS total, CAST(qty AS STRING) AS q,
           CHAR_LENGTH(buyer) AS n
    FROM orders WHERE qty >= 2 AND item <> 'fig'
""").print()
t_env.execute_sql("""
    SELECT item, COUNT(*) AS orders, SUM(qty) AS qty, MIN(price) AS lo, MAX(price) AS hi,
           AVG(qty) AS avg_qty
    FROM orders GROUP BY item
""").print()
t_env.execute_sql("""
    SELECT cnt, COUNT(*) AS buyers FROM (
        SELECT buyer, COUNT(*) AS cnt FROM orders GROUP BY buyer
    ) GROUP BY cnt
""").print()
t_env.execute_sql("SELECT DISTINCT buyer FROM orders").print()
t_env.execute_sql("SELECT id, item FROM orders LIMIT 2").print()
