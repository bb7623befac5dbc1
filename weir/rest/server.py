"""`weir server` and `weir dashboard`: serve the REST API and the dashboard (one app,
weir.rest.app) with uvicorn. On loopback by default; bound to any other address it
requires a token (`--token`, or WEIR_REST_TOKEN)."""

import os
import socket

from weir.common.errors import WeirError

LOOPBACK = ("127.0.0.1", "localhost", "::1")
TOKEN = "WEIR_REST_TOKEN"
DEFAULT_PORT = 8081  # Flink's REST port


class ServerError(WeirError, RuntimeError):
    """The server cannot start as asked (the message says why)."""


def dashboard_url(host: str = "127.0.0.1", port: int = DEFAULT_PORT, job_id=None) -> str:
    """The dashboard's address (one job's page with `job_id`)."""
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}/" + (f"#/jobs/{job_id}" if job_id else "")


def serving(host: str = "127.0.0.1", port: int = DEFAULT_PORT) -> bool:
    """Whether something listens at host:port (a server started by `weir server`)."""
    try:
        with socket.create_connection((host, port), timeout=0.3):
            return True
    except OSError:
        return False


def serve(
    host: str = "127.0.0.1", port: int = DEFAULT_PORT, token=None, what: str = "REST API"
) -> None:
    import uvicorn
    from weir.rest.app import create_app

    token = token or os.environ.get(TOKEN) or None
    if host not in LOOPBACK and not token:
        raise ServerError(
            f"the REST API bound to {host} needs a token: pass --token, or "
            f"set {TOKEN} (clients then send 'Authorization: Bearer <token>')"
        )
    listening = _bind(host, port)
    address = dashboard_url(host, port) if what == "dashboard" else f"http://{host}:{port}"
    print(f"weir {what} on {address} (jobs in {_jobs_root()})", flush=True)
    config = uvicorn.Config(create_app(token), host=host, port=port, log_level="warning")
    uvicorn.Server(config).run(sockets=[listening])


def _bind(host: str, port: int) -> socket.socket:
    """The server's listening socket, bound before anything says it serves: a port in use
    is one clear error."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    listening = socket.socket(family, socket.SOCK_STREAM)
    listening.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        listening.bind((host, port))
    except OSError as error:
        listening.close()
        raise ServerError(
            f"cannot serve on {host}:{port}: {error.strerror or error} (is "
            "another `weir server` or dashboard running there? pass --port)"
        ) from error
    listening.listen(2048)
    return listening


def _jobs_root() -> str:
    from weir.jobs.directory import jobs_root

    return jobs_root()
