"""The SparkSession a job runs on: given, created by spark-submit, or an embedded local one."""

import os
import sys

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
DEFAULTS = {
    "spark.ui.enabled": "false",
    "spark.ui.showConsoleProgress": "false",
    "spark.sql.streaming.stateStore.providerClass": ROCKSDB,
    "spark.sql.execution.arrow.pyspark.enabled": "true",
    "spark.driver.memory": "2g",
    CHECKPOINT_FILE_MANAGER[0]: CHECKPOINT_FILE_MANAGER[1],
}
_registered = set()


def _under_spark_submit() -> bool:
    return "PYSPARK_GATEWAY_PORT" in os.environ


def get_session(env) -> SparkSession:
    if env.spark_session is not None:
        spark = env.spark_session
    else:
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
        os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
        builder = SparkSession.builder.appName("weir")
        conf = dict(DEFAULTS)
        conf["spark.sql.shuffle.partitions"] = str(env.parallelism)
        conf.update(env.spark_conf)
        if not _under_spark_submit() and "spark.master" not in conf:
            conf["spark.master"] = "local[*]"
        for key, value in conf.items():
            builder = builder.config(key, value)
        spark = builder.getOrCreate()
        spark.sparkContext.setLogLevel(os.environ.get("WEIR_SPARK_LOG_LEVEL", "ERROR"))
    spark.conf.set("spark.sql.streaming.stateStore.providerClass", ROCKSDB)
    if id(spark) not in _registered:
        spark_source.register(spark)
        _registered.add(id(spark))
    return spark
