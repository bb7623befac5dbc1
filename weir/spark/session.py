"""The SparkSession a job runs on: given, created by spark-submit, or an embedded local one."""

import logging
import os
import subprocess
import sys
import tempfile

from pyspark import SparkConf, SparkContext
from pyspark.java_gateway import launch_gateway
from pyspark.sql import SparkSession

from weir.spark import class_archive
from weir.spark.conf import (  # noqa: F401 (the names jobs and benches import from here)
    CHANGELOG_CHECKPOINTING,
    CHECKPOINT_FILE_MANAGER,
    DEFAULTS,
    DRIVER_JAVA_OPTIONS,
    ROCKSDB,
    SQL_COMPILERS,
    embedded_conf,
)
from weir.spark import source as spark_source
from weir.spark.spark_home import home_without_zips, launching_from, spark_home

_registered: set = set()
_made: set = set()  # (ids of the sessions weir made)
# Spark's own output (the JVM's log, its Python workers' chatter) goes to a file
# weir-spark-*.log in the temporary directory unless WEIR_SPARK_LOGS=1 sends it to stderr;
# standard output belongs to the job.
LOGS_TO_STDERR = "WEIR_SPARK_LOGS"


def _launch_quiet_jvm(conf: dict) -> None:
    """Starts Spark's JVM (as pyspark would) with its stdout and stderr in a log file, or
    on our stderr with WEIR_SPARK_LOGS=1: never on the job's standard output. The JVM
    starts from the archive of Spark's classes (weir.spark.class_archive) where there is
    one; otherwise one is recorded (by this JVM under `weir warm-up`, else by a `weir
    warm-up` started in the background as this process exits)."""
    if SparkContext._gateway is not None:
        return
    if os.environ.get(LOGS_TO_STDERR) == "1":
        target = sys.stderr
    else:
        fd, _ = tempfile.mkstemp(prefix="weir-spark-", suffix=".log")
        target = os.fdopen(fd, "ab")
    recording = class_archive.recording_conf()  # (under `weir warm-up`)
    conf = recording or conf
    home = home_without_zips()  # (None: pyspark's home as it is)
    archive = class_archive.for_embedded_jvm(conf, home or spark_home())
    option = archive.java_option() if archive is not None else None
    records = archive is not None and option is None and recording is not None and archive.claim()
    if records:
        option = archive.recording_option()
    try:
        gateway = _launch(_with_java_option(conf, option), target, home)
    except Exception:
        if option is None:
            raise
        # (an archive this JVM cannot start from: started again without it)
        archive.release() if records else archive.discard()
        gateway, option, records = _launch(conf, target, home), None, False
    if records:
        archive.record_at_exit(gateway.proc, _stop_spark)
    elif archive is not None and option is None:
        archive.record_later(conf)
    SparkContext._ensure_initialized(gateway=gateway)


def _stop_spark() -> None:
    if SparkContext._active_spark_context is not None:
        SparkContext._active_spark_context.stop()


def _launch(conf: dict, target, home):
    """launch_gateway, from `home` (weir.spark.spark_home: SPARK_HOME set for the JVM,
    which passes it on to Spark's Python processes, and unset again) unless it is None."""
    with launching_from(home):
        return launch_gateway(
            SparkConf(loadDefaults=False).setAll(list(conf.items())),
            popen_kwargs={"stdout": target, "stderr": target},
        )


def _with_java_option(conf: dict, option) -> dict:
    """`conf` with `option` first among the driver's Java options (the job's come after)."""
    if option is None:
        return conf
    key = DRIVER_JAVA_OPTIONS[0]
    return {**conf, key: " ".join(filter(None, [option, conf.get(key)]))}


def _quiet_py4j() -> None:
    """py4j logs its callback server's start at INFO, and a failing foreachBatch's traceback
    at ERROR: neither belongs on a job's stdout, even where the program configures logging
    at INFO (as PyFlink's examples do). A job's failure is raised as one clear error."""
    if os.environ.get(LOGS_TO_STDERR) != "1":
        for name in ("py4j", "py4j.java_gateway", "py4j.clientserver"):
            logging.getLogger(name).setLevel(logging.CRITICAL)


def _under_spark_submit() -> bool:
    return "PYSPARK_GATEWAY_PORT" in os.environ


def get_session(env, sql_job: bool = False) -> SparkSession:
    """The job's session: the environment's, or weir's embedded one (started by the
    first job; `sql_job`: a job that is Spark SQL from end to end)."""
    if env.spark_session is not None:
        spark = env.spark_session
    else:
        if sql_job and SparkContext._active_spark_context is None:
            env.spark_conf = {
                **env.spark_conf,
                DRIVER_JAVA_OPTIONS[0]: " ".join(
                    filter(None, [SQL_COMPILERS, env.spark_conf.get(DRIVER_JAVA_OPTIONS[0])])
                ),
            }
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
        _made.add(id(spark))
    _quiet_py4j()
    spark.conf.set("spark.sql.streaming.stateStore.providerClass", ROCKSDB)
    if id(spark) not in _registered:
        spark_source.register(spark)
        _registered.add(id(spark))
    return spark


def made_by_weir(spark) -> bool:
    """Whether `spark` is an embedded session weir made (not one handed to it)."""
    return id(spark) in _made


WORKER_NEEDS = ("weir", "pyspark", "pyarrow", "pandas", "cloudpickle")


def worker_python_error(spark, error: BaseException):
    """Why Spark's Python workers cannot run weir, where `error` says a module was missing
    and their interpreter (PYSPARK_PYTHON) indeed lacks one of what weir needs: one line
    naming the interpreter and what it lacks. None otherwise."""
    if "No module named" not in str(error):
        return None
    python = spark.sparkContext.pythonExec
    check = (
        "import importlib.util, sys; print(' '.join(n for n in sys.argv[1:] "
        "if importlib.util.find_spec(n) is None))"
    )
    try:
        done = subprocess.run(
            [python, "-c", check, *WORKER_NEEDS],
            capture_output=True,
            text=True,
            timeout=60,
            cwd=tempfile.gettempdir(),
        )
    except OSError as cannot:
        return (
            f"Spark's Python workers' interpreter {python} (PYSPARK_PYTHON) cannot be "
            f"started: {cannot.strerror or cannot}"
        )
    except subprocess.SubprocessError:  # (it did not answer in time: the error stands)
        return None
    lacking = done.stdout.split()
    if done.returncode != 0 or not lacking:
        return None
    return (
        f"Spark's Python workers run {python} (PYSPARK_PYTHON), which cannot import "
        f"{', '.join(lacking)}: set PYSPARK_PYTHON to an interpreter with weir installed "
        f"(this job's driver runs {sys.executable})"
    )


def is_local(spark) -> bool:
    """Whether `spark` runs on a local master (its workers beside the driver)."""
    return spark.conf.get("spark.master", "").startswith("local")
