"""This process's PostgreSQL connections (psycopg 3), kept by their settings: a task of a
later micro-batch in the same worker process takes one up again instead of connecting
anew. A connection is lent to one writer at a time (two sinks of one task write
concurrently) and taken back only when it is idle and healthy; one that failed is closed.

psycopg is optional (`pip install "weir[postgres]"`) and imported only when a connection
is needed."""

from __future__ import annotations

import threading
from types import ModuleType
from typing import TYPE_CHECKING, Any, Dict, List, Tuple

if TYPE_CHECKING:
    from psycopg import Connection

    Key = Tuple[Tuple[str, str], ...]  # settings, as a key

_IDLE: Dict[Key, List[Connection[Any]]] = {}
_LOCK = threading.Lock()


def psycopg() -> ModuleType:
    """The psycopg module, or an ImportError that says how to install it."""
    try:
        import psycopg as module
    except ImportError as missing:
        raise ImportError(
            'the JDBC sink for PostgreSQL needs psycopg 3: pip install "weir[postgres]"'
        ) from missing
    return module


def key(settings: Dict[str, Any]) -> Key:
    """The settings as a key (of kept connections, of databases prepared)."""
    return tuple(sorted((k, str(v)) for k, v in settings.items()))


def take(settings: Dict[str, Any]) -> Connection[Any]:
    """A connection of these psycopg settings: a kept idle one, or a new one."""
    with _LOCK:
        kept = _IDLE.get(key(settings), [])
        while kept:
            connection = kept.pop()
            if _reusable(connection):
                return connection
            connection.close()
    return psycopg().connect(**settings)  # type: ignore[no-any-return]  # (a Connection)


def give_back(settings: Dict[str, Any], connection: Connection[Any]) -> None:
    """Keeps `connection` for the next task if it is idle and healthy; closes it if not."""
    if not _reusable(connection):
        discard(connection)
        return
    with _LOCK:
        _IDLE.setdefault(key(settings), []).append(connection)


def discard(connection: Connection[Any]) -> None:
    """Closes a connection that failed (or is in an unknown state)."""
    try:
        connection.close()
    except Exception:  # noqa: BLE001 (closing a broken connection may fail: it is gone)
        pass


def _reusable(connection: Connection[Any]) -> bool:
    idle = psycopg().pq.TransactionStatus.IDLE
    return (
        not connection.closed
        and not connection.broken
        and connection.info.transaction_status == idle
    )


def close_connections() -> None:
    """Closes every kept connection (e.g. before their server goes away)."""
    with _LOCK:
        for kept in _IDLE.values():
            for connection in kept:
                discard(connection)
        _IDLE.clear()
