"""Flink's `jdbc` table connector for PostgreSQL: a bounded scan source (read once, whole
or in ranges of a column: weir.runtime.connectors.jdbc_source) and a sink (written
through psycopg 3 by weir's JdbcSink, exactly once: weir.runtime.connectors.jdbc_sink).

A table with a PRIMARY KEY takes a changelog, written by that key (upserts and deletes,
weir.runtime.connectors.jdbc_changelog); a table without one takes inserts only. The
statements are Flink's PostgreSQL dialect's: names as written (PostgreSQL folds unquoted
names to lower case), `INSERT ... ON CONFLICT (key) DO UPDATE SET c = EXCLUDED.c`. Rows
are shuffled by the key first, so each key's changes are written by one task, in order.
"""

import operator

from weir.common.restart_strategy import parse_duration_ms
from weir.common.typeinfo import Types
from weir.datastream.functions import KeyedProcessFunction
from weir.table.changelog import INSERT
from weir.table.connectors import Connector
from weir.table.planner import KeyOf

DEFAULT_FLUSH_ROWS = 100  # Flink's sink.buffer-flush.max-rows
DEFAULT_RETRIES = 3  # Flink's sink.max-retries
_COMMON_OPTIONS = {
    "url",
    "table-name",
    "driver",
    "username",
    "password",
    "connection.max-retry-timeout",
}
_SINK_OPTIONS = _COMMON_OPTIONS | {
    "sink.buffer-flush.max-rows",
    "sink.buffer-flush.interval",
    "sink.max-retries",
    "sink.parallelism",
}
_PARTITIONS = (
    "scan.partition.column",
    "scan.partition.lower-bound",
    "scan.partition.upper-bound",
    "scan.partition.num",
)
_LOOKUP_OPTIONS = {
    "lookup.cache",
    "lookup.partial-cache.max-rows",
    "lookup.partial-cache.expire-after-write",
    "lookup.partial-cache.expire-after-access",
    "lookup.partial-cache.cache-missing-key",
    "lookup.max-retries",
    "lookup.cache.max-rows",
    "lookup.cache.ttl",
}
_SOURCE_OPTIONS = (
    _COMMON_OPTIONS | set(_PARTITIONS) | _LOOKUP_OPTIONS | {"scan.fetch-size", "scan.auto-commit"}
)


