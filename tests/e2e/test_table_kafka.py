"""The Table API's `kafka` connector against a Kafka-protocol broker: SQL reads a topic
of JSON messages and writes another in CSV (on the in-process executor)."""

import json

import pytest

from weir.table import StreamTableEnvironment


def _tables(t_env, broker, source, target, fmt="csv"):
    t_env.execute_sql(f"""
        CREATE TABLE payments (name STRING, amount BIGINT, note STRING) WITH (
            'connector' = 'kafka', 'topic' = '{source}',
            'properties.bootstrap.servers' = '{broker.bootstrap}',
            'properties.group.id' = 'g-{source}', 'scan.startup.mode' = 'earliest-offset',
            'scan.bounded.mode' = 'latest-offset', 'format' = 'json')""")
    t_env.execute_sql(f"""
        CREATE TABLE flagged (name STRING, amount BIGINT, big BOOLEAN) WITH (
            'connector' = 'kafka', 'topic' = '{target}',
            'properties.bootstrap.servers' = '{broker.bootstrap}', 'format' = '{fmt}')""")


def test_sql_from_a_json_topic_to_a_csv_topic(kafka_broker, local_env):
    source, target = kafka_broker.create_topic(2), kafka_broker.create_topic()
    payments = [{"name": f"u{i % 3}", "amount": i * 7 % 20, "note": "a, b" if i % 4 == 0
                 else None} for i in range(12)]
    kafka_broker.produce(source, [(json.dumps(p), i % 2, None) for i, p in enumerate(payments)])
    t_env = StreamTableEnvironment.create(local_env)
    _tables(t_env, kafka_broker, source, target)
    t_env.execute_sql("INSERT INTO flagged SELECT name, amount, amount > 10 FROM payments "
                      "WHERE amount > 0").wait()
    expected = [f"{p['name']},{p['amount']},{'true' if p['amount'] > 10 else 'false'}"
                for p in payments if p["amount"] > 0]
    assert sorted(kafka_broker.consume(target, len(expected))) == sorted(expected)


def test_an_aggregate_into_a_kafka_topic_is_refused(kafka_broker, local_env):
    source, target = kafka_broker.create_topic(), kafka_broker.create_topic()
    kafka_broker.produce(source, [(json.dumps({"name": "a", "amount": 1}), 0, None)])
    t_env = StreamTableEnvironment.create(local_env)
    _tables(t_env, kafka_broker, source, target)
    with pytest.raises(Exception, match="takes inserts only"):
        t_env.execute_sql("INSERT INTO flagged SELECT name, SUM(amount), FALSE FROM payments "
                          "GROUP BY name").wait()
