"""Top-N over a changelog in a streaming query: ROW_NUMBER() over an aggregation's
updating rows (each product's running total), kept where it is at most N, with and
without the rank in the output, per category and over everything. (Compared on final
tables: weir's aggregation sends a micro-batch's changes key group by key group, so the
Top-N sees them in another order than Flink's, and its intermediate changes differ; the
data has no ties among the final top rows, whose order would follow that arrival.)"""

from weir.table import DataTypes, EnvironmentSettings, TableEnvironment

t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
t_env.get_config().set("parallelism.default", "1")
t_env.create_temporary_view(
    "sales",
    t_env.from_elements(
        [
            ("fruit", "apple", 3),
            ("fruit", "pear", 5),
            ("veg", "leek", 4),
            ("fruit", "plum", 1),
            ("fruit", "apple", 4),
            ("veg", "kale", 2),
            ("fruit", "plum", 7),
            ("veg", "kale", 3),
            ("fruit", "pear", 1),
            ("fruit", "fig", 2),
        ],
        DataTypes.ROW(
            [
                DataTypes.FIELD("category", DataTypes.STRING()),
                DataTypes.FIELD("product", DataTypes.STRING()),
                DataTypes.FIELD("amount", DataTypes.INT()),
            ]
        ),
    ),
)
t_env.execute_sql("""
    SELECT category, product, total, rn FROM (
      SELECT *, ROW_NUMBER() OVER (PARTITION BY category ORDER BY total DESC) AS rn
      FROM (SELECT category, product, SUM(amount) AS total FROM sales
            GROUP BY category, product))
    WHERE rn <= 2
""").print()
t_env.execute_sql("""
    SELECT category, product, total FROM (
      SELECT *, ROW_NUMBER() OVER (PARTITION BY category ORDER BY total DESC) AS rn
      FROM (SELECT category, product, SUM(amount) AS total FROM sales
            GROUP BY category, product))
    WHERE rn <= 2
""").print()
t_env.execute_sql("""
    SELECT product, n FROM (
      SELECT *, ROW_NUMBER() OVER (ORDER BY n DESC, product) AS rn
      FROM (SELECT product, COUNT(*) AS n FROM sales GROUP BY product))
    WHERE rn <= 3
""").print()
t_env.execute_sql("""
    SELECT product, n FROM (SELECT product, COUNT(*) AS n FROM sales GROUP BY product)
    ORDER BY n DESC, product LIMIT 2
""").print()
