"""The Table API's `jdbc` sink against a real PostgreSQL (a private cluster), on Spark and
on the in-process executor: a changelog written by the table's primary key (upserts,
deletes), inserts into a table without one, and what it refuses."""

import decimal

import pytest

from weir.table import StreamTableEnvironment

pytestmark = pytest.mark.spark

WORDS = ["flink", "spark", "flink", "weir", "spark", "flink", "weir", "flink"]


@pytest.fixture
def database(postgres_server):
    return postgres_server.create_database()


@pytest.fixture(params=["spark", "local"])
def t_env(request, spark_env, local_env):
    return StreamTableEnvironment.create(spark_env if request.param == "spark" else local_env)


def _jdbc(database, table):
    return (
        f"'connector' = 'jdbc', 'url' = '{database.jdbc_url}', 'table-name' = '{table}', "
        "'username' = 'postgres', 'sink.buffer-flush.max-rows' = '3'"
    )


def test_a_group_aggregations_changelog_ends_as_its_final_rows(database, t_env):
    database.execute("CREATE TABLE counts (word text PRIMARY KEY, n bigint, longest int)")
    t_env.create_temporary_view("words", t_env.from_elements([(w,) for w in WORDS], ["word"]))
    t_env.execute_sql(
        "CREATE TABLE counts (word STRING, n BIGINT, longest INT, "
        f"PRIMARY KEY (word) NOT ENFORCED) WITH ({_jdbc(database, 'counts')})"
    )
    t_env.execute_sql(
        "INSERT INTO counts SELECT word, COUNT(*), MAX(CHAR_LENGTH(word)) FROM words GROUP BY word"
    ).wait()
    assert database.query("SELECT word, n, longest FROM counts ORDER BY word") == [
        ("flink", 4, 5),
        ("spark", 2, 5),
        ("weir", 2, 4),
    ]


def test_deletes_remove_rows_by_the_key(database, t_env):
    """Counts of counts: as the words' counts grow, the groups of counts 1 and 3 are
    emptied (-D) and must leave the table."""
    database.execute("CREATE TABLE frequencies (n bigint PRIMARY KEY, words bigint)")
    t_env.create_temporary_view("words", t_env.from_elements([(w,) for w in WORDS], ["word"]))
    t_env.execute_sql(
        "CREATE TABLE frequencies (n BIGINT, words BIGINT, PRIMARY KEY (n) "
        f"NOT ENFORCED) WITH ({_jdbc(database, 'frequencies')})"
    )
    t_env.execute_sql(
        "INSERT INTO frequencies SELECT n, COUNT(*) FROM (SELECT word, "
        "COUNT(*) AS n FROM words GROUP BY word) GROUP BY n"
    ).wait()
    assert database.query("SELECT n, words FROM frequencies ORDER BY n") == [(2, 2), (4, 1)]


def test_rows_of_one_primary_key_from_several_groups_are_materialized(database, t_env):
    """The sink's key (a word's length) is not the query's (the word): spark and flink
    share length 5. flink's group leaves the result by the HAVING once its count reaches
    3 (its last row retracted): key 5's row must then be spark's again. Without Flink's
    upsert materializer the sink would keep flink's retracted row (an upsert sink skips
    retractions of updates), or delete key 5 (weir.table.upsert_materialize)."""
    database.execute("CREATE TABLE by_length (len int PRIMARY KEY, word text, n bigint)")
    t_env.create_temporary_view(
        "words",
        t_env.from_elements(
            [(w,) for w in ["spark", "weir", "flink", "weir", "flink", "flink"]], ["word"]
        ),
    )
    t_env.execute_sql(
        "CREATE TABLE by_length (len INT, word STRING, n BIGINT, PRIMARY KEY "
        f"(len) NOT ENFORCED) WITH ({_jdbc(database, 'by_length')})"
    )
    t_env.execute_sql(
        "INSERT INTO by_length SELECT CHAR_LENGTH(word), word, COUNT(*) "
        "FROM words GROUP BY word HAVING COUNT(*) < 3"
    ).wait()
    assert database.query("SELECT len, word, n FROM by_length ORDER BY len") == [
        (4, "weir", 2),
        (5, "spark", 1),
    ]


def test_a_table_without_a_key_takes_inserts_once(database, t_env):
    database.execute("CREATE TABLE seen (word text, size int)")
    t_env.create_temporary_view("words", t_env.from_elements([(w,) for w in WORDS], ["word"]))
    t_env.execute_sql(f"CREATE TABLE seen (word STRING, size INT) WITH ({_jdbc(database, 'seen')})")
    t_env.execute_sql(
        "INSERT INTO seen SELECT word, CHAR_LENGTH(word) FROM words WHERE word <> 'weir'"
    ).wait()
    assert sorted(database.query("SELECT word, size FROM seen")) == sorted(
        (w, len(w)) for w in WORDS if w != "weir"
    )
    with pytest.raises(ValueError, match="doesn't support consuming update and delete"):
        t_env.execute_sql(
            "INSERT INTO seen SELECT word, CAST(COUNT(*) AS INT) FROM words GROUP BY word"
        )


