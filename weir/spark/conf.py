"""The configuration of the Spark that weir embeds (no pyspark here: `weir warm-up` and the
class archive read it before any JVM starts)."""

ROCKSDB = "org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider"
# Spark's default checkpoint file manager goes through Hadoop's FileContext, which on a
# local disk starts a `readlink` process (through jspawnhelper) for every file it renames:
# ~200 per 5-batch query (strace). The FileSystem-based manager writes the same files
# (a temporary file, then a rename) without them: YSB's 1M-event query took ~1.0 s less,
# on weir and on native Spark alike (5.48 -> 4.51 s and 3.15 -> 2.14 s, one session).
CHECKPOINT_FILE_MANAGER = (
    "spark.sql.streaming.checkpointFileManagerClass",
    "org.apache.spark.sql.execution.streaming.checkpointing.FileSystemBasedCheckpointFileManager",
)
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
# With C1 only, the JVM reserves 48 MB for compiled code instead of 240 MB, and a streaming
# query fills it: after a minute at 1,000 events/s the JVM said "CodeCache is full.
# Compiler has been disabled", the micro-batches around it took 2-3x the median, and all
# code compiled later would have run interpreted. So the cache keeps the tiered size.
DRIVER_JAVA_OPTIONS = (
    "spark.driver.extraJavaOptions",
    "-XX:TieredStopAtLevel=1 -XX:ReservedCodeCacheSize=240m",
)
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
