"""JdbcSink against a real PostgreSQL (a private cluster), on Spark and on the in-process
executor: appends, upserts, exactly-once under replay, and its errors."""

import glob
import os
import threading
import time

import pytest

from weir.common import Types, WatermarkStrategy
from weir.common.job import JobExecutionError
from weir.datastream import StreamExecutionEnvironment
from weir.datastream.connectors import DataGeneratorSource
from weir.datastream.connectors.jdbc import JdbcConnectionOptions, JdbcExecutionOptions, JdbcSink
from tests.e2e.shared import RunningCount

pytestmark = pytest.mark.spark

BOOK = Types.ROW_NAMED(["id", "title", "price"], [Types.INT(), Types.STRING(), Types.DOUBLE()])
BOOKS = [
    (1, "Streaming Systems", 39.5),
    (2, "O'Reilly's 100% ?", None),
    (3, "Stream Processing with Apache Flink", 44.0),
    (4, "Designing Data", 31.25),
    (5, "Kafka: The Definitive Guide", 29.0),
]
INSERT_BOOK = "INSERT INTO books (id, title, price, tag) VALUES (?, ?, ?, 'what?%')"


@pytest.fixture
def database(postgres_server):
    """A fresh database of the session's cluster."""
    return postgres_server.create_database()


def _sink(url, sql, type_info, batch_size=5000, max_retries=3, user="postgres"):
    connection = (
        JdbcConnectionOptions.JdbcConnectionOptionsBuilder()
        .with_url(url)
        .with_driver_name("org.postgresql.Driver")
        .with_user_name(user)
        .with_connection_check_timeout_seconds(5)
        .build()
    )
    execution = (
        JdbcExecutionOptions.builder()
        .with_batch_size(batch_size)
        .with_batch_interval_ms(200)
        .with_max_retries(max_retries)
        .build()
    )
    return JdbcSink.sink(sql, type_info, connection, execution)


def _books_table(database):
    database.execute(
        "CREATE TABLE books (id int PRIMARY KEY, title text, price double precision, tag text)"
    )


@pytest.mark.parametrize("executor", ["spark", "local"])
def test_a_bounded_job_writes_every_row_once(database, spark_env, local_env, executor):
    _books_table(database)
    env = spark_env if executor == "spark" else local_env
    env.from_collection(BOOKS, BOOK).sink_to(
        _sink(database.jdbc_url, INSERT_BOOK, BOOK, batch_size=2)
    ).uid("books")
    result = env.execute("books")
    assert database.query("SELECT id, title, price, tag FROM books ORDER BY id") == [
        (*book, "what?%") for book in BOOKS
    ]
    assert database.query("SELECT DISTINCT split_part(sink, '/', 1) FROM weir_sink_commits") == [
        ("books",)
    ]  # the markers go by the sink's uid
    if executor == "spark":  # written by the tasks, which counted them
        assert [n for name, n in result.get_metrics().items() if name.endswith("numRecordsIn")] == [
            len(BOOKS)
        ]


def test_an_upsert_job_keeps_each_keys_last_value(database, any_env):
    database.execute("CREATE TABLE counts (word text PRIMARY KEY, n bigint)")
    words = "to be or not to be that is the question to be".split()
    count = Types.ROW_NAMED(["word", "n"], [Types.STRING(), Types.LONG()])
    upsert = (
        "INSERT INTO counts (word, n) VALUES (?, ?) ON CONFLICT (word) DO UPDATE SET n = EXCLUDED.n"
    )
    (
        any_env.from_collection(words, Types.STRING())
        .map(lambda word: (word, 1), Types.TUPLE([Types.STRING(), Types.LONG()]))
        .key_by(lambda pair: pair[0])
        .reduce(lambda a, b: (a[0], a[1] + b[1]))
        .sink_to(_sink(database.jdbc_url, upsert, count, batch_size=3))
    )
    any_env.execute("word counts")
    expected = sorted((word, words.count(word)) for word in set(words))
    assert database.query("SELECT word, n FROM counts ORDER BY word") == expected


def _letters_table(database):
    database.execute("CREATE TABLE letters (letter text)")
    return _sink(
        database.jdbc_url,
        "INSERT INTO letters VALUES (?)",
        Types.ROW([Types.STRING()]),
        batch_size=1,
    ).sink_spec()


def _letters(database):
    return sorted(row[0] for row in database.query("SELECT letter FROM letters"))


