"""A changelog written to PostgreSQL by its primary key (the Table API's `jdbc` sink of a
table with a PRIMARY KEY): +I and +U rows are upserts (`INSERT ... ON CONFLICT (key) DO
UPDATE`), -D rows deletes by the key, -U rows are skipped (the +U after one replaces the
row). A task's rows of a micro-batch are executed in their order, in the transaction
and with the commit marker of weir.runtime.connectors.jdbc_sink, so each change is
written exactly once and the table ends as the changelog's final rows."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, Iterable, List, Optional, Tuple, Union

from weir.runtime.connectors.jdbc_sink import JdbcSinkSpec, JdbcWriter, psycopg_statement

if TYPE_CHECKING:
    from weir.common.typeinfo import RowTypeInfo, TupleTypeInfo

_ACCUMULATE, _UPDATE_BEFORE, _DELETE = (0, 2), 1, 3  # (weir.table.changelog's row kinds)


class ChangelogJdbcSinkSpec(JdbcSinkSpec):
    """`upsert_sql` takes a row's fields, `delete_sql` its key's (`key_indexes`), both
    with JDBC's `?` placeholders; records are (kind, values)."""

    def __init__(
        self,
        upsert_sql: str,
        delete_sql: str,
        key_indexes: Iterable[int],
        type_info: Union[RowTypeInfo, TupleTypeInfo],
        connection: Dict[str, Any],
        address: str,
        batch_size: int,
        max_retries: int,
    ) -> None:
        super().__init__(upsert_sql, type_info, connection, address, batch_size, max_retries)
        self.delete_sql = delete_sql
        self.delete_statement, placeholders = psycopg_statement(delete_sql)
        self.key_indexes = list(key_indexes)
        if placeholders != len(self.key_indexes):
            raise ValueError(
                f"the delete statement {delete_sql!r} takes {placeholders} "
                f"values, the key has {len(self.key_indexes)} columns"
            )

    def batch_writer(self, uid: str, job: str, batch_id: int, task: int) -> ChangelogJdbcWriter:
        return ChangelogJdbcWriter(self, uid, job, batch_id, task)

    def change(self, uid: str, record: Tuple[int, Any]) -> Optional[Tuple[str, Tuple[Any, ...]]]:
        """(statement, parameters) of a (kind, values) record, None for a -U."""
        kind, values = record
        if kind == _UPDATE_BEFORE:
            return None
        fields = self.parameters(uid, values)
        if kind == _DELETE:
            return self.delete_statement, tuple(fields[i] for i in self.key_indexes)
        if kind not in _ACCUMULATE:
            raise ValueError(f"JDBC sink '{uid}': a record of unknown kind {kind!r}")
        return self.statement, fields


class ChangelogJdbcWriter(JdbcWriter):
    """A JdbcWriter whose rows are (statement, parameters): runs of one statement are
    executed together, in the rows' order."""

    spec: ChangelogJdbcSinkSpec  # (the spec's batch_writer makes it)

    def write(self, values: List[Any], timestamps: Optional[List[Optional[int]]] = None) -> None:
        if self.replayed:
            return
        for record in values:
            change = self.spec.change(self.uid, record)
            if change is not None:
                self.rows.append(change)
        if len(self.rows) - self.executed >= self.spec.batch_size:
            self._attempt(self._execute_pending)

    def _execute_pending(self) -> None:
        self.doing = f"running {self.spec.sql!r} and {self.spec.delete_sql!r}"
        with self.connection.cursor() as cursor:
            while self.executed < len(self.rows):
                statement = self.rows[self.executed][0]
                end = self.executed
                while (
                    end < len(self.rows)
                    and end - self.executed < self.spec.batch_size
                    and self.rows[end][0] == statement
                ):
                    end += 1
                self.chunk = (self.executed, end)
                cursor.executemany(statement, [p for _, p in self.rows[self.executed : end]])
                self.executed = end
        self.chunk = None

    def _find_row(self, start: int, end: int) -> Optional[Tuple[Tuple[Any, ...], str]]:
        """(row, cause) of the first change of rows[start:end] that fails on its own."""
        from weir.runtime.connectors import postgres_clients
        from weir.runtime.connectors.jdbc_sink import _describe

        psycopg = postgres_clients.psycopg()
        for statement, parameters in self.rows[start:end]:
            try:
                self.connection.rollback()
                self.connection.execute(statement, parameters)
            except psycopg.OperationalError:
                return None
            except psycopg.Error as failure:
                return parameters, _describe(failure)
        return None
