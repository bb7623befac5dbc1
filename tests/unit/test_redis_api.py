"""RedisStreamSource/RedisSink builders, offset planning and entry conversion, without a
server (the server's answers are a dict)."""

import datetime
import pickle
import sys

import pytest

from weir.common.row import Row
from weir.common.time import Duration
from weir.datastream.connectors.redis import RedisSink, RedisStreamSource
from weir.runtime.connectors import redis_clients
from weir.runtime.connectors.redis_sink import HashFields, KeyValues, StreamEntries, marker_key
from weir.runtime.connectors.redis_source import (
    RedisStreamReader,
    StreamEnd,
    _columns,
    full_id,
    parse_id,
)
from weir.runtime.sources import END_SPLIT

URL = "redis://127.0.0.1:1/0"


def _builder(*streams):
    return RedisStreamSource.builder().set_url(URL).set_streams(*(streams or ("s",)))


def test_a_source_needs_a_redis_url_and_streams():
    with pytest.raises(ValueError, match="set_url"):
        RedisStreamSource.builder().set_streams("s").build()
    with pytest.raises(ValueError, match="set_streams"):
        RedisStreamSource.builder().set_url(URL).build()
    with pytest.raises(ValueError, match="expected a Redis URL.*'http://h:1'"):
        RedisStreamSource.builder().set_url("http://h:1")
    with pytest.raises(ValueError, match="stream names"):
        RedisStreamSource.builder().set_streams()


def test_starting_positions_ids_and_the_other_settings():
    with pytest.raises(ValueError, match="'earliest' or 'latest', got 'newest'"):
        _builder().set_starting_position("newest")
    with pytest.raises(ValueError, match="not a Redis stream entry id"):
        _builder().set_starting_ids({"s": "12-x"})
    with pytest.raises(ValueError, match="does not read: t"):
        _builder().set_starting_ids({"t": "1-0"}).build()
    with pytest.raises(TypeError, match="set_deserializer"):
        _builder().set_deserializer("fields")
    with pytest.raises(LookupError):
        _builder().set_encoding("no-such-codec")
    config = (
        _builder("a", "b", "a")
        .set_starting_position("latest")
        .set_starting_ids({"a": "17"})
        .set_timestamp_field("ts")
        .set_encoding(None)
        .set_bounded()
        .build()
        .create_reader()
        .config
    )
    assert config.streams == ["a", "b"] and config.starting == "latest"
    assert config.starting_ids == {"a": "17-0"} and config.bounded
    assert config.timestamp_field == "ts" and config.encoding is None
    unbounded = _builder().build().create_reader()
    assert not unbounded.bounded and unbounded.config.starting == "earliest"


def test_entry_ids():
    assert full_id("5") == "5-0" and full_id("0005-07") == "5-7" and full_id(3) == "3-0"
    assert parse_id("10-2") > parse_id("9-99") > parse_id("9-3")
    for bad in ("", "-1", "1-", "a-1", "1-2-3"):
        with pytest.raises(ValueError):
            full_id(bad)


class _FakeServer(RedisStreamReader):
    """A reader whose server is a dict: {stream: StreamEnd}."""

    def __init__(self, builder, streams):
        super().__init__(builder.build().create_reader().config)
        self.server = streams

    def _stream_ends(self):
        return {s: self.server.get(s, StreamEnd()) for s in self.config.streams}


def _end(last_id, added, first_id="1-0", deleted="0-0", length=None):
    return StreamEnd(last_id, deleted, added, first_id, added if length is None else length)


def test_unbounded_planning_reads_from_the_last_id_to_the_newest():
    reader = _FakeServer(_builder("a", "b"), {"a": _end("5-0", 3)})
    start = reader.initial_offset()
    assert start == {"end": 0, "next": {"a": "0-0", "b": "0-0"}, "added": {"b": 0}}
    first = reader.latest_offset(start)
    assert first == {"end": 0, "next": {"a": "5-0", "b": "0-0"}, "added": {"a": 3, "b": 0}}
    assert reader.splits(start, first) == [(0, "a", "0-0", "5-0")]
    assert reader.latest_offset(first) == first  # nothing new: no micro-batch
    reader.server.update({"a": _end("5-3", 4), "b": _end("2-0", 1)})  # b now exists
    second = reader.latest_offset(first)
    assert reader.splits(first, second) == [(0, "a", "5-0", "5-3"), (1, "b", "0-0", "2-0")]