def test_a_replayed_micro_batch_writes_nothing_twice(database):
    spec = _letters_table(database)
    for batch, values in (
        (0, ["a", "b"]),
        (0, ["a", "b"]),
        (1, ["c"]),
        (0, ["a", "b"]),
        (1, ["c"]),
    ):
        writer = spec.batch_writer("sink", "job", batch, 3)
        writer.write([(value,) for value in values])
        writer.finish()
    aborted = spec.batch_writer("sink", "job", 2, 3)
    aborted.write([("x",), ("y",)])  # executed (batch size 1), not committed
    aborted.abort()
    assert _letters(database) == ["a", "b", "c"]
    retried = spec.batch_writer("sink", "job", 2, 3)
    retried.write([("x",), ("y",)])
    retried.finish()
    assert _letters(database) == ["a", "b", "c", "x", "y"]
    other_task = spec.batch_writer("sink", "job", 0, 4)  # markers are per task
    other_task.write([("z",)])
    other_task.finish()
    assert _letters(database) == ["a", "b", "c", "x", "y", "z"]
    assert database.query("SELECT task, batch FROM weir_sink_commits ORDER BY task") == [
        (3, 2),
        (4, 0),
    ]


def test_a_connection_lost_mid_batch_redoes_the_whole_batch_once(database):
    spec = _letters_table(database)
    writer = spec.batch_writer("sink", "job", 0, 0)
    writer.write([("a",), ("b",)])  # executed (batch size 1) in the open transaction
    database.execute(f"SELECT pg_terminate_backend({writer.connection.info.backend_pid})")
    writer.write([("c",)])  # fails, then a new connection runs a, b and c again
    writer.finish()
    assert _letters(database) == ["a", "b", "c"]


def test_a_statement_the_server_refuses_fails_naming_the_statement(database):
    spec = _sink(
        database.jdbc_url, "INSERT INTO missing VALUES (?)", Types.ROW([Types.STRING()])
    ).sink_spec()
    writer = spec.batch_writer("sink", "job", 0, 0)
    writer.write([("a",)])
    address = rf"127.0.0.1:\d+/{database.name}"
    with pytest.raises(
        RuntimeError,
        match=rf"JDBC sink 'sink' \({address}\): running "
        r"'INSERT INTO missing VALUES \(\?\)' failed: "
        r"UndefinedTable: relation \"missing\"",
    ):
        writer.finish()
    writer.abort()


def test_two_attempts_of_one_task_at_once_write_its_rows_once(database):
    """A task retried while its first attempt still runs (speculation, a lost executor):
    the second waits on the first's marker, then finds its batch committed."""
    spec = _letters_table(database)
    first = spec.batch_writer("sink", "job", 0, 0)
    first.write([("a",), ("b",)])  # executed: the marker is locked until first commits
    second_done = threading.Event()

    def second_attempt():
        second = spec.batch_writer("sink", "job", 0, 0)
        second.write([("a",), ("b",)])
        second.finish()
        second_done.set()

    thread = threading.Thread(target=second_attempt)
    thread.start()
    assert not second_done.wait(1.0)  # waits for the first attempt's transaction
    first.finish()
    thread.join(30)
    assert second_done.is_set()
    assert _letters(database) == ["a", "b"]


def _counts_job(spark, checkpoint, url, events):
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_spark_session(spark).set_parallelism(2)
    env.enable_checkpointing(200)
    env.get_checkpoint_config().set_checkpoint_storage_dir(str(checkpoint))
    source = DataGeneratorSource(
        lambda i: (f"k{i % 3}", i * 10), count=events, max_records_per_batch=10
    )
    strategy = WatermarkStrategy.for_monotonous_timestamps().with_timestamp_assigner(
        lambda event, ts: event[1]
    )
    row = Types.ROW_NAMED(["key", "ts", "n"], [Types.STRING(), Types.INT(), Types.INT()])
    (
        env.from_source(source, strategy, "events")
        .key_by(lambda event: event[0])
        .process(RunningCount(), Types.TUPLE([Types.STRING(), Types.INT(), Types.INT()]))
        .uid("running-count")
        .sink_to(_sink(url, "INSERT INTO counts (key, ts, n) VALUES (?, ?, ?)", row))
    )
    return env


