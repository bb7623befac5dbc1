"""This process's PostgreSQL connections (psycopg 3), kept by their settings: a task of a
later micro-batch in the same worker process takes one up again instead of connecting
anew. A connection is lent to one writer at a time (two sinks of one task write
concurrently) and taken back only when it is idle and healthy; one that failed is closed.

psycopg is optional (`pip install "weir[postgres]"`) and imported only when a connection
is needed."""

import threading
from typing import Any, Dict, List

_IDLE: Dict[tuple, List[Any]] = {}
_LOCK = threading.Lock()


def psycopg():
    """The psycopg module, or an ImportError that says how to install it."""
    try:
        import psycopg as module
    except ImportError as missing:
        raise ImportError('the JDBC sink for PostgreSQL needs psycopg 3: pip install '
                          '"weir[postgres]"') from missing
    return module


def key(settings: dict) -> tuple:
    """The settings as a key (of kept connections, of databases prepared)."""
    return tuple(sorted((k, str(v)) for k, v in settings.items()))


def take(settings: dict):
    """A connection of these psycopg settings: a kept idle one, or a new one."""
    with _LOCK:
        kept = _IDLE.get(key(settings), [])
        while kept:
            connection = kept.pop()
            if _reusable(connection):
                return connection
            connection.close()
    return psycopg().connect(**settings)


def give_back(settings: dict, connection) -> None:
    """Keeps `connection` for the next task if it is idle and healthy; closes it if not."""
    if not _reusable(connection):
        discard(connection)
        return
    with _LOCK:
        _IDLE.setdefault(key(settings), []).append(connection)


def discard(connection) -> None:
    """Closes a connection that failed (or is in an unknown state)."""
    try:
        connection.close()
    except Exception:  # noqa: BLE001 (closing a broken connection may fail: it is gone)
        pass


def _reusable(connection) -> bool:
    idle = psycopg().pq.TransactionStatus.IDLE
    return (not connection.closed and not connection.broken
            and connection.info.transaction_status == idle)


def close_connections() -> None:
    """Closes every kept connection (e.g. before their server goes away)."""
    with _LOCK:
        for kept in _IDLE.values():
            for connection in kept:
                discard(connection)
        _IDLE.clear()
