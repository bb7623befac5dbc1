"""This process's Redis clients (redis-py), one per URL: a task of a later micro-batch in
the same worker process takes up its connection pool again instead of connecting anew.

Clients connect within CONNECT_TIMEOUT_S and wait at most SOCKET_TIMEOUT_S for an answer,
so an unreachable server fails a job instead of hanging it; the URL's own
`socket_connect_timeout` / `socket_timeout` query parameters take precedence.
"""

import contextlib
from types import ModuleType
from typing import Any, Dict, Iterator
from urllib.parse import urlsplit

CONNECT_TIMEOUT_S = 5.0
SOCKET_TIMEOUT_S = 60.0
URL_SCHEMES = ("redis", "rediss", "unix")

_CLIENTS: Dict[str, Any] = {}


def redis_module() -> ModuleType:
    """redis-py, an optional dependency of weir."""
    try:
        import redis
    except ImportError:
        raise ImportError(
            'weir\'s Redis connector needs redis-py: pip install "weir[redis]"'
        ) from None
    return redis


def check_url(url: object) -> str:
    """`url` if it is a Redis URL (redis://, rediss:// or unix://), else a ValueError."""
    if not isinstance(url, str) or urlsplit(url).scheme not in URL_SCHEMES:
        raise ValueError(
            f"expected a Redis URL such as 'redis://127.0.0.1:6379/0' "
            f"(schemes: {', '.join(URL_SCHEMES)}), got {url!r}"
        )
    return url


def address(url: str) -> str:
    """Where `url` points, without its credentials (for error messages)."""
    parts = urlsplit(url)
    if parts.scheme == "unix":
        return f"unix:{parts.path}"
    host = parts.hostname or "localhost"
    return f"{host}:{parts.port or 6379}{parts.path or '/0'}"


def client(url: str) -> Any:  # (a redis.Redis)
    found = _CLIENTS.get(url)
    if found is None:
        found = _CLIENTS[url] = redis_module().Redis.from_url(
            url, socket_connect_timeout=CONNECT_TIMEOUT_S, socket_timeout=SOCKET_TIMEOUT_S
        )
    return found


@contextlib.contextmanager
def server_errors(url: str) -> Iterator[None]:
    """A server that cannot be reached or does not answer in time: one ConnectionError
    naming its address."""
    redis = redis_module()
    try:
        yield
    except (redis.ConnectionError, redis.TimeoutError) as exc:
        raise ConnectionError(
            f"Redis at {address(url)} is unreachable or did not answer in time: {exc}"
        ) from None


def close_clients() -> None:
    """Closes every kept client (e.g. before their server goes away)."""
    for kept in _CLIENTS.values():
        kept.close()
    _CLIENTS.clear()
