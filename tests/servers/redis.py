"""A Redis server for tests: Debian's /usr/bin/redis-server on a free loopback port, without
persistence, in its own directory."""

import subprocess
import time

from tests.servers import free_port

REDIS_SERVER = "/usr/bin/redis-server"


class RedisServer:
    def __init__(self, directory: str):
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.log = open(f"{directory}/redis.log", "wb")
        self.process = subprocess.Popen(
            [
                REDIS_SERVER,
                "--bind",
                "127.0.0.1",
                "--port",
                str(self.port),
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                directory,
            ],
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )
        self.client = self._wait()

    def _wait(self):
        """A client, once the server answers PING."""
        import redis

        client = redis.Redis(host="127.0.0.1", port=self.port, socket_connect_timeout=1)
        deadline = time.time() + 30
        while time.time() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"redis-server exited with {self.process.returncode}")
            try:
                client.ping()
                return client
            except redis.ConnectionError:
                time.sleep(0.05)
        raise RuntimeError(f"redis-server did not answer on 127.0.0.1:{self.port} in 30 s")

    def stop(self) -> None:
        self.client.close()
        self.process.terminate()
        self.process.wait(10)
        self.log.close()

    # -- helpers tests use ----------------------------------------------------------------
    def add(self, stream: str, entries) -> list:
        """XADDs `entries` (dicts of fields, or (id, fields) pairs) to `stream`; their ids."""
        pipe = self.client.pipeline(transaction=False)
        for entry in entries:
            entry_id, fields = entry if isinstance(entry, tuple) else ("*", entry)
            pipe.xadd(stream, fields, id=entry_id)
        return [entry_id.decode() for entry_id in pipe.execute()]

    def entries(self, stream: str) -> list:
        """The fields of every entry of `stream`, decoded, oldest first."""
        return [
            {k.decode(): v.decode() for k, v in fields.items()}
            for _, fields in self.client.xrange(stream)
        ]
