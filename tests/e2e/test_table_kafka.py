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
    payments = [
        {"name": f"u{i % 3}", "amount": i * 7 % 20, "note": "a, b" if i % 4 == 0 else None}
        for i in range(12)
    ]
    kafka_broker.produce(source, [(json.dumps(p), i % 2, None) for i, p in enumerate(payments)])
    t_env = StreamTableEnvironment.create(local_env)
    _tables(t_env, kafka_broker, source, target)
    t_env.execute_sql(
        "INSERT INTO flagged SELECT name, amount, amount > 10 FROM payments WHERE amount > 0"
    ).wait()
    expected = [
        f"{p['name']},{p['amount']},{'true' if p['amount'] > 10 else 'false'}"
        for p in payments
        if p["amount"] > 0
    ]
    assert sorted(kafka_broker.consume(target, len(expected))) == sorted(expected)


def test_an_aggregate_into_a_kafka_topic_is_refused(kafka_broker, local_env):
    source, target = kafka_broker.create_topic(), kafka_broker.create_topic()
    kafka_broker.produce(source, [(json.dumps({"name": "a", "amount": 1}), 0, None)])
    t_env = StreamTableEnvironment.create(local_env)
    _tables(t_env, kafka_broker, source, target)
    with pytest.raises(Exception, match="takes inserts only"):
        t_env.execute_sql(
            "INSERT INTO flagged SELECT name, SUM(amount), FALSE FROM payments GROUP BY name"
        ).wait()


def _keyed_messages(broker, topic, seconds=30):
    """(key, value or None) of every message of `topic`, in order (one partition)."""
    import time
    import uuid
    from confluent_kafka import Consumer, TopicPartition

    consumer = Consumer(
        {
            "bootstrap.servers": broker.bootstrap,
            "enable.auto.commit": False,
            "group.id": f"reader-{uuid.uuid4().hex[:8]}",
        }
    )
    consumer.assign([TopicPartition(topic, 0, 0)])
    got, deadline = [], time.time() + seconds
    _, high = consumer.get_watermark_offsets(TopicPartition(topic, 0), timeout=30)
    while len(got) < high and time.time() < deadline:
        for message in consumer.consume(100, 0.2):
            if message.error() is None:
                value = message.value()
                got.append((message.key().decode(), None if value is None else value.decode()))
    consumer.close()
    return got


def test_a_changelog_into_an_upsert_kafka_topic(kafka_broker, local_env):
    """Counts of counts: each +I/+U a message keyed by the primary key, each -D a
    tombstone; the topic, compacted, holds the final rows."""
    target = kafka_broker.create_topic()
    t_env = StreamTableEnvironment.create(local_env)
    t_env.create_temporary_view(
        "words",
        t_env.from_elements([(w,) for w in ["flink", "spark", "flink", "weir", "flink"]], ["word"]),
    )
    t_env.execute_sql(f"""
        CREATE TABLE frequencies (n BIGINT, words BIGINT, PRIMARY KEY (n) NOT ENFORCED)
        WITH ('connector' = 'upsert-kafka', 'topic' = '{target}',
              'properties.bootstrap.servers' = '{kafka_broker.bootstrap}',
              'key.format' = 'json', 'value.format' = 'json')""")
    t_env.execute_sql(
        "INSERT INTO frequencies SELECT n, COUNT(*) FROM (SELECT word, "
        "COUNT(*) AS n FROM words GROUP BY word) GROUP BY n"
    ).wait()
    messages = _keyed_messages(kafka_broker, target)
    compacted = dict(messages)  # (each key's last message; keys' order is weir's own)
    assert compacted == {
        '{"n":1}': '{"n":1,"words":2}',
        '{"n":2}': None,
        '{"n":3}': '{"n":3,"words":1}',
    }  # (n = 2 emptied: a tombstone)
    assert len(messages) >= 6 and all(
        value is None or value.startswith(key[:-1]) for key, value in messages
    )


