"""The JDBC connector's API without a server: PyFlink's builders, PgJDBC URLs, JDBC
placeholders as psycopg's, and the sink's checks of statements and records."""

import pickle
import subprocess
import sys

import pytest

from weir.common import Row, Types
from weir.datastream.connectors.jdbc import (
    JdbcConnectionOptions,
    JdbcExecutionOptions,
    JdbcSink,
    parse_postgres_url,
)
from weir.runtime.connectors.jdbc_sink import JdbcSinkSpec, psycopg_statement

ROW = Types.ROW_NAMED(["id", "name"], [Types.INT(), Types.STRING()])
URL = "jdbc:postgresql://db.example:6543/shop"


def _options(url=URL, **settings):
    builder = JdbcConnectionOptions.JdbcConnectionOptionsBuilder().with_url(url)
    for name, value in settings.items():
        builder = getattr(builder, f"with_{name}")(value)
    return builder.build()


@pytest.mark.parametrize(
    "sql, statement, placeholders",
    [
        ("INSERT INTO t VALUES (?, ?)", "INSERT INTO t VALUES (%s, %s)", 2),
        ("SELECT '?', 'it''s ?', ?", "SELECT '?', 'it''s ?', %s", 1),
        ('UPDATE "we?rd""?" SET a = ?', 'UPDATE "we?rd""?" SET a = %s', 1),
        (r"SELECT E'\'?', ?", r"SELECT E'\'?', %s", 1),
        ("SELECT $$ ? $$, $tag$ '?' $tag$, ?", "SELECT $$ ? $$, $tag$ '?' $tag$, %s", 1),
        ("SELECT ? -- why?\n, ?", "SELECT %s -- why?\n, %s", 2),
        ("SELECT /* ? /* ? */ ? */ ?", "SELECT /* ? /* ? */ ? */ %s", 1),
        ("SELECT 100 % ?, '5%', a$b$ ?", "SELECT 100 %% %s, '5%%', a$b$ %s", 2),
        ("SELECT data ?? 'k', data ??| ?", "SELECT data ? 'k', data ?| %s", 1),
        ("PREPARE p AS SELECT $1 + ?", "PREPARE p AS SELECT $1 + %s", 1),
    ],
)
def test_jdbc_placeholders_become_psycopg_placeholders_outside_quotes(sql, statement, placeholders):
    assert psycopg_statement(sql) == (statement, placeholders)


@pytest.mark.parametrize(
    "sql, what",
    [
        ("SELECT 'open ?", "'"),
        ('SELECT "open', '"'),
        ("SELECT /* open", "/\\*"),
        ("SELECT $x$ open", r"\$x\$"),
    ],
)
def test_an_unterminated_quote_or_comment_is_refused(sql, what):
    with pytest.raises(ValueError, match=f"unterminated {what}"):
        psycopg_statement(sql)


def test_a_pgjdbc_url_gives_psycopgs_settings_and_an_address():
    settings, address = parse_postgres_url(
        "jdbc:postgresql://h1:5433,[::1]/my%20db?user=ann&password=a%26b&sslmode=require"
        "&ApplicationName=etl&connectTimeout=7&currentSchema=sales,public"
    )
    assert settings == {
        "host": "h1,::1",
        "port": "5433,5432",
        "dbname": "my db",
        "user": "ann",
        "password": "a&b",
        "sslmode": "require",
        "application_name": "etl",
        "connect_timeout": "7",
        "options": "-c search_path=sales,public",
    }
    assert address == "h1:5433,::1:5432/my db"
    assert parse_postgres_url("jdbc:postgresql:shop") == (
        {"host": "localhost", "port": "5432", "dbname": "shop"},
        "localhost:5432/shop",
    )


@pytest.mark.parametrize(
    "url, error",
    [
        ("jdbc:mysql://h/db", "writes PostgreSQL only"),
        ("postgresql://h/db", "writes PostgreSQL only"),
        ("jdbc:postgresql://h:port/db", "port that is not a number"),
        ("jdbc:postgresql://h/db?reWriteBatchedInserts=true", "'reWriteBatchedInserts', which"),
    ],
)
def test_urls_weir_cannot_read_are_refused_when_built(url, error):
    with pytest.raises(ValueError, match=error):
        _options(url)


def test_connection_options_keep_pyflinks_getters_and_the_urls_user_wins():
    options = _options(
        f"{URL}?user=url_user",
        driver_name="org.postgresql.Driver",
        user_name="builder_user",
        password="secret",
        connection_check_timeout_seconds=9,
    )
    assert (
        options.get_db_url(),
        options.get_driver_name(),
        options.get_user_name(),
        options.get_password(),
        options.get_connection_check_timeout_seconds(),
    ) == (f"{URL}?user=url_user", "org.postgresql.Driver", "builder_user", "secret", 9)
    settings, address = options._psycopg_settings()
    assert settings == {
        "host": "db.example",
        "port": "6543",
        "dbname": "shop",
        "user": "url_user",
        "password": "secret",
        "connect_timeout": 9,
    }
    assert address == "db.example:6543/shop"
    assert _options()._psycopg_settings()[0]["connect_timeout"] == 60  # Flink's default


