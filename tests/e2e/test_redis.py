"""RedisStreamSource and RedisSink against a real Redis server, on Spark and on the
in-process executor."""

import time
import uuid

import pytest

from weir.common import Types, WatermarkStrategy
from weir.common.time import Time
from weir.datastream.connectors.redis import RedisSink, RedisStreamSource
from weir.datastream.functions import ProcessWindowFunction
from weir.datastream.window import TumblingEventTimeWindows
from tests.e2e.shared import checkpointed_env, wait_until, wait_until_at_rest

pytestmark = pytest.mark.spark


def _name(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:10]}"


def _source(server, *streams, bounded=True, **settings):
    builder = RedisStreamSource.builder().set_url(server.url).set_streams(*streams)
    if bounded:
        builder = builder.set_bounded()
    for key, value in settings.items():
        builder = getattr(builder, key)(value)
    return builder.build()


def _readings(count, start=0):
    """(id, fields): sensor s{i % 4} reads i at time 1,000,000 + 1,000 i (the id's ms)."""
    return [
        (f"{1_000_000 + 1_000 * i}-0", {"sensor": f"s{i % 4}", "reading": str(i)})
        for i in range(start, start + count)
    ]


def _window_counts(entries, size_ms=10_000):
    counts = {}
    for entry_id, fields in entries:
        key = (fields["sensor"], int(entry_id.split("-")[0]) // size_ms * size_ms)
        counts[key] = counts.get(key, 0) + 1
    return sorted(f"{sensor}@{start}={n}" for (sensor, start), n in counts.items())


class _CountWindow(ProcessWindowFunction):
    def process(self, key, context, elements):
        yield f"{key}@{context.window().start}={len(list(elements))}"


def _windowed_job(env, source):
    stream = env.from_source(source, WatermarkStrategy.for_monotonous_timestamps(), "redis")
    return (
        stream.key_by(lambda row: row.sensor)
        .window(TumblingEventTimeWindows.of(Time.seconds(10)))
        .process(_CountWindow(), Types.STRING())
    )


@pytest.mark.parametrize("executor", ["spark", "local"])
def test_a_bounded_source_reads_every_stream_with_entry_ids_as_event_time(
    redis_server, spark_env, local_env, executor
):
    first, second, absent = _name("a"), _name("b"), _name("absent")
    entries = _readings(60)
    redis_server.add(first, entries[::2])
    redis_server.add(second, entries[1::2])
    env = spark_env if executor == "spark" else local_env
    source = _source(redis_server, first, second, absent)
    redis_server.add(first, [("9999999999-0", {"sensor": "late", "reading": "0"})])
    out = _windowed_job(env, source).execute_and_collect()
    # the entry added after build() is read: the end ids are fixed when the job starts
    assert sorted(out) == sorted(_window_counts(entries) + ["late@9999990000=1"])


def test_a_timestamp_field_and_a_deserializer(redis_server, local_env):
    stream = _name("fields")
    redis_server.add(stream, [{"n": str(i), "at": str(5_000 * i)} for i in range(6)])
    source = _source(
        redis_server,
        stream,
        set_timestamp_field="at",
        set_deserializer=lambda fields: int(fields["n"]),
    )
    out = (
        local_env.from_source(source, WatermarkStrategy.for_monotonous_timestamps(), "r")
        .key_by(lambda n: "all")
        .window(TumblingEventTimeWindows.of(Time.seconds(10)))
        .reduce(lambda a, b: a + b)
        .execute_and_collect()
    )
    assert sorted(out) == [0 + 1, 2 + 3, 4 + 5]  # windows [0,10s) [10,20s) [20,30s)


def test_a_job_restarted_from_its_checkpoint_reads_everything_exactly_once(
    redis_server, spark, tmp_path
):
    source_stream, target = _name("in"), _name("out")
    entries = _readings(40)
    uid = _name("sink")

    def start():
        env = checkpointed_env(spark, tmp_path / "checkpoint")
        stream = env.from_source(
            _source(redis_server, source_stream, bounded=False),
            WatermarkStrategy.no_watermarks(),
            "redis",
        )
        (
            stream.map(lambda row: {"reading": row.reading.upper(), "sensor": row.sensor})
            .sink_to(RedisSink.stream(redis_server.url, target))
            .uid(uid)
        )
        return env.execute_async("restarted")

    redis_server.add(source_stream, entries[:25])
    client = start()
    wait_until(
        lambda: redis_server.client.xlen(target) >= 25,
        "the first 25 entries written",
        90,
        state=lambda: redis_server.client.xlen(target),
        interval=0.1,
    )
    client.cancel()
    redis_server.add(source_stream, entries[25:])
    client = start()
    try:
        wait_until(
            lambda: redis_server.client.xlen(target) >= 40,
            "all 40 entries written",
            90,
            state=lambda: redis_server.client.xlen(target),
            interval=0.1,
        )
        # a duplicate would come in a micro-batch still to run: the query runs every one
        # there is until a trigger finds nothing new in the source
        wait_until_at_rest(client.query, "the restarted query at rest")
    finally:
        client.cancel()
    assert sorted(redis_server.entries(target), key=lambda f: int(f["reading"])) == [
        {"reading": str(i), "sensor": f"s{i % 4}"} for i in range(40)
    ]


def test_a_replayed_micro_batch_writes_nothing_twice(redis_server):
    target = _name("replayed")
    spec = RedisSink.stream(redis_server.url, target).sink_spec()
    uid = _name("sink")
    for batch, values in ((0, ["a", "b"]), (0, ["a", "b"]), (1, ["c"]), (0, ["a", "b"])):
        writer = spec.batch_writer(uid, "job", batch, 3)
        writer.write(values)
        assert writer.finish() == []  # committed in the task: nothing for the driver
    assert redis_server.entries(target) == [{"value": "a"}, {"value": "b"}, {"value": "c"}]
    assert redis_server.client.get(f"weir:sink:{uid}:job:3") == b"1"


def test_a_stream_sink_trims_to_max_len(redis_server):
    target = _name("trimmed")
    spec = RedisSink.stream(redis_server.url, target, max_len=3, exact_trim=True).sink_spec()
    writer = spec.batch_writer(_name("sink"), "job", 0, 0)
    writer.write(list(range(5)))
    writer.finish()
    assert redis_server.entries(target) == [{"value": "2"}, {"value": "3"}, {"value": "4"}]


def test_a_key_of_another_type_fails_the_batch_and_writes_nothing(redis_server):
    taken, target = _name("string"), _name("stream")
    redis_server.client.set(taken, "x")
    spec = RedisSink.stream(redis_server.url, lambda v: taken if v == "bad" else target)
    writer = spec.sink_spec().batch_writer("typed", "job", 0, 0)
    writer.write(["ok", "bad"])
    with pytest.raises(
        ValueError,
        match=rf"key '{taken}' at 127.0.0.1:\d+/0 is a string, "
        r"not a stream",
    ):
        writer.finish()
    assert redis_server.client.exists(target, "weir:sink:typed:0") == 0


@pytest.mark.parametrize("executor", ["spark", "local"])
def test_hash_and_key_value_sinks_write_their_exact_contents(
    redis_server, spark_env, local_env, executor
):
    stream, prefix = _name("users"), _name("user")
    redis_server.add(
        stream, [{"id": str(i % 3), "name": f"n{i}", "visits": str(i)} for i in range(7)]
    )
    env = spark_env if executor == "spark" else local_env
    rows = env.from_source(
        _source(redis_server, stream), WatermarkStrategy.no_watermarks(), "users"
    )
    rows.sink_to(RedisSink.hash(redis_server.url, lambda row: f"{prefix}:{row.id}"))
    rows.sink_to(
        RedisSink.key_value(
            redis_server.url, lambda row: f"{prefix}:name:{row.id}", lambda row: row.name, ttl=60
        )
    )
    env.execute("hashes and keys")
    client = redis_server.client
    for user, last in (("0", 6), ("1", 4), ("2", 5)):
        assert client.hgetall(f"{prefix}:{user}") == {
            b"id": user.encode(),
            b"name": f"n{last}".encode(),
            b"visits": str(last).encode(),
        }
        assert client.get(f"{prefix}:name:{user}") == f"n{last}".encode()
        assert 0 < client.pttl(f"{prefix}:name:{user}") <= 60_000
    assert len(client.keys(f"{prefix}:*")) == 6


def test_hash_and_key_writes_are_idempotent_under_replay(redis_server):
    key = _name("h")
    spec = RedisSink.hash(redis_server.url, key, lambda v: {v[0]: v[1]}).sink_spec()
    for batch, values in ((0, [("a", 1), ("b", 2)]), (0, [("a", 1), ("b", 2)]), (1, [("a", 3)])):
        writer = spec.batch_writer("h", "job", batch, 0)
        writer.write(values)
        writer.finish()
    assert redis_server.client.hgetall(key) == {b"a": b"3", b"b": b"2"}


def test_starting_at_the_latest_entry_and_at_a_given_id(redis_server, local_env):
    stream = _name("start")
    ids = redis_server.add(stream, [{"v": str(i)} for i in range(4)])

    def read(**settings):
        source = _source(redis_server, stream, **settings)
        return [
            row.v
            for row in local_env.from_source(
                source, WatermarkStrategy.no_watermarks(), "r"
            ).execute_and_collect()
        ]

    assert read() == ["0", "1", "2", "3"]
    assert read(set_starting_ids={stream: ids[1]}) == ["2", "3"]
    assert read(set_starting_position="latest") == []


def test_entries_trimmed_or_deleted_before_they_were_read_fail_the_source(redis_server):
    stream = _name("trim")
    ids = redis_server.add(stream, [{"v": str(i)} for i in range(5)])
    reader = _source(redis_server, stream, bounded=False).create_reader()
    read = reader.latest_offset(reader.initial_offset())
    assert read["next"] == {stream: ids[-1]}
    more = redis_server.add(stream, [{"v": str(i)} for i in range(5, 8)])
    redis_server.client.xtrim(stream, maxlen=2, approximate=False)  # more[0] is lost
    with pytest.raises(
        ValueError,
        match=rf"'{stream}' .*entries after {ids[-1]} \(1 of "
        r"them\) were deleted or trimmed",
    ):
        reader.latest_offset(read)
    redis_server.client.xdel(stream, more[1])
    with pytest.raises(ValueError, match=rf"entries after {ids[-1]} \(up to {more[1]}\)"):
        reader.latest_offset(read)


def test_an_entry_that_cannot_be_read_fails_the_job_naming_stream_and_id(redis_server, local_env):
    from weir.common.job import JobExecutionError
    from weir.runtime.errors import UserFunctionError

    stream = _name("bad")
    ids = redis_server.add(stream, [{"n": "1"}, {"n": "x"}])
    source = _source(redis_server, stream, set_deserializer=lambda f: int(f["n"]))
    local_env.from_source(source, WatermarkStrategy.no_watermarks(), "numbers").print()
    with pytest.raises(
        (JobExecutionError, UserFunctionError),
        match=rf"source 'numbers' failed: .*entry {stream}/{ids[1]} at "
        r".*cannot be read: ValueError.*entry: \{b'n': b'x'\}",
    ):
        local_env.execute("bad entry")


@pytest.mark.parametrize("executor", ["spark", "local"])
def test_entries_that_cannot_be_read_go_to_the_dead_letter_output(
    redis_server, spark_env, local_env, executor
):
    from weir.datastream import OutputTag

    stream = _name("letters")
    ids = redis_server.add(stream, [{"n": "1"}, {"n": "x"}, {"n": "3"}])
    dead = OutputTag("dead", Types.PICKLED_BYTE_ARRAY())
    env = spark_env if executor == "spark" else local_env
    source = _source(
        redis_server, stream, set_deserializer=lambda f: int(f["n"]), set_dead_letter_output=dead
    )
    numbers = env.from_source(source, WatermarkStrategy.no_watermarks(), "numbers")
    letters = numbers.get_side_output(dead).map(
        lambda r: (r.source, r.position, r.reason.split(":")[0], r.record)
    )
    out = sorted(map(str, numbers.map(lambda n: ("ok", n)).union(letters).execute_and_collect()))
    assert out == sorted(
        map(
            str,
            [("ok", 1), ("ok", 3), ("numbers", f"{stream}/{ids[1]}", "ValueError", {b"n": b"x"})],
        )
    )


def test_an_unreachable_server_fails_the_job_with_its_address(local_env):
    from tests.servers.redis import free_port
    from weir.common.job import JobExecutionError

    address = f"127.0.0.1:{free_port()}"
    source = (
        RedisStreamSource.builder()
        .set_url(f"redis://{address}/0")
        .set_streams("s")
        .set_bounded()
        .build()
    )
    local_env.from_source(source, WatermarkStrategy.no_watermarks(), "redis").print()
    with pytest.raises((JobExecutionError, ConnectionError), match=rf"Redis at {address}/0"):
        local_env.execute("unreachable")
    spec = RedisSink.stream(f"redis://{address}/0", "s").sink_spec()
    writer = spec.batch_writer("w", "job", 0, 0)
    writer.write(["v"])
    with pytest.raises(ConnectionError, match=rf"Redis at {address}/0 is unreachable"):
        writer.finish()


def test_a_server_that_never_answers_fails_after_the_urls_timeout(local_env):
    import socket
    from weir.common.job import JobExecutionError

    with socket.socket() as silent:  # accepts connections, never answers
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        address = f"127.0.0.1:{silent.getsockname()[1]}"
        source = (
            RedisStreamSource.builder()
            .set_streams("s")
            .set_bounded()
            .set_url(f"redis://{address}/0?socket_timeout=0.5")
            .build()
        )
        local_env.from_source(source, WatermarkStrategy.no_watermarks(), "redis").print()
        started = time.time()
        with pytest.raises(
            (JobExecutionError, ConnectionError),
            match=rf"Redis at {address}/0 is unreachable or did not answer",
        ):
            local_env.execute("silent")
        assert time.time() - started < 30
