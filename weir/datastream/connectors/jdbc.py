"""PyFlink's JDBC connector (`pyflink.datastream.connectors.jdbc`) for PostgreSQL: JdbcSink
with PyFlink's options builders, written through psycopg 3 (`pip install "weir[postgres]"`)
by the tasks that produce the records.

Each task's rows of a micro-batch are written in one transaction that also records the
batch as written (weir_sink_commits), so a replayed micro-batch writes nothing twice:
appends are exactly-once, and upserts (`INSERT ... ON CONFLICT DO UPDATE`) are
idempotent anyway. The statement takes JDBC's `?` placeholders, filled in order by the
fields of each record (a Row or tuple of `type_info`'s fields)."""

from typing import Optional
from urllib.parse import parse_qsl, unquote

from weir.common.typeinfo import RowTypeInfo, TupleTypeInfo
from weir.runtime.connectors.jdbc_sink import JdbcSinkSpec

POSTGRES_DRIVER = "org.postgresql.Driver"
URL_PREFIX = "jdbc:postgresql:"
DEFAULT_PORT = 5432
# PgJDBC's URL parameters weir understands, as libpq's connection settings
URL_PARAMETERS = {
    "user": "user",
    "password": "password",
    "sslmode": "sslmode",
    "sslrootcert": "sslrootcert",
    "sslcert": "sslcert",
    "sslkey": "sslkey",
    "ApplicationName": "application_name",
    "connectTimeout": "connect_timeout",
    "options": "options",
}


class JdbcSink:
    """Writes a stream's records with a SQL statement (insert, update, upsert); build one
    with JdbcSink.sink(...) and write a stream with stream.sink_to(sink) (or add_sink).
    Appends are exactly-once: see weir.runtime.connectors.jdbc_sink."""

    def __init__(self, spec: JdbcSinkSpec):
        self._spec = spec

    @staticmethod
    def sink(
        sql: str,
        type_info: RowTypeInfo,
        jdbc_connection_options: "JdbcConnectionOptions",
        jdbc_execution_options: Optional["JdbcExecutionOptions"] = None,
    ) -> "JdbcSink":
        """A sink running `sql` once per record; its `?` placeholders take the record's
        fields in order, typed by `type_info` (Types.ROW or Types.ROW_NAMED)."""
        if not isinstance(type_info, (RowTypeInfo, TupleTypeInfo)):
            raise TypeError(
                "JdbcSink.sink expects a RowTypeInfo (Types.ROW_NAMED(...) or "
                f"Types.ROW(...)) as type_info, got {type_info!r}"
            )
        if not isinstance(jdbc_connection_options, JdbcConnectionOptions):
            raise TypeError(
                "JdbcSink.sink expects JdbcConnectionOptions (JdbcConnectionOptions"
                ".JdbcConnectionOptionsBuilder()...build()), got "
                f"{type(jdbc_connection_options).__name__}"
            )
        execution = jdbc_execution_options or JdbcExecutionOptions.defaults()
        connection, address = jdbc_connection_options._psycopg_settings()
        return JdbcSink(
            JdbcSinkSpec(
                sql,
                type_info,
                connection,
                address,
                execution.get_batch_size(),
                execution.get_max_retries(),
            )
        )

    def sink_spec(self) -> JdbcSinkSpec:
        return self._spec


class JdbcConnectionOptions:
    """Where to connect: a `jdbc:postgresql://host:port/database` URL (PgJDBC's form; its
    parameters user, password, sslmode, sslrootcert, sslcert, sslkey, ApplicationName,
    connectTimeout, options and currentSchema are understood), a user and a password."""

    def __init__(
        self,
        url: str,
        driver_name: Optional[str],
        user_name: Optional[str],
        password: Optional[str],
        connection_check_timeout_seconds: int,
    ):
        self._url = url
        self._driver_name = driver_name
        self._user_name = user_name
        self._password = password
        self._timeout = connection_check_timeout_seconds
        self._psycopg_settings()  # a URL weir cannot read fails here, not in a task

    def get_db_url(self) -> str:
        return self._url

    def get_driver_name(self) -> Optional[str]:
        return self._driver_name

    def get_user_name(self) -> Optional[str]:
        return self._user_name

    def get_password(self) -> Optional[str]:
        return self._password

    def get_connection_check_timeout_seconds(self) -> int:
        return self._timeout

    def _psycopg_settings(self):
        """(psycopg's connection settings, "host:port/database" for errors). The URL's
        user and password win over the builder's, as with PgJDBC; the connection check
        timeout bounds connecting (libpq's connect_timeout) unless the URL sets it."""
        settings, address = parse_postgres_url(self._url)
        for name, value in (("user", self._user_name), ("password", self._password)):
            if value is not None:
                settings.setdefault(name, value)
        settings.setdefault("connect_timeout", self._timeout)
        return settings, address

    class JdbcConnectionOptionsBuilder:
        """Builder for JdbcConnectionOptions."""

        def __init__(self):
            self._url = self._driver_name = self._user_name = self._password = None
            self._timeout = 60  # Flink's default

        def with_url(self, url: str) -> "JdbcConnectionOptions.JdbcConnectionOptionsBuilder":
            self._url = url
            return self

        def with_driver_name(
            self, driver_name: str
        ) -> "JdbcConnectionOptions.JdbcConnectionOptionsBuilder":
            if driver_name != POSTGRES_DRIVER:
                raise ValueError(
                    f"weir's JdbcSink writes PostgreSQL (through psycopg): the "
                    f"driver {driver_name!r} is not supported; use "
                    f"{POSTGRES_DRIVER!r} or leave the driver name out"
                )
            self._driver_name = driver_name
            return self

        def with_user_name(
            self, user_name: str
        ) -> "JdbcConnectionOptions.JdbcConnectionOptionsBuilder":
            self._user_name = user_name
            return self

        def with_password(
            self, password: str
        ) -> "JdbcConnectionOptions.JdbcConnectionOptionsBuilder":
            self._password = password
            return self

        def with_connection_check_timeout_seconds(
            self, connection_check_timeout_seconds: int
        ) -> "JdbcConnectionOptions.JdbcConnectionOptionsBuilder":
            """How long connecting may take, in seconds (libpq waits at least 2)."""
            if int(connection_check_timeout_seconds) <= 0:
                raise ValueError(
                    "the connection check timeout must be positive, got "
                    f"{connection_check_timeout_seconds!r}"
                )
            self._timeout = int(connection_check_timeout_seconds)
            return self

        def build(self) -> "JdbcConnectionOptions":
            if not self._url:
                raise ValueError("JdbcConnectionOptions needs with_url(...)")
            return JdbcConnectionOptions(
                self._url, self._driver_name, self._user_name, self._password, self._timeout
            )


