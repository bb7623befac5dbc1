"""weir: Flink's DataStream model on Apache Spark."""

__version__ = "0.1.0"
