"""SQL joins of two views: inner, left outer (padded rows retracted when a match
comes) and a join followed by an aggregate."""

from weir.table import EnvironmentSettings, TableEnvironment

t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
t_env.get_config().set("parallelism.default", "1")
t_env.create_temporary_view(
    "users", t_env.from_elements([(1, "Ann"), (2, "Bob"), (3, "Cy")], ["uid", "name"])
)
t_env.create_temporary_view(
    "clicks",
    t_env.from_elements(
        [(1, "/home"), (1, "/cart"), (3, "/home"), (4, "/about")], ["user_id", "url"]
    ),
)

t_env.execute_sql("SELECT name, url FROM users JOIN clicks ON uid = user_id").print()
t_env.execute_sql("SELECT name, url FROM users LEFT JOIN clicks ON uid = user_id").print()
t_env.execute_sql("""
    SELECT name, COUNT(url) AS clicks FROM users LEFT JOIN clicks ON uid = user_id
    GROUP BY name
""").print()
