"""The jdbc table connector's statements (Flink's PostgreSQL dialect) and primary keys in
CREATE TABLE and the Table API's Schema (no database: tests/e2e/test_table_jdbc.py
writes PostgreSQL)."""

import pytest

from weir.datastream import StreamExecutionEnvironment
from weir.table import DataTypes, Schema, StreamTableEnvironment
from weir.table.connectors import connector_of
from weir.table.jdbc_table import delete_statement, insert_statement, upsert_statement


def test_flinks_postgresql_statements():
    assert insert_statement("t", ["a", "b"]) == "INSERT INTO t(a, b) VALUES (?, ?)"
    assert upsert_statement("s.t", ["a", "b", "c"], ["a", "c"]) == (
        "INSERT INTO s.t(a, b, c) VALUES (?, ?, ?) ON CONFLICT (a, c) DO UPDATE SET b=EXCLUDED.b"
    )
    assert upsert_statement("t", ["a"], ["a"]).endswith("ON CONFLICT (a) DO NOTHING")
    assert delete_statement("t", ["a", "c"]) == "DELETE FROM t WHERE a = ? AND c = ?"


def test_a_primary_key_makes_a_jdbc_table_take_a_changelog():
    env = StreamExecutionEnvironment.get_execution_environment().set_executor("local")
    t_env = StreamTableEnvironment.create(env)
    t_env.execute_sql(
        "CREATE TABLE k (a BIGINT, b STRING, PRIMARY KEY (a, b) NOT ENFORCED) "
        "WITH ('connector' = 'jdbc')"
    )
    t_env.execute_sql(
        "CREATE TABLE c (a BIGINT PRIMARY KEY NOT ENFORCED, b STRING) WITH ('connector' = 'jdbc')"
    )
    t_env.execute_sql(
        "CREATE TABLE n (a BIGINT, b STRING, CONSTRAINT pk PRIMARY KEY (b) "
        "NOT ENFORCED) WITH ('connector' = 'jdbc')"
    )
    keys = [t_env._sink_descriptor(name).schema.primary_key for name in ("k", "c", "n")]
    assert keys == [["a", "b"], ["a"], ["b"]]
    assert [str(t) for _, t in t_env._sink_descriptor("n").schema.columns] == [
        "BIGINT",
        "STRING NOT NULL",
    ]  # (a key's columns are NOT NULL, as Flink's)
    assert connector_of({"connector": "jdbc"}, ["a"]).accepts_changelog
    assert not connector_of({"connector": "jdbc"}).accepts_changelog
    schema = Schema.new_builder().column("a", DataTypes.INT()).primary_key("a").build()
    assert schema.primary_key == ["a"]
    with pytest.raises(ValueError, match="one primary key"):
        Schema.new_builder().column("a", DataTypes.INT()).primary_key("a").primary_key("a")


def test_what_a_lookup_join_refuses():
    env = StreamExecutionEnvironment.get_execution_environment().set_executor("local")
    t_env = StreamTableEnvironment.create(env)
    t_env.execute_sql(
        "CREATE TABLE o (id BIGINT, k BIGINT, p AS PROCTIME()) "
        "WITH ('connector' = 'datagen', 'number-of-rows' = '3')"
    )
    t_env.execute_sql(
        "CREATE TABLE d (id BIGINT, name STRING) WITH ('connector' = 'jdbc',"
        " 'url' = 'jdbc:postgresql://127.0.0.1:1/x', 'table-name' = 'd')"
    )
    plan = t_env.sql_query(
        "SELECT o.id, d.name FROM o JOIN d FOR SYSTEM_TIME AS OF o.p ON o.k = d.id"
    ).explain()
    assert "LookupJoin(table=[d], joinType=[InnerJoin])" in plan
    with pytest.raises(NotImplementedError, match="not the left table.s event-time attribute"):
        t_env.sql_query("SELECT * FROM d JOIN o FOR SYSTEM_TIME AS OF d.id ON o.k = d.id")
    with pytest.raises(ValueError, match="needs an equality"):
        t_env.sql_query("SELECT * FROM o JOIN d FOR SYSTEM_TIME AS OF o.p ON o.k > d.id")
    with pytest.raises(NotImplementedError, match="RIGHT lookup join"):
        t_env.sql_query("SELECT * FROM o RIGHT JOIN d FOR SYSTEM_TIME AS OF o.p ON o.k = d.id")
