"""Shared fixtures: one SparkSession for the whole test session."""

import os
import sys

import pytest

os.environ["PYSPARK_PYTHON"] = sys.executable
os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
# Jobs the tests start in processes of their own use the archive of Spark's classes that
# `weir warm-up` (scripts/setup.sh) recorded, but never record one in the background
# (weir.spark.class_archive): no process outlives the tests.
os.environ.setdefault("WEIR_CLASS_ARCHIVE", "use")


@pytest.fixture(scope="session")
def spark():
    from pyspark.sql import SparkSession
    from weir.spark.session import (
        CHANGELOG_CHECKPOINTING,
        CHECKPOINT_FILE_MANAGER,
        DRIVER_JAVA_OPTIONS,
        ROCKSDB,
    )
    from weir.spark.spark_home import home_without_zips, launching_from

    # Spark's Python processes import the installed pyspark with its bytecode, not
    # pyspark.zip, as in weir's embedded sessions (weir.spark.spark_home): a query's
    # planner processes then start in a fraction of the time
    with launching_from(home_without_zips()):
        session = (
            SparkSession.builder.master("local[2]")
            .appName("weir-tests")
            .config("spark.ui.enabled", "false")
            .config("spark.ui.showConsoleProgress", "false")
            .config("spark.sql.shuffle.partitions", "2")
            .config("spark.sql.streaming.stateStore.providerClass", ROCKSDB)
            .config("spark.driver.memory", "2g")
            .config(*CHECKPOINT_FILE_MANAGER)  # as weir's embedded sessions
            .config(CHANGELOG_CHECKPOINTING, "true")  # as weir's embedded sessions
            .config(*DRIVER_JAVA_OPTIONS)  # as weir's embedded sessions: C1 only
            .getOrCreate()
        )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


@pytest.fixture
def run_program(spark, monkeypatch, capsys):
    """Runs a program file as `__main__` in this process (on the shared Spark session,
    whose settings it leaves as they were); returns its standard output."""
    import runpy

    saved = spark.conf.get("spark.sql.shuffle.partitions")

    def run(path, *args):
        monkeypatch.setattr(sys, "argv", [os.path.basename(path), *args])
        capsys.readouterr()
        try:
            runpy.run_path(path, run_name="__main__")
        finally:
            spark.conf.set("spark.sql.shuffle.partitions", saved)
        return capsys.readouterr().out

    return run


@pytest.fixture
def run_program_locally(monkeypatch, capsys):
    """Runs a program file as `__main__` in this process on the in-process executor;
    returns its standard output."""
    import runpy
    from weir.datastream import StreamExecutionEnvironment

    def local_environment(configuration=None):
        return StreamExecutionEnvironment(configuration).set_executor("local")

    def run(path, *args):
        monkeypatch.setattr(
            StreamExecutionEnvironment, "get_execution_environment", staticmethod(local_environment)
        )
        monkeypatch.setattr(sys, "argv", [os.path.basename(path), *args])
        capsys.readouterr()
        runpy.run_path(path, run_name="__main__")
        return capsys.readouterr().out

    return run


@pytest.fixture
def spark_env(spark):
    """A StreamExecutionEnvironment that runs on the shared SparkSession."""
    from weir.datastream import StreamExecutionEnvironment

    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_spark_session(spark).set_parallelism(2)
    return env


@pytest.fixture
def local_env():
    """A StreamExecutionEnvironment that runs on the in-process runner (no Spark)."""
    from weir.datastream import StreamExecutionEnvironment

    return StreamExecutionEnvironment.get_execution_environment().set_executor("local")


@pytest.fixture(params=["local", "spark"])
def any_env(request):
    """Runs a test on both engines: the differential oracle."""
    return request.getfixturevalue("local_env" if request.param == "local" else "spark_env")


@pytest.fixture(scope="session")
def kafka_broker(tmp_path_factory):
    """A real Kafka-protocol broker (Tansu) on a loopback port, for the whole session."""
    from tests.servers.kafka import Broker

    broker = Broker(str(tmp_path_factory.mktemp("tansu") / "broker.log"))
    yield broker
    from weir.runtime.connectors import kafka_clients

    kafka_clients.close_clients()  # this process's clients (in-process executor)
    broker.stop()


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory):
    """A real Redis server (/usr/bin/redis-server) on a loopback port, for the whole
    session."""
    from tests.servers.redis import RedisServer

    server = RedisServer(str(tmp_path_factory.mktemp("redis")))
    yield server
    from weir.runtime.connectors import redis_clients

    redis_clients.close_clients()  # this process's clients (in-process executor)
    server.stop()


@pytest.fixture(scope="session")
def postgres_server():
    """A private PostgreSQL cluster (initdb + pg_ctl) on a loopback port, for the session."""
    from tests.servers.postgres import Postgres

    server = Postgres()
    yield server
    from weir.runtime.connectors import postgres_clients

    postgres_clients.close_connections()  # this process's connections (in-process executor)
    server.stop()


# The files that take longest (minutes each on 2 cores), longest first. The whole suite
# runs on two workers (run_tests.sh: pytest-xdist, one file to a worker at a time); a long
# file handed out last would leave one worker busy alone at the end.
SLOWEST_FILES = (
    "test_recovery.py",
    "test_fault_injection.py",
    "test_savepoints.py",
    "test_table_programs.py",
    "test_cli.py",
    "test_nexmark.py",
    "test_cluster_sink.py",
    "test_pyflink_examples.py",
    "test_cep_jobs.py",
)


def _slowest_first(item) -> int:
    name = item.path.name
    return SLOWEST_FILES.index(name) if name in SLOWEST_FILES else len(SLOWEST_FILES)


def pytest_collection_modifyitems(items):
    """The slowest files first (each file's tests stay together and in order). Tests that
    start Spark get the `spark` marker from the fixtures they use (`spark`, directly or
    through `spark_env`, `run_program`, or `any_env`'s spark run), so `-m "not spark"`
    leaves them out; tests/unit starts none (tests/unit/conftest.py)."""
    items.sort(key=_slowest_first)
    for item in items:
        names = getattr(item, "fixturenames", ())
        callspec = getattr(item, "callspec", None)
        if "spark" in names or (callspec is not None and callspec.params.get("any_env") == "spark"):
            item.add_marker(pytest.mark.spark)
