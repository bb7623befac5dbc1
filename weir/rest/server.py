"""`weir server`: serves the REST API (weir.rest.app) with uvicorn. On loopback by
default; bound to any other address it requires a token (`--token`, or WEIR_REST_TOKEN)."""

import os

LOOPBACK = ("127.0.0.1", "localhost", "::1")
TOKEN = "WEIR_REST_TOKEN"
DEFAULT_PORT = 8081  # Flink's REST port


class ServerError(RuntimeError):
    """The server cannot start as asked (the message says why)."""


def serve(host: str = "127.0.0.1", port: int = DEFAULT_PORT, token=None) -> None:
    import uvicorn
    from weir.rest.app import create_app
    token = token or os.environ.get(TOKEN) or None
    if host not in LOOPBACK and not token:
        raise ServerError(f"the REST API bound to {host} needs a token: pass --token, or "
                          f"set {TOKEN} (clients then send 'Authorization: Bearer <token>')")
    print(f"weir REST API on http://{host}:{port} (jobs in {_jobs_root()})", flush=True)
    uvicorn.run(create_app(token), host=host, port=port, log_level="warning")


def _jobs_root() -> str:
    from weir.jobs.directory import jobs_root
    return jobs_root()
