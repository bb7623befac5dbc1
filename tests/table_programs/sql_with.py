"""WITH: a query's named subqueries (one used twice, one with a column list, one inside
a subquery), shadowing a catalog table of the same name; sql_query of a UNION."""

from weir.table import EnvironmentSettings, TableEnvironment

t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
t_env.get_config().set("parallelism.default", "1")
t_env.create_temporary_view(
    "orders",
    t_env.from_elements(
        [(1, "alice", 30), (2, "bob", 5), (3, "alice", 12), (4, "carol", 40), (5, "bob", 25)],
        ["id", "customer", "amount"],
    ),
)
t_env.create_temporary_view("big", t_env.from_elements([(99,)], ["id"]))

t_env.execute_sql("""
    WITH big AS (SELECT id, customer, amount FROM orders WHERE amount >= 20),
         totals (who, total) AS (SELECT customer, SUM(amount) FROM big GROUP BY customer)
    SELECT who, total FROM totals WHERE total > 25
""").print()

t_env.execute_sql("""
    WITH big AS (SELECT id, customer FROM orders WHERE amount >= 10)
    SELECT a.id, b.id AS other, a.customer
    FROM big a JOIN big b ON a.customer = b.customer AND a.id < b.id
""").print()

t_env.execute_sql("""
    SELECT customer, n FROM (
        WITH counted AS (SELECT customer, COUNT(*) AS n FROM orders GROUP BY customer)
        SELECT customer, n FROM counted WHERE n > 1)
""").print()

t_env.sql_query("""
    WITH small AS (SELECT id FROM orders WHERE amount < 10)
    SELECT id FROM small UNION ALL SELECT id FROM big
""").execute().print()
