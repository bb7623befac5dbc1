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
        "INSERT INTO s.t(a, b, c) VALUES (?, ?, ?) ON CONFLICT (a, c) DO UPDATE SET "
        "b=EXCLUDED.b")
    assert upsert_statement("t", ["a"], ["a"]).endswith("ON CONFLICT (a) DO NOTHING")
    assert delete_statement("t", ["a", "c"]) == "DELETE FROM t WHERE a = ? AND c = ?"


def test_a_primary_key_makes_a_jdbc_table_take_a_changelog():
    env = StreamExecutionEnvironment.get_execution_environment().set_executor("local")
    t_env = StreamTableEnvironment.create(env)
    t_env.execute_sql("CREATE TABLE k (a BIGINT, b STRING, PRIMARY KEY (a, b) NOT ENFORCED) "
                      "WITH ('connector' = 'jdbc')")
    t_env.execute_sql("CREATE TABLE c (a BIGINT PRIMARY KEY NOT ENFORCED, b STRING) "
                      "WITH ('connector' = 'jdbc')")
    keys = [t_env._sink_descriptor(name).schema.primary_key for name in ("k", "c")]
    assert keys == [["a", "b"], ["a"]]
    assert connector_of({"connector": "jdbc"}, ["a"]).accepts_changelog
    assert not connector_of({"connector": "jdbc"}).accepts_changelog
    schema = Schema.new_builder().column("a", DataTypes.INT()).primary_key("a").build()
    assert schema.primary_key == ["a"]
    with pytest.raises(ValueError, match="one primary key"):
        Schema.new_builder().column("a", DataTypes.INT()).primary_key("a").primary_key("a")
