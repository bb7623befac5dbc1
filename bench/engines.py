"""Each side of a bench in a process of its own, with its own SparkSession and JVM, each
configured as it ships.

A bench calls `engines.native(fn, *args)` and `engines.weir(fn, *args)`, which run
`fn(spark, *args)` in that side's process and return its result: the sides take turns,
as before, but no longer share a JVM, so each runs with its own settings.

  native  Spark's JVM defaults (C1 and C2 compilers), with the Spark settings weir's
          embedded sessions choose that help Spark's own queries too: the FileSystem-based
          checkpoint file manager and RocksDB's changelog checkpointing (Spark's, one
          setting each; they made native YSB ~1.0 s faster per query, so native is never
          handicapped by Spark's defaults where weir is not).
  weir    weir's embedded session (weir.spark.session.DEFAULTS): the same two settings, a
          JVM compiling with C1 only (13-25% faster for weir, up to 30% slower for native
          Spark SQL: docs/benchmarks.md), started from pyspark's home without its zips
          (weir.spark.spark_home: Spark's Python processes import pyspark with its bytecode).

Both: keyed_state.make_session's local[2], shuffle partitions 2, RocksDB state store and
4 GB of driver memory. `fn` must be a module-level function (it is pickled by name); its
arguments and result travel through a pipe (the timing is taken inside `fn`).
"""

import multiprocessing
import sys
import traceback

from weir.spark.session import (
    CHANGELOG_CHECKPOINTING,
    CHECKPOINT_FILE_MANAGER,
    DEFAULTS,
    DRIVER_JAVA_OPTIONS,
)

AS_SHIPPED = "each side in its own process, as it ships (bench/engines.py)"  # for headers
SPARK_SETTINGS = {
    CHECKPOINT_FILE_MANAGER[0]: CHECKPOINT_FILE_MANAGER[1],
    CHANGELOG_CHECKPOINTING: DEFAULTS[CHANGELOG_CHECKPOINTING],
}
NATIVE_CONF = dict(SPARK_SETTINGS)
WEIR_CONF = {**SPARK_SETTINGS, DRIVER_JAVA_OPTIONS[0]: DRIVER_JAVA_OPTIONS[1]}


class BenchSideError(RuntimeError):
    """A bench function failed in a side's process (its traceback is the message)."""


class Engine:
    """A process holding one SparkSession, running the bench functions it is sent."""

    def __init__(self, name: str, conf: dict, weir_home: bool = False):
        context = multiprocessing.get_context("spawn")
        self.name = name
        self._conn, child = context.Pipe()
        self._process = context.Process(
            target=_serve, args=(conf, child, weir_home), daemon=True, name=f"bench-{name}"
        )
        self._process.start()
        child.close()

    def __call__(self, fn, *args):
        self._conn.send((fn, args))
        status, value = self._conn.recv()
        if status != "ok":
            raise BenchSideError(f"{self.name} side failed:\n{value}")
        return value

    def close(self) -> None:
        if self._process.is_alive():
            try:
                self._conn.send(None)
            except OSError:
                pass
            self._process.join(120)
        if self._process.is_alive():
            self._process.kill()


class Engines:
    """The two sides of a bench, each in its own process (`close()` stops both)."""

    def __init__(self):
        self.native = Engine("native", NATIVE_CONF)
        self.weir = Engine("weir", WEIR_CONF, weir_home=True)

    def close(self) -> None:
        self.native.close()
        self.weir.close()


def _serve(conf: dict, conn, weir_home: bool) -> None:
    from keyed_state import make_session

    from weir.spark.spark_home import home_without_zips, launching_from

    with launching_from(home_without_zips() if weir_home else None):
        spark = make_session(conf)
    try:
        while True:
            message = conn.recv()
            if message is None:
                break
            fn, args = message
            try:
                result = ("ok", fn(spark, *args))
            except BaseException:  # noqa: B902 - reported to the bench, which stops
                result = ("error", traceback.format_exc())
            conn.send(result)
            sys.stdout.flush()
    finally:
        spark.stop()
