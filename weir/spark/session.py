"""The SparkSession a job runs on: given, created by spark-submit, or an embedded local one."""

import logging
import os
import subprocess
import sys
import tempfile

from pyspark import SparkConf, SparkContext
from pyspark.java_gateway import launch_gateway
from pyspark.sql import SparkSession

from weir.spark import source as spark_source

ROCKSDB = "org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider"
# Spark's default checkpoint file manager goes through Hadoop's FileContext, which on a
# local disk starts a `readlink` process (through jspawnhelper) for every file it renames:
# ~200 per 5-batch query (strace). The FileSystem-based manager writes the same files
# (a temporary file, then a rename) without them: YSB's 1M-event query took ~1.0 s less,
# on weir and on native Spark alike (5.48 -> 4.51 s and 3.15 -> 2.14 s, one session).
CHECKPOINT_FILE_MANAGER = ("spark.sql.streaming.checkpointFileManagerClass",
                           "org.apache.spark.sql.execution.streaming.checkpointing."
                           "FileSystemBasedCheckpointFileManager")
# RocksDB's changelog checkpointing: a state store commit writes the batch's changes to a
# changelog file instead of a checkpoint of the whole store (flushed memtables, SST files
# copied to the checkpoint directory), and snapshots are made in the background. Each Spark
# stateful operator (one per shuffle stage) paid its commit in every micro-batch: the
# summed commit time of bench/latency.py's 50,000-event batches went from ~260 to ~130 ms
# (one keyed stage) and from ~580 to ~210 ms (two). Spark's guide says a query may switch
# it on or off across restarts (weir's tests run with it on throughout, as here). A session
# handed to weir (or spark-submit's) keeps its own configuration: set it there too.
CHANGELOG_CHECKPOINTING = "spark.sql.streaming.stateStore.rocksdb.changelogCheckpointing.enabled"
# The embedded JVM compiles with C1 only (no C2). Its own work in a weir job is small
# (moving record bundles, state calls), but Spark plans every micro-batch and C2 kept
# compiling Catalyst's planner: 1.3-3.4 s of CPU per 2M-event job in the compiler threads
# against ~0.5 s in the task threads, on 2 cores shared with the Python workers. With C1
# only, weir's side of the benches ran 7-28% faster (13-25% on most; docs/benchmarks.md),
# its p99 latency at 20,000 ev/s ~20% lower and the README's job ~9% faster. Native Spark
# SQL's per-record work runs in the JVM, and C1 slowed it by up to 30%: the benches run it
# in a JVM of its own on the default compilers (bench/engines.py). Java options a job sets
# for the driver come after these, so theirs win (`-XX:TieredStopAtLevel=4` brings C2 back).
DRIVER_JAVA_OPTIONS = ("spark.driver.extraJavaOptions", "-XX:TieredStopAtLevel=1")
DEFAULTS = {
    "spark.ui.enabled": "false",
    "spark.ui.showConsoleProgress": "false",
    "spark.sql.streaming.stateStore.providerClass": ROCKSDB,
    "spark.sql.execution.arrow.pyspark.enabled": "true",
    "spark.driver.memory": "2g",
    CHECKPOINT_FILE_MANAGER[0]: CHECKPOINT_FILE_MANAGER[1],
    CHANGELOG_CHECKPOINTING: "true",
    DRIVER_JAVA_OPTIONS[0]: DRIVER_JAVA_OPTIONS[1],
}
_registered = set()
# Spark's own output (the JVM's log, its Python workers' chatter) goes to a file
# weir-spark-*.log in the temporary directory unless WEIR_SPARK_LOGS=1 sends it to stderr;
# standard output belongs to the job.
LOGS_TO_STDERR = "WEIR_SPARK_LOGS"


def _launch_quiet_jvm(conf: dict) -> None:
    """Starts Spark's JVM (as pyspark would) with its stdout and stderr in a log file, or
    on our stderr with WEIR_SPARK_LOGS=1: never on the job's standard output."""
    if SparkContext._gateway is not None:
        return
    if os.environ.get(LOGS_TO_STDERR) == "1":
        target = sys.stderr
    else:
        fd, _ = tempfile.mkstemp(prefix="weir-spark-", suffix=".log")
        target = os.fdopen(fd, "ab")
    gateway = launch_gateway(SparkConf(loadDefaults=False).setAll(list(conf.items())),
                             popen_kwargs={"stdout": target, "stderr": target})
    SparkContext._ensure_initialized(gateway=gateway)