def test_latest_and_given_starting_ids():
    server = {"a": _end("9-1", 5), "b": _end("4-0", 2)}
    latest = _FakeServer(_builder("a", "b").set_starting_position("latest"), server)
    assert latest.initial_offset()["next"] == {"a": "9-1", "b": "4-0"}
    given = _FakeServer(_builder("a", "b").set_starting_ids({"b": "2"}), server)
    start = given.initial_offset()
    assert start["next"] == {"a": "0-0", "b": "2-0"} and start["added"] == {}
    assert given.splits(start, given.latest_offset(start)) == [
        (0, "a", "0-0", "9-1"),
        (1, "b", "2-0", "4-0"),
    ]


def test_a_bounded_source_stops_at_the_ids_of_its_start():
    reader = _FakeServer(_builder("a", "b").set_bounded(), {"a": _end("7-0", 2)})
    start = reader.initial_offset()
    assert start == {"end": 0, "next": {"a": "0-0", "b": "0-0"}, "stop": {"a": "7-0", "b": "0-0"}}
    reader.server["a"] = _end("8-0", 3)  # added after the start: not read
    end = reader.latest_offset(start)
    assert end == {"end": 1, "next": {"a": "7-0", "b": "0-0"}, "stop": start["stop"]}
    assert reader.splits(start, end) == [(0, "a", "0-0", "7-0"), END_SPLIT]
    assert reader.latest_offset(end) is end


def test_entries_deleted_before_they_were_read_fail_the_planning():
    reader = _FakeServer(_builder("a").set_starting_ids({"a": "3-0"}), {"a": _end("9-0", 4)})
    start = reader.initial_offset()
    reader.server["a"] = _end("9-0", 4, deleted="2-0", length=3)  # read already: fine
    assert reader.latest_offset(start)["next"] == {"a": "9-0"}
    reader.server["a"] = _end("9-0", 4, deleted="5-0", length=3)
    with pytest.raises(
        ValueError,
        match=r"'a' at 127.0.0.1:1/0: entries after 3-0 \(up to "
        r"5-0\) were deleted or trimmed",
    ):
        reader.latest_offset(start)
    earliest = _FakeServer(
        _builder("a"), {"a": _end("9-0", 4, deleted="5-0", first_id="7-0", length=1)}
    )
    assert earliest.latest_offset(earliest.initial_offset())["next"] == {"a": "9-0"}


def test_entries_trimmed_before_they_were_read_fail_the_planning():
    reader = _FakeServer(_builder("a"), {"a": _end("4-0", 4)})
    read = reader.latest_offset(reader.initial_offset())  # 4 entries, up to 4-0
    # 6-0 and 9-0 added, everything read trimmed: nothing lost
    reader.server["a"] = _end("9-0", 6, first_id="6-0", length=2)
    assert reader.latest_offset(read)["next"] == {"a": "9-0"}
    # 5-0, 6-0 and 9-0 added, 5-0 trimmed unread
    reader.server["a"] = _end("9-0", 7, first_id="6-0", length=2)
    with pytest.raises(ValueError, match=r"entries after 4-0 \(1 of them\) were deleted"):
        reader.latest_offset(read)
    reader.server["a"] = _end("9-0", 7, first_id="2-0", length=5)  # not trimmed past 4-0
    assert reader.latest_offset(read)["added"] == {"a": 7}


def test_a_restarted_job_reads_the_streams_of_its_checkpoint():
    reader = _FakeServer(_builder("a", "b"), {})
    with pytest.raises(ValueError, match=r"checkpoint reads \['a'\], the job \['a', 'b'\]"):
        reader.latest_offset({"end": 0, "next": {"a": "1-0"}, "added": {}})


def _page(*entries):
    return [
        (entry_id.encode(), {k.encode(): v.encode() for k, v in fields.items()})
        for entry_id, fields in entries
    ]


def test_entries_become_rows_of_strings_timed_by_their_ids():
    config = _builder().build().create_reader().config
    values, stamps = _columns(
        config, "s", _page(("1000-0", {"k": "a", "v": "1"}), ("2500-3", {"k": "b"}))
    )
    assert values == [Row(k="a", v="1"), Row(k="b")] and stamps == [1000, 2500]
    assert values[0].k == "a"


def test_a_deserializer_a_timestamp_field_and_raw_bytes():
    config = (
        _builder()
        .set_deserializer(lambda f: None if f["v"] == "skip" else int(f["v"]))
        .set_timestamp_field("ts")
        .build()
        .create_reader()
        .config
    )
    values, stamps = _columns(
        config, "s", _page(("1-0", {"v": "7", "ts": "42"}), ("2-0", {"v": "skip", "ts": "43"}))
    )
    assert values == [7] and stamps == [42]
    raw = _builder().set_encoding(None).set_deserializer(dict).build().create_reader().config
    assert _columns(raw, "s", _page(("1-0", {"v": "x"})))[0] == [{"v": b"x"}]