def test_other_drivers_a_missing_url_and_bad_timeouts_are_refused():
    builder = JdbcConnectionOptions.JdbcConnectionOptionsBuilder()
    with pytest.raises(ValueError, match="driver 'com.mysql.cj.jdbc.Driver' is not supported"):
        builder.with_driver_name("com.mysql.cj.jdbc.Driver")
    with pytest.raises(ValueError, match="needs with_url"):
        builder.build()
    with pytest.raises(ValueError, match="must be positive"):
        builder.with_connection_check_timeout_seconds(0)


def test_execution_options_have_flinks_defaults_and_builder():
    defaults = JdbcExecutionOptions.defaults()
    assert (
        defaults.get_batch_interval_ms(),
        defaults.get_batch_size(),
        defaults.get_max_retries(),
    ) == (0, 5000, 3)
    built = (
        JdbcExecutionOptions.builder()
        .with_batch_interval_ms(1000)
        .with_batch_size(200)
        .with_max_retries(0)
        .build()
    )
    assert (built.get_batch_interval_ms(), built.get_batch_size(), built.get_max_retries()) == (
        1000,
        200,
        0,
    )
    for method, value in (
        ("with_batch_size", 0),
        ("with_max_retries", -1),
        ("with_batch_interval_ms", -5),
        ("with_batch_size", "10"),
    ):
        with pytest.raises(ValueError, match="must be an int"):
            getattr(JdbcExecutionOptions.builder(), method)(value)


def test_the_sink_is_a_picklable_spec_the_tasks_write():
    sink = JdbcSink.sink(
        "INSERT INTO people (id, name) VALUES (?, ?)",
        ROW,
        _options(),
        JdbcExecutionOptions.builder().with_batch_size(10).build(),
    )
    spec = pickle.loads(pickle.dumps(sink.sink_spec()))
    assert isinstance(spec, JdbcSinkSpec) and spec.executor_side
    assert (spec.statement, spec.batch_size, spec.max_retries) == (
        "INSERT INTO people (id, name) VALUES (%s, %s)",
        10,
        3,
    )
    assert spec.connection["host"] == "db.example" and spec.address == "db.example:6543/shop"


def test_sink_to_accepts_the_sink():
    from weir.datastream import StreamExecutionEnvironment

    env = StreamExecutionEnvironment.get_execution_environment().set_executor("local")
    sink = JdbcSink.sink("INSERT INTO people VALUES (?, ?)", ROW, _options())
    added = env.from_collection([(1, "a")], ROW).sink_to(sink)
    assert type(added).__name__ == "DataStreamSink" and added._node.kind == "sink"
    spec = added._node.params["sink"]
    assert type(spec).__name__ == "JdbcSinkSpec" and spec.statement == sink.sink_spec().statement


def test_a_statement_and_type_info_that_disagree_are_refused_at_once():
    with pytest.raises(
        ValueError,
        match=r"has 1 placeholders \('\?'\) but its type_info .* "
        "has 2 fields",
    ):
        JdbcSink.sink("INSERT INTO people (name) VALUES (?)", ROW, _options())
    with pytest.raises(TypeError, match="expects a RowTypeInfo"):
        JdbcSink.sink("INSERT INTO people VALUES (?)", Types.STRING(), _options())
    with pytest.raises(TypeError, match="expects JdbcConnectionOptions"):
        JdbcSink.sink("INSERT INTO people VALUES (?, ?)", ROW, URL)


def test_records_become_parameters_in_field_order_or_name_what_does_not_fit():
    spec = JdbcSink.sink("INSERT INTO people VALUES (?, ?)", ROW, _options()).sink_spec()
    assert spec.parameters("people", Row(id=1, name="ann")) == (1, "ann")
    assert spec.parameters("people", (2, None)) == (2, None)
    assert spec.parameters("people", Row(3, "cy")) == (3, "cy")
    with pytest.raises(
        ValueError,
        match=r"JDBC sink 'people': the record \(1, 'a', 'extra'\) "
        "does not fit the statement",
    ):
        spec.parameters("people", (1, "a", "extra"))
    with pytest.raises(ValueError, match=r"JDBC sink 'people': the record 'ann' does not fit"):
        spec.parameters("people", "ann")
    with pytest.raises(
        ValueError,
        match=r"the record \('1', 'ann'\) does not fit the "
        r"statement's types: field 'id' \(path row.id\): "
        "expected INT, got str '1'",
    ):
        spec.parameters("people", ("1", "ann"))


def test_psycopg_is_imported_only_to_write_and_its_absence_says_what_to_install(monkeypatch):
    code = (
        "import sys, weir.datastream.connectors.jdbc, weir.runtime.connectors.jdbc_sink;"
        "print('psycopg' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "False"
    from weir.runtime.connectors import postgres_clients

    monkeypatch.setitem(sys.modules, "psycopg", None)
    with pytest.raises(ImportError, match=r'pip install "weir\[postgres\]"'):
        postgres_clients.psycopg()
