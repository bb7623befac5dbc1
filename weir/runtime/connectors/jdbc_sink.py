"""Writing PostgreSQL with a JDBC statement: each task writes its share of a micro-batch's
records, exactly once.

A task's rows of micro-batch b go in one PostgreSQL transaction, which also sets the row
(sink, task) of the table `weir_sink_commits` to b: that marker is the last batch the task
committed. A writer first locks its marker (an upsert, so a concurrent attempt of the same
task waits for this one); if the marker is at b or beyond, the batch is a replay of one
already committed (a restart, a task retry) and the writer writes nothing. `sink` is the
operator's uid, a hash of the statement and the job's identity (sink_base), so two sinks
never share markers and a job started afresh is no replay of an earlier one.

Rows are buffered and executed with `executemany` in chunks of `batch_size` as they come,
in the open transaction; every row is kept until the commit, because a connection that
fails (or a transient error: a serialization failure, a deadlock) rolls the transaction
back and redoes it whole, up to `max_retries` times after a short backoff. The micro-batch
is the flush unit: Flink's `batch_interval_ms` is accepted and has nothing to time.
"""

from __future__ import annotations

import hashlib
import time
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Optional, Set, Tuple, Union

from weir.common.row import Row
from weir.runtime.connectors import postgres_clients
from weir.runtime.connectors.sink_base import BatchWriter

if TYPE_CHECKING:
    from psycopg import Connection
    from psycopg import Error as PsycopgError

    from weir.common.typeinfo import RowTypeInfo, TupleTypeInfo
    from weir.runtime.connectors.postgres_clients import Key

MARKERS = "weir_sink_commits"
CREATE_MARKERS = (
    f"CREATE TABLE IF NOT EXISTS {MARKERS} (sink text, task int, batch bigint, "
    "PRIMARY KEY (sink, task))"
)
LOCK_MARKER = (
    f"INSERT INTO {MARKERS} (sink, task, batch) VALUES (%s, %s, -1) "
    f"ON CONFLICT (sink, task) DO UPDATE SET batch = {MARKERS}.batch RETURNING batch"
)
SET_MARKER = f"UPDATE {MARKERS} SET batch = %s WHERE sink = %s AND task = %s"
RETRY_BACKOFF_S = 0.2

# the connection settings (their keys) whose database has the marker table
_MARKERS_READY: Set[Key] = set()


# -- JDBC statements as psycopg statements ---------------------------------------------------


def psycopg_statement(sql: str) -> Tuple[str, int]:
    """`sql`'s JDBC `?` placeholders as psycopg's `%s`, and how many there are. Quoted
    strings, quoted identifiers, dollar quotes and comments are left as they are; `??`
    is a literal `?` (PgJDBC's escape, for operators such as jsonb's `?|`), and every
    literal `%` is doubled, as psycopg wants."""
    out: List[str]
    out, placeholders, i = [], 0, 0
    while i < len(sql):
        end = _quoted_end(sql, i)
        if end is not None:
            out.append(sql[i:end].replace("%", "%%"))
            i = end
            continue
        if sql.startswith("??", i):
            out.append("?")
            i += 2
            continue
        char = sql[i]
        if char == "?":
            placeholders += 1
        out.append({"?": "%s", "%": "%%"}.get(char, char))
        i += 1
    return "".join(out), placeholders


def _quoted_end(sql: str, i: int) -> Optional[int]:
    """Where the quoted text or comment that starts at `i` ends, or None."""
    char = sql[i]
    if char in "'\"":
        escapes = (
            char == "'"
            and i > 0
            and sql[i - 1] in "eE"
            and (i == 1 or not _in_identifier(sql[i - 2]))
        )
        return _closing_quote(sql, i, escapes)
    if sql.startswith("--", i):
        end = sql.find("\n", i)
        return len(sql) if end < 0 else end + 1
    if sql.startswith("/*", i):
        return _comment_end(sql, i)
    if char == "$" and (i == 0 or not _in_identifier(sql[i - 1])):
        return _dollar_quote_end(sql, i)
    return None


def _in_identifier(char: str) -> bool:
    return char.isalnum() or char in "_$"


def _closing_quote(sql: str, i: int, escapes: bool) -> int:
    quote, j = sql[i], i + 1
    while j < len(sql):
        if escapes and sql[j] == "\\":
            j += 2
        elif sql.startswith(quote * 2, j):
            j += 2
        elif sql[j] == quote:
            return j + 1
        else:
            j += 1
    raise ValueError(f"unterminated {quote} quote in the SQL statement {sql!r}")