def _quiet_py4j() -> None:
    """py4j logs its callback server's start at INFO, and a failing foreachBatch's traceback
    at ERROR: neither belongs on a job's stdout, even where the program configures logging
    at INFO (as PyFlink's examples do). A job's failure is raised as one clear error."""
    if os.environ.get(LOGS_TO_STDERR) != "1":
        for name in ("py4j", "py4j.java_gateway", "py4j.clientserver"):
            logging.getLogger(name).setLevel(logging.CRITICAL)


def _under_spark_submit() -> bool:
    return "PYSPARK_GATEWAY_PORT" in os.environ


def embedded_conf(settings: dict, parallelism: int, under_spark_submit: bool) -> dict:
    """The configuration of a session weir creates: its defaults, then the job's settings
    (`settings`; Java options for the driver are added after weir's), on a local master
    unless spark-submit or the job names one."""
    conf = dict(DEFAULTS)
    conf["spark.sql.shuffle.partitions"] = str(parallelism)
    for key, value in settings.items():
        conf[key] = f"{conf[key]} {value}" if key == DRIVER_JAVA_OPTIONS[0] else value
    if not under_spark_submit and "spark.master" not in conf:
        conf["spark.master"] = "local[*]"
    return conf


# A job that is Spark SQL from end to end (a lowered Table job: weir.spark.native_job)
# does all its per-record work in the JVM, where C1 alone made Spark's JSON reading and
# SQL ~4x slower here (Nexmark q0 at 1,000,000 events: 2.5 s against 0.65 s): when such a
# job starts the embedded JVM, the JVM gets both compilers back.
SQL_COMPILERS = "-XX:TieredStopAtLevel=4"


def get_session(env, sql_job: bool = False) -> SparkSession:
    """The job's session: the environment's, or weir's embedded one (started by the
    first job; `sql_job`: a job that is Spark SQL from end to end)."""
    if env.spark_session is not None:
        spark = env.spark_session
    else:
        if sql_job and SparkContext._active_spark_context is None:
            env.spark_conf = {**env.spark_conf, DRIVER_JAVA_OPTIONS[0]: " ".join(filter(
                None, [SQL_COMPILERS, env.spark_conf.get(DRIVER_JAVA_OPTIONS[0])]))}
        python = getattr(getattr(env, "python_dependencies", None), "executable", None)
        if python:  # (set_python_executable: the workers' interpreter)
            os.environ["PYSPARK_PYTHON"] = python
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
        os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
        builder = SparkSession.builder.appName("weir")
        conf = embedded_conf(env.spark_conf, env.parallelism, _under_spark_submit())
        for key, value in conf.items():
            builder = builder.config(key, value)
        if not _under_spark_submit():
            _launch_quiet_jvm(conf)
        spark = builder.getOrCreate()
        spark.sparkContext.setLogLevel(os.environ.get("WEIR_SPARK_LOG_LEVEL", "ERROR"))
    _quiet_py4j()
    spark.conf.set("spark.sql.streaming.stateStore.providerClass", ROCKSDB)
    if id(spark) not in _registered:
        spark_source.register(spark)
        _registered.add(id(spark))
    return spark


WORKER_NEEDS = ("weir", "pyspark", "pyarrow", "pandas", "cloudpickle")


def worker_python_error(spark, error: BaseException):
    """Why Spark's Python workers cannot run weir, where `error` says a module was missing
    and their interpreter (PYSPARK_PYTHON) indeed lacks one of what weir needs: one line
    naming the interpreter and what it lacks. None otherwise."""
    if "No module named" not in str(error):
        return None
    python = spark.sparkContext.pythonExec
    check = ("import importlib.util, sys; print(' '.join(n for n in sys.argv[1:] "
             "if importlib.util.find_spec(n) is None))")
    try:
        done = subprocess.run([python, "-c", check, *WORKER_NEEDS], capture_output=True,
                              text=True, timeout=60, cwd=tempfile.gettempdir())
    except OSError as cannot:
        return (f"Spark's Python workers' interpreter {python} (PYSPARK_PYTHON) cannot be "
                f"started: {cannot.strerror or cannot}")
    lacking = done.stdout.split()
    if done.returncode != 0 or not lacking:
        return None
    return (f"Spark's Python workers run {python} (PYSPARK_PYTHON), which cannot import "
            f"{', '.join(lacking)}: set PYSPARK_PYTHON to an interpreter with weir installed "
            f"(this job's driver runs {sys.executable})")


def is_local(spark) -> bool:
    """Whether `spark` runs on a local master (its workers beside the driver)."""
    return spark.conf.get("spark.master", "").startswith("local")