def test_a_job_that_replays_its_last_micro_batch_writes_nothing_twice(database, spark, tmp_path):
    """A crash after the tasks committed a batch but before Spark did: on restart Spark
    runs the batch again, and the sink's markers drop its rows."""
    database.execute("CREATE TABLE counts (key text, ts int, n int)")
    events, checkpoint = 45, tmp_path / "checkpoint"
    _counts_job(spark, checkpoint, database.jdbc_url, events).execute("counts")
    expected = sorted(
        [(f"k{i % 3}", i * 10, i // 3 + 1) for i in range(events)]
        + [(f"k{k}", -1, events // 3) for k in range(3)]
    )
    query = "SELECT key, ts, n FROM counts ORDER BY key, ts"
    assert database.query(query) == expected
    commits = sorted(
        glob.glob(str(checkpoint / "commits" / "[0-9]*")),
        key=lambda path: int(os.path.basename(path)),
    )
    assert len(commits) > 3
    os.remove(commits[-1])  # the crash: Spark did not record its last batch
    replayed = _counts_job(spark, checkpoint, database.jdbc_url, events).execute("again")
    assert database.query(query) == expected
    assert replayed.batches >= 1  # the batch ran again
    batches = database.query("SELECT DISTINCT batch FROM weir_sink_commits")
    assert max(b for (b,) in batches) == int(os.path.basename(commits[-1]))


@pytest.mark.parametrize("executor", ["spark", "local"])
def test_a_job_started_afresh_writes_again(database, spark_env, local_env, executor):
    """Markers belong to a job's checkpoint: the same job run again from scratch (a new
    checkpoint) is no replay of the first run, and writes its rows again."""
    _books_table(database)
    database.execute("ALTER TABLE books DROP CONSTRAINT books_pkey")
    env = spark_env if executor == "spark" else local_env
    for run in range(2):
        env.from_collection(BOOKS[:2], BOOK).add_sink(
            _sink(database.jdbc_url, INSERT_BOOK, BOOK)
        ).uid("books")
        env.execute(f"books-{run}")
    assert database.query("SELECT id, count(*) FROM books GROUP BY id ORDER BY id") == [
        (1, 2),
        (2, 2),
    ]


@pytest.mark.parametrize("executor", ["spark", "local"])
def test_an_unreachable_server_fails_the_job_with_its_address(spark_env, local_env, executor):
    from tests.servers.kafka import free_port

    address = f"127.0.0.1:{free_port()}/shop"
    env = spark_env if executor == "spark" else local_env
    env.from_collection(BOOKS, BOOK).sink_to(
        _sink(f"jdbc:postgresql://{address}", INSERT_BOOK, BOOK, max_retries=2)
    )
    started = time.time()
    with pytest.raises(
        (JobExecutionError, ConnectionError),
        match=rf"could not write to PostgreSQL at {address} \(3 attempts\)",
    ):
        env.execute("unreachable")
    assert time.time() - started < 60


class _Point:
    def __repr__(self):
        return "Point(1, 2)"


def test_a_row_psycopg_cannot_adapt_fails_the_job_naming_the_row(database, local_env):
    _books_table(database)
    anything = Types.ROW_NAMED(
        ["id", "title", "price"], [Types.INT(), Types.PICKLED_BYTE_ARRAY(), Types.DOUBLE()]
    )
    local_env.from_collection([(1, "fine", 1.0), (2, _Point(), 2.0)]).sink_to(
        _sink(database.jdbc_url, INSERT_BOOK, anything)
    )
    with pytest.raises(
        (JobExecutionError, ValueError),
        match=r"the row \(2, Point\(1, 2\), 2\.0\) cannot be written .*"
        r"cannot adapt type '_Point'",
    ):
        local_env.execute("unadaptable")
    assert database.query("SELECT id FROM books") == []  # the batch's transaction rolled back


def test_a_value_the_server_refuses_and_a_row_of_the_wrong_arity_name_the_row(database, local_env):
    _books_table(database)
    text_ids = Types.ROW_NAMED(
        ["id", "title", "price"], [Types.STRING(), Types.STRING(), Types.DOUBLE()]
    )
    local_env.from_collection([("1", "one", 1.0), ("two", "two", 2.0)]).sink_to(
        _sink(database.jdbc_url, INSERT_BOOK, text_ids)
    )
    with pytest.raises(
        (JobExecutionError, ValueError),
        match=r"the row \('two', 'two', 2\.0\) cannot be written .*"
        r"invalid input syntax for type integer",
    ):
        local_env.execute("refused")
    env = StreamExecutionEnvironment.get_execution_environment().set_executor("local")
    env.from_collection([(1, "one")]).sink_to(_sink(database.jdbc_url, INSERT_BOOK, BOOK))
    with pytest.raises(
        (JobExecutionError, ValueError), match=r"the record \(1, 'one'\) does not fit the statement"
    ):
        env.execute("arity")
