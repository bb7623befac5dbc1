"""A keyed job writing JSON-lines files on a Spark cluster of 2 executor processes
(`local-cluster`), each record's part file in a bucket named after the process that
wrote it; once per number of records given, on one session, each job into a directory of
its own. Prints the driver's pid and its peak resident memory (MiB) after each job as JSON.

Arguments: output directory, then numbers of records."""

import json
import os
import resource
import sys

from pyspark.sql import SparkSession

from weir.common import WatermarkStrategy
from weir.datastream import StreamExecutionEnvironment
from weir.datastream.connectors import DataGeneratorSource, FileSink
from weir.spark.spark_home import home_without_zips, launching_from


class ByProcess:
    """Buckets each record by the process that writes it."""

    def get_bucket_id(self, element, context):
        return f"pid={os.getpid()}"


def main(output: str, counts: list[int]) -> None:
    os.environ["PYSPARK_PYTHON"] = sys.executable
    # (as weir's sessions start: Spark's Python processes import pyspark with its bytecode)
    with launching_from(home_without_zips()):
        spark = (
            SparkSession.builder.master("local-cluster[2,1,1024]")
            .appName("cluster-sink")
            .config("spark.ui.enabled", "false")
            .config("spark.ui.showConsoleProgress", "false")
            .config("spark.sql.shuffle.partitions", "4")
            .getOrCreate()
        )
    spark.sparkContext.setLogLevel("ERROR")
    peaks = []
    for records in counts:
        run_job(spark, records, os.path.join(output, str(records)))
        peaks.append(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    print(json.dumps({"driver_pid": os.getpid(), "driver_peak_mib": peaks}))
    spark.stop()


def run_job(spark: SparkSession, records: int, output: str) -> None:
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_spark_session(spark).set_parallelism(4)
    source = DataGeneratorSource(
        lambda i: (f"k{i % 1000}", i, "x" * 1400), count=records, max_records_per_batch=records // 4
    )
    (
        env.from_source(source, WatermarkStrategy.no_watermarks(), "events")
        .key_by(lambda event: event[0])
        .map(lambda event: {"key": event[0], "i": event[1], "pad": event[2]})
        .sink_to(FileSink.for_json_lines(output).with_bucket_assigner(ByProcess()).build())
    )
    env.execute("cluster-sink")


if __name__ == "__main__":
    main(sys.argv[1], [int(count) for count in sys.argv[2:]])