def test_an_entry_that_cannot_be_read_names_its_stream_and_id():
    config = (
        _builder()
        .set_deserializer(lambda f: int(f["v"]))
        .set_timestamp_field("ts")
        .build()
        .create_reader()
        .config
    )
    with pytest.raises(
        ValueError,
        match=r"entry orders/5-1 at 127.0.0.1:1/0 cannot be read: "
        r"ValueError: invalid literal.*entry: \{b'v': b'x'",
    ):
        _columns(
            config, "orders", _page(("5-0", {"v": "1", "ts": "1"}), ("5-1", {"v": "x", "ts": "1"}))
        )
    with pytest.raises(ValueError, match="orders/6-0 .*no timestamp field 'ts'"):
        _columns(config, "orders", _page(("6-0", {"v": "1"})))
    with pytest.raises(ValueError, match="orders/7-0 .*'ts' is not integer milliseconds"):
        _columns(config, "orders", _page(("7-0", {"v": "1", "ts": "soon"})))


# -- sinks --------------------------------------------------------------------------------
def _key_of(record):
    return f"k:{record[0]}"


def test_sink_builders_and_their_specs():
    stream = RedisSink.stream(URL, "out", max_len=100).sink_spec()
    assert stream.executor_side and isinstance(stream.command, StreamEntries)
    assert stream.command.max_len == 100 and not stream.command.exact_trim
    hashed = RedisSink.hash(URL, _key_of).sink_spec()
    assert isinstance(hashed.command, HashFields) and hashed.command.key_type == "hash"
    keyed = RedisSink.key_value(URL, _key_of, ttl=Duration.of_seconds(2)).sink_spec()
    assert isinstance(keyed.command, KeyValues) and keyed.command.ttl_ms == 2000
    assert pickle.loads(pickle.dumps(keyed)).command.key_selector is _key_of
    assert (
        RedisSink.key_value(URL, "k", ttl=datetime.timedelta(milliseconds=5))
        .sink_spec()
        .command.ttl_ms
        == 5
    )
    assert RedisSink.key_value(URL, "k", ttl=1.5).sink_spec().command.ttl_ms == 1500
    with pytest.raises(ValueError, match="ttl must be at least 1 ms"):
        RedisSink.key_value(URL, "k", ttl=0)
    with pytest.raises(TypeError, match="key_selector must be a str or a function"):
        RedisSink.hash(URL, 3)
    with pytest.raises(ValueError, match="max_len must be a positive int"):
        RedisSink.stream(URL, "out", max_len=0)
    with pytest.raises(ValueError, match="expected a Redis URL"):
        RedisSink.stream("127.0.0.1:6379", "out")
    assert marker_key("sink-0", "j1", 3) == "weir:sink:sink-0:j1:3"


def test_records_become_commands_and_bad_records_name_themselves():
    writer = (
        RedisSink.stream(URL, lambda r: f"s-{r['k']}").sink_spec().batch_writer("out", "job", 4, 1)
    )
    writer.write([{"k": "a", "n": 1}, Row(k="b", n=2.5)])
    assert writer.pending == [("s-a", {"k": "a", "n": 1}), ("s-b", {"k": "b", "n": 2.5})]
    assert writer.written == 2
    with pytest.raises(
        ValueError,
        match=r"Redis sink 'out': record \{'k': 'c', 'n': None\} "
        r"cannot be written: TypeError: field 'n' is a "
        r"NoneType",
    ):
        writer.write([{"k": "c", "n": None}])
    plain = RedisSink.stream(URL, "s").sink_spec().batch_writer("out", "job", 0, 0)
    plain.write(["text", 7])
    assert plain.pending == [("s", {"value": "text"}), ("s", {"value": 7})]
    with pytest.raises(ValueError, match="non-empty dict of fields"):
        plain.write([{}])
    keyed = (
        RedisSink.key_value(URL, _key_of, lambda r: r[1])
        .sink_spec()
        .batch_writer("kv", "job", 0, 0)
    )
    keyed.write([("a", 1), ("b", "x")])
    assert keyed.pending == [("k:a", 1), ("k:b", "x")]
    with pytest.raises(ValueError, match="the value is a bool"):
        keyed.write([("c", True)])
    keyed.abort()
    assert keyed.pending == []


def test_without_redis_py_the_connector_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "redis", None)
    with pytest.raises(ImportError, match=r'pip install "weir\[redis\]"'):
        _builder().build()
    with pytest.raises(ImportError, match=r'pip install "weir\[redis\]"'):
        RedisSink.stream(URL, "out")


def test_error_addresses_leave_credentials_out():
    assert redis_clients.address("redis://user:secret@db.example:6380/2") == "db.example:6380/2"
    assert redis_clients.address("redis://h") == "h:6379/0"
    assert redis_clients.address("unix:///tmp/redis.sock") == "unix:/tmp/redis.sock"