def test_what_an_upsert_kafka_table_refuses(kafka_broker, local_env):
    t_env = StreamTableEnvironment.create(local_env)
    t_env.create_temporary_view("words", t_env.from_elements([("a",)], ["word"]))
    t_env.execute_sql(f"""
        CREATE TABLE unkeyed (word STRING) WITH ('connector' = 'upsert-kafka',
            'topic' = 't', 'properties.bootstrap.servers' = '{kafka_broker.bootstrap}',
            'key.format' = 'json', 'value.format' = 'json')""")
    with pytest.raises(ValueError, match="require to define a PRIMARY KEY"):
        t_env.execute_sql("INSERT INTO unkeyed SELECT word FROM words")
    with pytest.raises(ValueError, match="require to define a PRIMARY KEY"):
        t_env.execute_sql("SELECT * FROM unkeyed")


_UPSERTS = [
    ('{"id":1}', '{"id":1,"name":"ann","n":1}'),
    ('{"id":2}', '{"id":2,"name":"bob","n":5}'),
    ('{"id":1}', '{"id":1,"name":"ann","n":2}'),
    ('{"id":1}', '{"id":1,"name":"ann","n":2}'),  # (the same row: no change)
    ('{"id":3}', None),  # (a tombstone of a key with no row: no change)
    ('{"id":2}', None),
    ('{"id":2}', '{"id":2,"name":"cy","n":7}'),
]


def _upsert_table(t_env, broker, topic, include="ALL"):
    t_env.execute_sql(f"""
        CREATE TABLE people (id BIGINT, name STRING, n INT, PRIMARY KEY (id) NOT ENFORCED)
        WITH ('connector' = 'upsert-kafka', 'topic' = '{topic}',
              'properties.bootstrap.servers' = '{broker.bootstrap}',
              'key.format' = 'json', 'value.format' = 'json',
              'value.fields-include' = '{include}', 'scan.bounded.mode' = 'latest-offset')""")


def _changes(result):
    """Each key's changes in order, as PyFlink prints rows (keys' order is the
    micro-batch's own)."""
    per_key = {}
    for row in result.collect():
        per_key.setdefault(row[0], []).append(
            f"{str(row.get_row_kind())}[{', '.join(map(str, row))}]"
        )
    return per_key


@pytest.mark.parametrize("include", ["ALL", "EXCEPT_KEY"])
def test_an_upsert_kafka_topic_reads_as_each_keys_changelog(kafka_broker, local_env, include):
    topic = kafka_broker.create_topic()
    kafka_broker.produce_keyed(
        topic,
        [
            (
                key,
                value if value is None or include == "ALL" else value.replace(key[1:-1] + ",", ""),
            )
            for key, value in _UPSERTS
        ],
    )
    t_env = StreamTableEnvironment.create(local_env)
    _upsert_table(t_env, kafka_broker, topic, include)
    assert _changes(t_env.execute_sql("SELECT * FROM people")) == {
        1: ["+I[1, ann, 1]", "-U[1, ann, 1]", "+U[1, ann, 2]"],
        2: ["+I[2, bob, 5]", "-D[2, bob, 5]", "+I[2, cy, 7]"],
    }


def test_an_aggregate_over_an_upsert_kafka_table_follows_its_rows(kafka_broker, local_env):
    topic = kafka_broker.create_topic()
    kafka_broker.produce_keyed(topic, _UPSERTS)
    t_env = StreamTableEnvironment.create(local_env)
    _upsert_table(t_env, kafka_broker, topic)
    final = {}
    for row in t_env.execute_sql(
        "SELECT n > 1 AS big, COUNT(*) AS people, SUM(n) AS total FROM people GROUP BY n > 1"
    ).collect():
        kind = str(row.get_row_kind())
        if kind in ("+I", "+U"):
            final[row[0]] = (row[1], row[2])
        else:
            assert final.pop(row[0]) == (row[1], row[2])
    assert final == {True: (2, 9)}  # (ann's 2 and cy's 7; ann's 1 and bob's 5 retracted)