class JdbcConnector(Connector):
    name = "jdbc"

    @property  # (Connector's class attribute: a property of the options here)
    def accepts_changelog(self):  # type: ignore[override]
        return bool(self.primary_key)

    upsert_sink = accepts_changelog

    def source_stream(self, env, path, columns):
        """The table read once, as Flink's JDBC scan: whole, or in `scan.partition.num`
        ranges of `scan.partition.column` (each a split)."""
        from weir.runtime.connectors.jdbc_source import JdbcScanReader

        table, settings, address = self._connection(path, _SOURCE_OPTIONS)
        names = [c.name for c in columns]
        given = [self.options.get(o) for o in _PARTITIONS]
        if any(v is not None for v in given) and None in given:
            raise ValueError(
                f"table '{path}': a partitioned jdbc scan needs all of {', '.join(_PARTITIONS)}"
            )
        reader = JdbcScanReader(
            f"SELECT {', '.join(names)} FROM {table}",
            settings,
            address,
            None if given[0] is None else tuple(given),
            int(self.options.get("scan.fetch-size", 1000) or 1000),
        )
        return (
            env.from_source(reader, None, f"Source: {path}")
            .map(_Typed([c.data_type for c in columns]))
            .name(f"Source: {path}")
        )

    def lookup(self, path, columns, key_indexes):
        """A JdbcLookup of the rows whose `key_indexes` columns equal a key."""
        from weir.runtime.connectors.jdbc_source import JdbcLookup
        from weir.table.lookup_join import Cache

        table, settings, address = self._connection(path, _SOURCE_OPTIONS)
        names = [c.name for c in columns]
        where = " AND ".join(f"{names[i]} = %s" for i in key_indexes)
        cache = None
        if (
            self.options.get("lookup.cache", "NONE").upper() == "PARTIAL"
            or "lookup.cache.max-rows" in self.options
        ):
            rows = self.options.get(
                "lookup.partial-cache.max-rows", self.options.get("lookup.cache.max-rows")
            )
            if rows is None:
                raise ValueError(
                    f"table '{path}': a PARTIAL lookup cache needs 'lookup.partial-cache.max-rows'"
                )
            ttl = self.options.get(
                "lookup.partial-cache.expire-after-write", self.options.get("lookup.cache.ttl")
            )
            cache = Cache(
                int(rows),
                None
                if ttl is None
                else parse_duration_ms(str(ttl), "lookup.partial-cache.expire-after-write") / 1000,
            )
        return JdbcLookup(
            f"SELECT {', '.join(names)} FROM {table} WHERE {where}",
            settings,
            address,
            _Typed([c.data_type for c in columns], plain=True),
            cache,
            int(self.options.get("lookup.max-retries", DEFAULT_RETRIES)),
        )

    def _connection(self, path, known):
        """(table name, psycopg's settings, address) of the options, checked."""
        from weir.datastream.connectors.jdbc import JdbcConnectionOptions

        unknown = sorted(set(self.options) - known)
        if unknown:
            raise ValueError(
                f"table '{path}': the jdbc connector has no option "
                f"{', '.join(repr(o) for o in unknown)}"
            )
        table = self._required(path, "table-name")
        driver = self.options.get("driver")
        if driver is not None and driver != "org.postgresql.Driver":
            raise ValueError(
                f"table '{path}': weir's jdbc connector reads and writes "
                f"PostgreSQL: the driver {driver!r} is not supported"
            )
        connection = JdbcConnectionOptions(
            self._required(path, "url"),
            driver,
            self.options.get("username"),
            self.options.get("password"),
            60,
        )
        return (table, *connection._psycopg_settings())

    def sink(self, stream, path, columns):
        from weir.datastream.connectors.jdbc import JdbcSink

        table, settings, address = self._connection(path, _SINK_OPTIONS)
        names = [c.name for c in columns]
        type_info = Types.ROW([c.data_type.type_info for c in columns])
        flush = int(self.options.get("sink.buffer-flush.max-rows", DEFAULT_FLUSH_ROWS))
        retries = int(self.options.get("sink.max-retries", DEFAULT_RETRIES))
        spec: object  # (the append sink, or the changelog sink's spec)
        if not self.primary_key:
            spec = JdbcSink(
                _append_spec(table, names, type_info, settings, address, max(flush, 1), retries)
            )
            return stream.map(operator.itemgetter(1)).name("Jdbc").sink_to(spec)
        keys = [names.index(k) for k in self.primary_key]
        from weir.runtime.connectors.jdbc_changelog import ChangelogJdbcSinkSpec

        spec = ChangelogJdbcSinkSpec(
            upsert_statement(table, names, self.primary_key),
            delete_statement(table, self.primary_key),
            keys,
            type_info,
            settings,
            address,
            max(flush, 1),
            retries,
        )
        return (
            stream.key_by(KeyOf.at(keys)).process(_Forward()).name("Jdbc").sink_to(JdbcSink(spec))
        )

    def _required(self, path, option):
        if option not in self.options:
            raise ValueError(f"table '{path}': the jdbc connector needs the option '{option}'")
        return self.options[option]


def insert_statement(table: str, names) -> str:
    return f"INSERT INTO {table}({', '.join(names)}) VALUES ({', '.join('?' for _ in names)})"


def upsert_statement(table: str, names, key) -> str:
    """Flink's PostgreSQL upsert: the row inserted, or its non-key columns set."""
    others = [n for n in names if n not in key]
    action = (
        "DO NOTHING"
        if not others
        else "DO UPDATE SET " + ", ".join(f"{n}=EXCLUDED.{n}" for n in others)
    )
    return f"{insert_statement(table, names)} ON CONFLICT ({', '.join(key)}) {action}"


def delete_statement(table: str, key) -> str:
    return f"DELETE FROM {table} WHERE {' AND '.join(f'{k} = ?' for k in key)}"


def _append_spec(table, names, type_info, settings, address, flush, retries):
    from weir.runtime.connectors.jdbc_sink import JdbcSinkSpec

    return JdbcSinkSpec(
        insert_statement(table, names), type_info, settings, address, flush, retries
    )


class _Typed:
    """A row read from PostgreSQL as an insert of the table's types (a numeric to its
    DECIMAL's scale, a real number as a float); `plain`: the values only."""

    def __init__(self, types, plain=False):
        self.converters = [_converter(t) for t in types]
        self.plain = plain

    def __call__(self, row):
        values = tuple(v if v is None or c is None else c(v) for c, v in zip(self.converters, row))
        return values if self.plain else (INSERT, values)


def _converter(data_type):
    from weir.table.casts import cast_value, float32

    if data_type.name == "DECIMAL":  # (to the DECIMAL's scale, in 38 digits)
        return lambda v: cast_value(str(v), None, data_type)
    if data_type.name == "FLOAT":
        return lambda v: float32(float(v))
    if data_type.name == "DOUBLE":
        return float
    return None


class _Forward(KeyedProcessFunction):
    """(a keyed pass-through, so the sink runs where each key's changes are)"""

    def process_element(self, record, ctx):
        yield record
