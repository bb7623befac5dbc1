"""Spark's own data sources as weir sinks (weir's addition): SparkSink("parquet",
{"path": ...}), SparkSink.table(name). Sources are env.from_spark(dataframe)."""

from weir.runtime.connectors.spark_interop import SparkSink  # noqa: F401

__all__ = ["SparkSink"]
