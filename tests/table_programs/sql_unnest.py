"""UNNEST in SQL: an array by CROSS JOIN, by a comma and by LEFT JOIN (a NULL or empty
array keeps its row there, and only there; with a condition, a row none of whose elements
meets it too), WITH ORDINALITY, a map's entries, an array of rows, an ARRAY[...] of
constants (of the wider type); SPLIT's arrays (empty tokens kept, an empty delimiter)."""

from weir.table import DataTypes, EnvironmentSettings, TableEnvironment

t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
t_env.get_config().set("parallelism.default", "1")
t_env.create_temporary_view(
    "orders",
    t_env.from_elements(
        [
            (1, "a b  c", ["x", "y"], {"k": 1}, [(1, "p"), (2, "q")]),
            (2, "", [], {}, []),
            (3, None, None, None, None),
            (4, "d,e,", ["z", None], {"m": 2}, [(3, None)]),
        ],
        DataTypes.ROW(
            [
                DataTypes.FIELD("id", DataTypes.INT()),
                DataTypes.FIELD("line", DataTypes.STRING()),
                DataTypes.FIELD("tags", DataTypes.ARRAY(DataTypes.STRING())),
                DataTypes.FIELD("attrs", DataTypes.MAP(DataTypes.STRING(), DataTypes.INT())),
                DataTypes.FIELD(
                    "items",
                    DataTypes.ARRAY(
                        DataTypes.ROW(
                            [
                                DataTypes.FIELD("n", DataTypes.INT()),
                                DataTypes.FIELD("s", DataTypes.STRING()),
                            ]
                        )
                    ),
                ),
            ]
        ),
    ),
)

t_env.execute_sql("SELECT id, tag FROM orders CROSS JOIN UNNEST(tags) AS t(tag)").print()
t_env.execute_sql("SELECT id, word FROM orders, UNNEST(SPLIT(line, ' ')) AS t(word)").print()
t_env.execute_sql("SELECT id, tag FROM orders LEFT JOIN UNNEST(tags) AS t(tag) ON TRUE").print()
t_env.execute_sql(
    "SELECT id, tag, pos FROM orders CROSS JOIN UNNEST(tags) WITH ORDINALITY AS t(tag, pos)"
).print()
t_env.execute_sql("SELECT id, k, v FROM orders CROSS JOIN UNNEST(attrs) AS t(k, v)").print()
t_env.execute_sql("SELECT id, n, s FROM orders CROSS JOIN UNNEST(items) AS t(n, s)").print()
t_env.execute_sql(
    "SELECT id, part FROM orders CROSS JOIN UNNEST(SPLIT(line, ',')) AS t(part) WHERE id = 4"
).print()
t_env.execute_sql(
    "SELECT id, ch FROM orders CROSS JOIN UNNEST(SPLIT(line, '')) AS t(ch) WHERE id = 1"
).print()
t_env.execute_sql(
    "SELECT word, COUNT(*) AS n FROM orders, UNNEST(SPLIT(line, ' ')) AS t(word) GROUP BY word"
).print()
t_env.execute_sql(
    "SELECT id, tag FROM orders LEFT JOIN UNNEST(tags) AS t(tag) ON tag <> 'x'"
).print()
t_env.execute_sql(
    "SELECT id, a, pos FROM orders CROSS JOIN UNNEST(ARRAY[1.5, 2]) WITH ORDINALITY AS t(a, pos)"
).print()
