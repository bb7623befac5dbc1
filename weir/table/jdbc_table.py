"""Flink's `jdbc` table connector for PostgreSQL, as a sink (written through psycopg 3
by weir's JdbcSink, exactly once: weir.runtime.connectors.jdbc_sink).

A table with a PRIMARY KEY takes a changelog, written by that key (upserts and deletes,
weir.runtime.connectors.jdbc_changelog); a table without one takes inserts only. The
statements are Flink's PostgreSQL dialect's: names as written (PostgreSQL folds unquoted
names to lower case), `INSERT ... ON CONFLICT (key) DO UPDATE SET c = EXCLUDED.c`. Rows
are shuffled by the key first, so each key's changes are written by one task, in order.
"""

from weir.common.typeinfo import Types
from weir.datastream.functions import KeyedProcessFunction
from weir.table.connectors import Connector

DEFAULT_FLUSH_ROWS = 100  # Flink's sink.buffer-flush.max-rows
DEFAULT_RETRIES = 3  # Flink's sink.max-retries
_SINK_OPTIONS = {"url", "table-name", "driver", "username", "password",
                 "sink.buffer-flush.max-rows", "sink.buffer-flush.interval",
                 "sink.max-retries", "sink.parallelism", "connection.max-retry-timeout"}


class _KeyOf:
    def __init__(self, indexes):
        self.indexes = indexes

    def __call__(self, record):
        values = record[1]
        return tuple(values[i] for i in self.indexes)


class JdbcConnector(Connector):
    name = "jdbc"

    @property
    def accepts_changelog(self):
        return bool(self.primary_key)

    def sink(self, stream, path, columns):
        from weir.datastream.connectors.jdbc import JdbcConnectionOptions, JdbcSink
        unknown = sorted(set(self.options) - _SINK_OPTIONS)
        if unknown:
            raise ValueError(f"table '{path}': the jdbc connector has no option "
                             f"{', '.join(repr(o) for o in unknown)}")
        table = self._required(path, "table-name")
        connection = JdbcConnectionOptions(
            self._required(path, "url"), self.options.get("driver"),
            self.options.get("username"), self.options.get("password"), 60)
        settings, address = connection._psycopg_settings()
        names = [c.name for c in columns]
        type_info = Types.ROW([c.data_type.type_info for c in columns])
        flush = int(self.options.get("sink.buffer-flush.max-rows", DEFAULT_FLUSH_ROWS))
        retries = int(self.options.get("sink.max-retries", DEFAULT_RETRIES))
        if not self.primary_key:
            spec = JdbcSink(_append_spec(table, names, type_info, settings, address,
                                         max(flush, 1), retries))
            return stream.map(_Values()).name("Jdbc").sink_to(spec)
        keys = [names.index(k) for k in self.primary_key]
        from weir.runtime.connectors.jdbc_changelog import ChangelogJdbcSinkSpec
        spec = ChangelogJdbcSinkSpec(
            upsert_statement(table, names, self.primary_key),
            delete_statement(table, self.primary_key), keys, type_info, settings, address,
            max(flush, 1), retries)
        return stream.key_by(_KeyOf(keys)).process(_Forward()).name("Jdbc") \
            .sink_to(JdbcSink(spec))

    def _required(self, path, option):
        if option not in self.options:
            raise ValueError(f"table '{path}': the jdbc connector needs the option "
                             f"'{option}'")
        return self.options[option]


def insert_statement(table: str, names) -> str:
    return f"INSERT INTO {table}({', '.join(names)}) VALUES ({', '.join('?' for _ in names)})"


def upsert_statement(table: str, names, key) -> str:
    """Flink's PostgreSQL upsert: the row inserted, or its non-key columns set."""
    others = [n for n in names if n not in key]
    action = "DO NOTHING" if not others else \
        "DO UPDATE SET " + ", ".join(f"{n}=EXCLUDED.{n}" for n in others)
    return f"{insert_statement(table, names)} ON CONFLICT ({', '.join(key)}) {action}"


def delete_statement(table: str, key) -> str:
    return f"DELETE FROM {table} WHERE {' AND '.join(f'{k} = ?' for k in key)}"


def _append_spec(table, names, type_info, settings, address, flush, retries):
    from weir.runtime.connectors.jdbc_sink import JdbcSinkSpec
    return JdbcSinkSpec(insert_statement(table, names), type_info, settings, address, flush,
                        retries)


class _Values:
    def __call__(self, record):
        return record[1]


class _Forward(KeyedProcessFunction):
    """(a keyed pass-through, so the sink runs where each key's changes are)"""

    def process_element(self, record, ctx):
        yield record
