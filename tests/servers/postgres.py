"""A private PostgreSQL cluster for tests: initdb + pg_ctl from Debian's packages
(/usr/lib/postgresql/<newest>/bin), trust authentication, listening on a free loopback port
with its unix socket in its own temporary directory; durability settings off (tests need
speed, not crash safety). initdb refuses to run as root: as root, the cluster runs as the
`postgres` system user (created by Debian's package), in a directory that user owns."""

import glob
import os
import pwd
import shutil
import subprocess
import tempfile
import uuid

from tests.servers import free_port

SUPERUSER = "postgres"
SETTINGS = [
    "-c",
    "listen_addresses=127.0.0.1",
    "-c",
    "fsync=off",
    "-c",
    "synchronous_commit=off",
    "-c",
    "full_page_writes=off",
    "-c",
    "max_connections=200",
]


def postgres_bin() -> str:
    """The bin directory of the newest PostgreSQL installed."""
    found = sorted(
        glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"), key=lambda path: int(path.split("/")[4])
    )
    if not found:
        raise RuntimeError(
            "no PostgreSQL in /usr/lib/postgresql/*/bin: run scripts/setup_test_servers.sh"
        )
    return os.path.dirname(found[-1])


class Postgres:
    """A cluster of its own; `create_database()` gives each test a fresh database."""

    def __init__(self):
        self.bin = postgres_bin()
        self.port = free_port()
        self.directory = tempfile.mkdtemp(prefix="weir-pg-")
        self.as_postgres = os.geteuid() == 0
        if self.as_postgres:
            user = pwd.getpwnam("postgres")
            os.chown(self.directory, user.pw_uid, user.pw_gid)
        self.data = os.path.join(self.directory, "data")
        self.log = os.path.join(self.directory, "server.log")
        self._run(
            "initdb",
            "-D",
            self.data,
            "-U",
            SUPERUSER,
            "-A",
            "trust",
            "-E",
            "UTF8",
            "--locale=C",
            "--no-sync",
        )
        options = " ".join(
            [*SETTINGS, "-p", str(self.port), "-c", f"unix_socket_directories={self.directory}"]
        )
        self._run(
            "pg_ctl", "-D", self.data, "-l", self.log, "-o", options, "-w", "-t", "60", "start"
        )

    def _run(self, program: str, *args: str) -> None:
        command = [os.path.join(self.bin, program), *args]
        if self.as_postgres:
            command = ["runuser", "-u", "postgres", "--", *command]
        result = subprocess.run(command, capture_output=True, text=True, timeout=120)
        if result.returncode:
            raise RuntimeError(
                f"{program} failed ({result.returncode}): {result.stderr}{self._log_tail()}"
            )

    def _log_tail(self) -> str:
        if not os.path.exists(self.log):
            return ""
        with open(self.log) as log:
            return "\nserver log:\n" + "".join(log.readlines()[-20:])

    def stop(self) -> None:
        try:
            self._run("pg_ctl", "-D", self.data, "-m", "immediate", "-w", "stop")
        finally:
            shutil.rmtree(self.directory, ignore_errors=True)

    # -- helpers tests use ----------------------------------------------------------------
    def dsn(self, database: str = "postgres") -> str:
        return f"host=127.0.0.1 port={self.port} dbname={database} user={SUPERUSER}"

    def jdbc_url(self, database: str = "postgres") -> str:
        return f"jdbc:postgresql://127.0.0.1:{self.port}/{database}"

    def execute(self, sql: str, database: str = "postgres") -> None:
        import psycopg

        with psycopg.connect(self.dsn(database), autocommit=True) as connection:
            connection.execute(sql)

    def query(self, sql: str, database: str = "postgres") -> list:
        """The rows of `sql`, as tuples."""
        import psycopg

        with psycopg.connect(self.dsn(database), autocommit=True) as connection:
            return [tuple(row) for row in connection.execute(sql).fetchall()]

    def create_database(self) -> "Database":
        name = f"test_{uuid.uuid4().hex[:12]}"
        self.execute(f"CREATE DATABASE {name}")
        return Database(self, name)


class Database:
    """One fresh database of a Postgres cluster."""

    def __init__(self, server: Postgres, name: str):
        self.server = server
        self.name = name
        self.dsn = server.dsn(name)
        self.jdbc_url = server.jdbc_url(name)

    def execute(self, sql: str) -> None:
        self.server.execute(sql, self.name)

    def query(self, sql: str) -> list:
        return self.server.query(sql, self.name)