def test_what_a_jdbc_table_refuses(database, local_env):
    t_env = StreamTableEnvironment.create(local_env)
    t_env.create_temporary_view("words", t_env.from_elements([("a",)], ["word"]))
    t_env.execute_sql(
        "CREATE TABLE nowhere (word STRING) WITH ('connector' = 'jdbc', 'table-name' = 'nowhere')"
    )
    with pytest.raises(ValueError, match="needs the option 'url'"):
        t_env.execute_sql("INSERT INTO nowhere SELECT word FROM words")
    with pytest.raises(ValueError, match="ENFORCED mode for PRIMARY KEY"):
        t_env.execute_sql(
            f"CREATE TABLE k (word STRING, PRIMARY KEY (word)) WITH ({_jdbc(database, 'k')})"
        )
    with pytest.raises(ValueError, match="names no column of the table: 'other'"):
        t_env.execute_sql(
            "CREATE TABLE k (word STRING, PRIMARY KEY (other) NOT ENFORCED) "
            f"WITH ({_jdbc(database, 'k')})"
        )


@pytest.mark.parametrize(
    "partitions",
    [
        "",
        ", 'scan.partition.column' = 'id', "
        "'scan.partition.lower-bound' = '1', "
        "'scan.partition.upper-bound' = '10', "
        "'scan.partition.num' = '3'",
    ],
)
def test_a_jdbc_table_is_read_once_whole_or_by_ranges(database, t_env, partitions):
    database.execute(
        "CREATE TABLE prices (id bigint, item text, price numeric(10, 2), weight double precision)"
    )
    database.execute(
        "INSERT INTO prices SELECT i, 'item ' || i, i * 1.5, i / 4.0 "
        "FROM generate_series(1, 10) AS i"
    )
    t_env.execute_sql(
        "CREATE TABLE prices (id BIGINT, item STRING, price DECIMAL(10, 2), weight DOUBLE) "
        f"WITH ({_jdbc(database, 'prices')}{partitions})".replace(
            ", 'sink.buffer-flush.max-rows' = '3'", ""
        )
    )
    rows = sorted(
        tuple(row)
        for row in t_env.execute_sql(
            "SELECT id, item, price, weight FROM prices WHERE id > 7"
        ).collect()
    )
    assert rows == [(i, f"item {i}", decimal.Decimal(i * 3) / 2, i / 4) for i in (8, 9, 10)]
    assert str(rows[0][2]) == "12.00"
    total = list(t_env.execute_sql("SELECT COUNT(*), SUM(price) FROM prices").collect())
    assert [tuple(row) for row in total][-1] == (10, decimal.Decimal("82.50"))


@pytest.mark.parametrize(
    "cache",
    [
        "",
        ", 'lookup.cache' = 'PARTIAL', "
        "'lookup.partial-cache.max-rows' = '2', "
        "'lookup.partial-cache.expire-after-write' = '1 h'",
    ],
)
def test_a_lookup_join_enriches_rows_from_postgresql(database, t_env, tmp_path, cache):
    """FOR SYSTEM_TIME AS OF a processing-time column: each order looks up its customer
    (none for customer 9 and for a NULL one: dropped by the inner join, padded by the
    LEFT JOIN); the rest of the ON condition is checked on the joined rows."""
    database.execute("CREATE TABLE customers (id bigint PRIMARY KEY, name text, tier int)")
    database.execute("INSERT INTO customers VALUES (1, 'ann', 1), (2, 'bob', 3), (3, 'cy', 2)")
    (tmp_path / "orders.json").write_text(
        "".join(
            f'{{"oid": {oid}, "cid": {"null" if cid is None else cid}}}\n'
            for oid, cid in [(10, 1), (11, 2), (12, 9), (13, None), (14, 2), (15, 3)]
        )
    )
    t_env.execute_sql(
        "CREATE TABLE orders (oid BIGINT, cid BIGINT, p AS PROCTIME()) WITH ("
        f"'connector' = 'filesystem', 'path' = '{tmp_path}/orders.json', 'format' = 'json')"
    )
    t_env.execute_sql(
        "CREATE TABLE customers (id BIGINT, name STRING, tier INT) WITH ("
        f"{_jdbc(database, 'customers')}{cache})".replace(
            ", 'sink.buffer-flush.max-rows' = '3'", ""
        )
    )

    def rows(sql):
        return sorted(tuple(row) for row in t_env.execute_sql(sql).collect())

    assert rows(
        "SELECT o.oid, c.name, c.tier FROM orders AS o JOIN customers "
        "FOR SYSTEM_TIME AS OF o.p AS c ON o.cid = c.id"
    ) == [(10, "ann", 1), (11, "bob", 3), (14, "bob", 3), (15, "cy", 2)]
    assert rows(
        "SELECT o.oid, c.id, c.name FROM orders AS o LEFT JOIN customers "
        "FOR SYSTEM_TIME AS OF o.p AS c ON o.cid = c.id AND c.tier > 1"
    ) == [
        (10, None, None),
        (11, 2, "bob"),
        (12, None, None),
        (13, None, None),
        (14, 2, "bob"),
        (15, 3, "cy"),
    ]