def _comment_end(sql: str, i: int) -> int:
    """The end of the /* */ comment at `i` (PostgreSQL's comments nest)."""
    depth, j = 0, i
    while j < len(sql):
        if sql.startswith("/*", j):
            depth, j = depth + 1, j + 2
        elif sql.startswith("*/", j):
            depth, j = depth - 1, j + 2
            if depth == 0:
                return j
        else:
            j += 1
    raise ValueError(f"unterminated /* comment in the SQL statement {sql!r}")


def _dollar_quote_end(sql: str, i: int) -> Optional[int]:
    """The end of the $tag$...$tag$ text at `i`, or None if no tag starts there."""
    j = i + 1
    while j < len(sql) and (sql[j].isalnum() or sql[j] == "_"):
        j += 1
    tag = sql[i : j + 1]
    if j >= len(sql) or sql[j] != "$" or (len(tag) > 2 and tag[1].isdigit()):
        return None  # not a dollar quote: e.g. $1
    end = sql.find(tag, j + 1)
    if end < 0:
        raise ValueError(f"unterminated {tag} quote in the SQL statement {sql!r}")
    return end + len(tag)


# -- the sink ----------------------------------------------------------------------------------


class JdbcSinkSpec:
    """A JdbcSink's settings (picklable: Spark ships them to the tasks, which connect)."""

    executor_side = True

    def __init__(
        self,
        sql: str,
        type_info: Union[RowTypeInfo, TupleTypeInfo],
        connection: Dict[str, Any],
        address: str,
        batch_size: int,
        max_retries: int,
    ) -> None:
        self.sql = sql
        self.statement, placeholders = psycopg_statement(sql)
        self.type_info = type_info
        self.arity = type_info.get_arity()
        if placeholders != self.arity:
            raise ValueError(
                f"the JDBC statement {sql!r} has {placeholders} placeholders "
                f"('?') but its type_info {type_info!r} has {self.arity} "
                "fields: each field fills one placeholder, in order"
            )
        self.connection = dict(connection)  # psycopg's connection settings
        self.address = address  # host:port/database, for errors (no password)
        self.batch_size = batch_size
        self.max_retries = max_retries
        self.digest = hashlib.sha256(sql.encode()).hexdigest()[:16]

    def batch_writer(self, uid: str, job: str, batch_id: int, task: int) -> JdbcWriter:
        return JdbcWriter(self, uid, job, batch_id, task)

    def parameters(self, uid: str, value: Any) -> Tuple[Any, ...]:
        """The statement's parameters from a record (a Row, tuple or list whose fields
        fill the placeholders in order), checked against the sink's type_info."""
        if not isinstance(value, (Row, tuple, list)) or len(value) != self.arity:
            raise ValueError(
                f"JDBC sink '{uid}': the record {value!r} does not fit the "
                f"statement {self.sql!r}, which takes a Row of {self.arity} "
                f"fields ({self.type_info!r})"
            )
        fields = tuple(value)
        try:
            self.type_info.validate(fields, "row")
        except TypeError as mismatch:
            raise ValueError(
                f"JDBC sink '{uid}': the record {value!r} does not fit the "
                f"statement's types: {mismatch}"
            ) from None
        return fields


