"""Reading a PostgreSQL table: once (the Table API's `jdbc` table as a bounded scan source,
Flink's JDBC scan), or by key (JdbcLookup: a lookup join's).

The scan: `SELECT columns FROM table`, whole or cut into partitions by ranges of
a numeric column (Flink's `scan.partition.*`), each partition a split read by a task
through psycopg 3.

Position p is partition p: a bounded source of as many positions as partitions. Rows are
read in `fetch_size` chunks from a server-side cursor; values are PostgreSQL's as psycopg
gives them (a numeric as a Decimal, a timestamp as a datetime)."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, Callable, Dict, Iterator, List, Optional, Sequence, Tuple

from weir.runtime.connectors import postgres_clients
from weir.runtime.connectors.jdbc_sink import RETRY_BACKOFF_S
from weir.runtime.sources import SourceReader

if TYPE_CHECKING:
    from typing import Protocol

    class _Cache(Protocol):
        """weir.table.lookup_join.Cache, as JdbcLookup uses it."""

        def get(self, key: Tuple[Any, ...]) -> Optional[List[Any]]: ...

        def put(self, key: Tuple[Any, ...], rows: List[Any]) -> None: ...


class JdbcScanReader(SourceReader):
    """`query` selects the table's columns; `partitions`: None (one split reading it
    whole) or (column, lower, upper, count) as Flink's scan.partition.* options."""

    def __init__(
        self,
        query: str,
        connection: Dict[str, Any],
        address: str,
        # (column, lower, upper, count): option values, as _ranges reads them
        partitions: Optional[Tuple[Any, ...]] = None,
        fetch_size: int = 1000,
    ) -> None:
        self.query, self.connection, self.address = query, dict(connection), address
        self.fetch_size = max(int(fetch_size), 1)
        self.ranges: Sequence[Optional[Tuple[int, int]]] = (
            _ranges(*partitions) if partitions else [None]
        )
        self.column = partitions[0] if partitions else None

    def available(self, start_pos: int) -> int:
        return len(self.ranges)

    def is_exhausted(self, pos: int) -> bool:
        return pos >= len(self.ranges)

    def split_count(self, lo: int, hi: int) -> int:
        return hi - lo

    def read(self, lo: int, hi: int) -> Iterator[Tuple[object, Optional[int]]]:
        for index in range(lo, hi):
            for row in self._partition(index):
                yield row, None

    def _partition(self, index: int) -> Iterator[Tuple[Any, ...]]:
        psycopg = postgres_clients.psycopg()
        bounds = self.ranges[index]
        parameters: Tuple[int, ...]
        sql, parameters = self.query, ()
        if bounds is not None:
            sql = f"{sql} WHERE {self.column} BETWEEN %s AND %s"
            parameters = bounds
        connection = postgres_clients.take(self.connection)
        done = False
        try:
            with connection.cursor(name=f"weir_scan_{index}") as cursor:
                cursor.itersize = self.fetch_size
                cursor.execute(sql, parameters)
                yield from (tuple(row) for row in cursor)
            connection.rollback()
            done = True
        except psycopg.Error as failure:
            raise RuntimeError(
                f"jdbc source ({self.address}): {sql!r} failed: {type(failure).__name__}: {failure}"
            ) from failure
        finally:  # (a reading stopped early, or failed, leaves no transaction open)
            if done:
                postgres_clients.give_back(self.connection, connection)
            else:
                postgres_clients.discard(connection)


def _ranges(column: str, lower: int, upper: int, count: int) -> List[Tuple[int, int]]:
    """Flink's JdbcNumericBetweenParametersProvider: `count` ranges covering lower..upper
    (the first ones one larger where the span does not divide evenly)."""
    lower, upper, count = int(lower), int(upper), int(count)
    if count < 1 or upper < lower:
        raise ValueError(
            f"scan.partition.num must be at least 1 and the lower bound "
            f"({lower}) at most the upper one ({upper})"
        )
    span = upper - lower + 1
    count = min(count, span)
    size, bigger = divmod(span, count)
    ranges: List[Tuple[int, int]]
    ranges, start = [], lower
    for index in range(count):
        end = start + size - 1 + (1 if index < bigger else 0)
        ranges.append((start, end))
        start = end + 1
    return ranges


class JdbcLookup:
    """The rows of a PostgreSQL table whose key columns equal a key, for a lookup join:
    `query` selects them with one `%s` per key column; `convert` turns a row into the
    table's types; `cache` (weir.table.lookup_join.Cache) or None. A connection is taken
    when first needed, in the task."""

    def __init__(
        self,
        query: str,
        connection: Dict[str, Any],
        address: str,
        convert: Callable[[Tuple[Any, ...]], Any],
        cache: Optional[_Cache] = None,
        max_retries: int = 3,
    ) -> None:
        self.query, self.connection, self.address = query, dict(connection), address
        self.convert, self.cache, self.max_retries = convert, cache, max_retries
        self._open: Any = None  # the psycopg connection kept open, if any

    def open(self) -> None:
        self._open = None

    def close(self) -> None:
        connection, self._open = self._open, None
        if connection is not None:
            postgres_clients.give_back(self.connection, connection)

    def rows(self, key: Tuple[Any, ...]) -> List[Any]:
        rows = None if self.cache is None else self.cache.get(key)
        if rows is None:
            rows = self._query(key)
            if self.cache is not None:
                self.cache.put(key, rows)
        return rows

    # (its last attempt returns or raises: mypy sees a loop that may end)
    def _query(self, key: Tuple[Any, ...]) -> List[Any]:  # type: ignore[return]
        psycopg = postgres_clients.psycopg()
        for attempt in range(self.max_retries + 1):
            try:
                if self._open is None:
                    self._open = postgres_clients.take(self.connection)
                rows = [self.convert(row) for row in self._open.execute(self.query, key).fetchall()]
                self._open.rollback()
                return rows
            except psycopg.OperationalError as failure:
                if self._open is not None:
                    postgres_clients.discard(self._open)
                    self._open = None
                if attempt == self.max_retries:
                    raise ConnectionError(f"jdbc lookup ({self.address}): {failure}") from failure
                time.sleep(RETRY_BACKOFF_S * (attempt + 1))
            except psycopg.Error as failure:
                raise RuntimeError(
                    f"jdbc lookup ({self.address}): {self.query!r} with "
                    f"{key!r} failed: {type(failure).__name__}: {failure}"
                ) from failure

    def __getstate__(self) -> Dict[str, Any]:
        return {**self.__dict__, "_open": None}