class JdbcExecutionOptions:
    """How the sink writes: statements per round trip (batch size) and how often a
    failing connection is tried again (max retries).

    weir flushes once per micro-batch (each task commits its rows when the batch ends),
    so the batch interval is accepted but there is nothing for it to time; the batch
    size is how many rows go to the server in one `executemany`, and a batch that grows
    beyond it is sent in chunks before the commit."""

    def __init__(self, batch_interval_ms: int, batch_size: int, max_retries: int):
        self._batch_interval_ms = batch_interval_ms
        self._batch_size = batch_size
        self._max_retries = max_retries

    def get_batch_interval_ms(self) -> int:
        return self._batch_interval_ms

    def get_batch_size(self) -> int:
        return self._batch_size

    def get_max_retries(self) -> int:
        return self._max_retries

    @staticmethod
    def defaults() -> "JdbcExecutionOptions":
        return JdbcExecutionOptions.builder().build()

    @staticmethod
    def builder() -> "JdbcExecutionOptions.Builder":
        return JdbcExecutionOptions.Builder()

    class Builder:
        """Builder for JdbcExecutionOptions (Flink's defaults: 0 ms, 5000 rows, 3 retries)."""

        def __init__(self):
            self._interval_ms, self._size, self._retries = 0, 5000, 3

        def with_batch_size(self, size: int) -> "JdbcExecutionOptions.Builder":
            self._size = _at_least(1, size, "batch size")
            return self

        def with_batch_interval_ms(self, interval_ms: int) -> "JdbcExecutionOptions.Builder":
            self._interval_ms = _at_least(0, interval_ms, "batch interval")
            return self

        def with_max_retries(self, max_retries: int) -> "JdbcExecutionOptions.Builder":
            self._retries = _at_least(0, max_retries, "max retries")
            return self

        def build(self) -> "JdbcExecutionOptions":
            return JdbcExecutionOptions(self._interval_ms, self._size, self._retries)


def _at_least(least: int, value, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < least:
        raise ValueError(f"the {what} must be an int >= {least}, got {value!r}")
    return value


# -- PgJDBC URLs ---------------------------------------------------------------------------


def parse_postgres_url(url: str):
    """(psycopg's connection settings, "host:port/database") of a PgJDBC URL:
    jdbc:postgresql://host[:port][,host2[:port2]...]/[database][?parameters], or
    jdbc:postgresql:database (on localhost:5432)."""
    if not isinstance(url, str) or not url.startswith(URL_PREFIX):
        raise ValueError(
            "weir's JdbcSink writes PostgreSQL only: expected a URL "
            f"'jdbc:postgresql://host:port/database', got {url!r}"
        )
    rest, _, query = url[len(URL_PREFIX) :].partition("?")
    if rest.startswith("//"):
        hosts, _, database = rest[2:].partition("/")
    else:
        hosts, database = "", rest.lstrip("/")
    servers = (
        [_host_and_port(url, host) for host in hosts.split(",")]
        if hosts
        else [("localhost", DEFAULT_PORT)]
    )
    settings = {
        "host": ",".join(host for host, _ in servers),
        "port": ",".join(str(port) for _, port in servers),
    }
    if database:
        settings["dbname"] = unquote(database)
    settings.update(_url_parameters(url, query))
    address = ",".join(f"{host}:{port}" for host, port in servers) + f"/{unquote(database)}"
    return settings, address


def _host_and_port(url: str, text: str):
    if text.startswith("["):  # an IPv6 address: [::1]:5432
        host, _, port = text[1:].partition("]")
        port = port[1:] if port.startswith(":") else port
    else:
        host, _, port = text.partition(":")
    if port and not port.isdigit():
        raise ValueError(f"the JDBC URL {url!r} has a port that is not a number: {port!r}")
    return host or "localhost", int(port) if port else DEFAULT_PORT


def _url_parameters(url: str, query: str) -> dict:
    settings, schemas = {}, None
    for name, value in parse_qsl(query, keep_blank_values=True):
        if name == "currentSchema":
            schemas = value
        elif name in URL_PARAMETERS:
            settings[URL_PARAMETERS[name]] = value
        else:
            raise ValueError(
                f"the JDBC URL {url!r} has the parameter {name!r}, which weir's "
                f"JdbcSink does not understand (it does: "
                f"{', '.join(sorted([*URL_PARAMETERS, 'currentSchema']))})"
            )
    if schemas is not None:
        search_path = "-c search_path=" + schemas.replace(" ", "\\ ")  # libpq's escape
        settings["options"] = f"{settings.get('options', '')} {search_path}".strip()
    return settings