class JdbcWriter(BatchWriter):
    """One task's rows of one micro-batch, in one transaction (see the module's doc)."""

    def __init__(self, spec: JdbcSinkSpec, uid: str, job: str, batch_id: int, task: int) -> None:
        super().__init__(uid, job, batch_id, task)
        self.spec = spec
        self.sink = f"{uid}/{spec.digest}/{job}"
        # every row of the batch: a redo executes them all again
        self.rows: List[Tuple[Any, ...]] = []
        self.executed = 0  # rows executed in the open transaction
        self.chunk: Optional[Tuple[int, int]] = None  # (start, end) of the rows executing
        self.doing = ""  # what the writer is doing, for errors
        self.connection: Any = None  # holds the open transaction (a psycopg connection)
        self.replayed = False  # the marker says the batch is committed: write nothing

    def write(self, values: List[Any], timestamps: Optional[List[Optional[int]]] = None) -> None:
        if self.replayed:
            return
        self.rows.extend(self.spec.parameters(self.uid, value) for value in values)
        if len(self.rows) - self.executed >= self.spec.batch_size:
            self._attempt(self._execute_pending)

    def finish(self) -> List[Any]:
        if self.rows and not self.replayed:
            self._attempt(self._commit)
        return []

    def abort(self) -> None:
        self._release()

    # -- one transaction, redone whole after a failure -----------------------------------
    def _attempt(self, step: Callable[[], None]) -> None:
        psycopg = postgres_clients.psycopg()
        for attempt in range(self.spec.max_retries + 1):
            try:
                if self.connection is None:
                    self._begin()
                if not self.replayed:
                    step()
                return
            except psycopg.OperationalError as failure:
                self._drop_connection()
                if attempt == self.spec.max_retries:
                    raise ConnectionError(
                        f"JDBC sink '{self.uid}': could not write to PostgreSQL at "
                        f"{self.spec.address} ({attempt + 1} attempts): "
                        f"{_describe(failure)}"
                    ) from failure
                time.sleep(RETRY_BACKOFF_S * (attempt + 1))
            except psycopg.Error as failure:
                raise self._statement_error(failure) from failure

    def _begin(self) -> None:
        """Connects, locks the task's marker and reads it: a batch already committed
        is a replay, whose rows are dropped."""
        self.connection = postgres_clients.take(self.spec.connection)
        self.executed, self.chunk = 0, None
        self.doing = f"creating the marker table {MARKERS}"
        _create_markers(self.connection, self.spec.connection)
        self.doing = f"locking the task's marker in {MARKERS}"
        committed = self.connection.execute(LOCK_MARKER, (self.sink, self.task)).fetchone()[0]
        if committed >= self.batch_id:
            self.replayed = True
            self.rows = []
            self._release()

    def _execute_pending(self) -> None:
        size = self.spec.batch_size
        self.doing = f"running {self.spec.sql!r}"
        with self.connection.cursor() as cursor:
            while self.executed < len(self.rows):
                self.chunk = (self.executed, min(self.executed + size, len(self.rows)))
                cursor.executemany(self.spec.statement, self.rows[slice(*self.chunk)])
                self.executed = self.chunk[1]
        self.chunk = None

    def _commit(self) -> None:
        self._execute_pending()
        self.doing = f"committing the batch with its marker in {MARKERS}"
        self.connection.execute(SET_MARKER, (self.batch_id, self.sink, self.task))
        self.connection.commit()
        self.written = len(self.rows)
        self._release()

    def _release(self) -> None:
        """Rolls back what is not committed and lends the connection to the next task."""
        connection, self.connection = self.connection, None
        if connection is None:
            return
        try:
            connection.rollback()
        except Exception:  # noqa: BLE001 (a broken connection: closed below)
            postgres_clients.discard(connection)
            return
        postgres_clients.give_back(self.spec.connection, connection)

    def _drop_connection(self) -> None:
        if self.connection is not None:
            postgres_clients.discard(self.connection)
            self.connection = None

    # -- errors that retrying would not cure ---------------------------------------------
    def _statement_error(self, failure: PsycopgError) -> Exception:
        """The error of a statement that failed: naming the row it failed on, when the
        failure is a row's (a value psycopg cannot adapt, a value the server refuses)."""
        psycopg = postgres_clients.psycopg()
        chunk, self.chunk = self.chunk, None
        culprit = None
        if chunk is not None and (
            failure.sqlstate is None
            or isinstance(failure, (psycopg.DataError, psycopg.IntegrityError))
        ):
            culprit = self._find_row(*chunk)
        self._release()
        where = f"JDBC sink '{self.uid}' ({self.spec.address})"
        if culprit is None:
            return RuntimeError(f"{where}: {self.doing} failed: {_describe(failure)}")
        row, cause = culprit
        return ValueError(
            f"{where}: the row {row!r} cannot be written by {self.spec.sql!r}: {cause}"
        )

    def _find_row(self, start: int, end: int) -> Optional[Tuple[Tuple[Any, ...], str]]:
        """(row, cause) of the first of rows[start:end] that fails on its own, each tried
        in a transaction rolled back at once; None if none does."""
        psycopg = postgres_clients.psycopg()
        for row in self.rows[start:end]:
            try:
                self.connection.rollback()
                self.connection.execute(self.spec.statement, row)
            except psycopg.OperationalError:
                return None
            except psycopg.Error as failure:
                return row, _describe(failure)
        return None


def _create_markers(connection: Connection[Any], settings: Dict[str, Any]) -> None:
    """Creates the marker table (in the first schema of the search path) if the database
    of `settings` has none; checked once per process and database."""
    key = postgres_clients.key(settings)
    if key in _MARKERS_READY:
        return
    errors = postgres_clients.psycopg().errors
    try:
        # (a SELECT of a value: one row)
        if (
            connection.execute(  # type: ignore[index]
                "SELECT to_regclass(%s)", (MARKERS,)
            ).fetchone()[0]
            is None
        ):
            connection.execute(CREATE_MARKERS)
        connection.commit()
    except (errors.UniqueViolation, errors.DuplicateTable):
        connection.rollback()  # another task created it at the same moment
    _MARKERS_READY.add(key)


def _describe(failure: BaseException) -> str:
    lines = [line.strip() for line in str(failure).strip().splitlines() if line.strip()]
    return f"{type(failure).__name__}: {'; '.join(lines)}"
