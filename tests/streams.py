"""Helpers of the end-to-end tests: a collecting sink and a timestamped source."""

from weir.common import Duration, WatermarkStrategy
from weir.datastream.connectors import DataGeneratorSource
from weir.runtime.sinks import CollectSink


def collect(stream) -> CollectSink:
    """A sink that keeps every record `stream` produces (`.results`)."""
    sink = CollectSink()
    stream._sink(sink, "collect")
    return sink


def stamped(env, records, per_batch=None):
    """`records` ((key, timestamp ms, ...) tuples) with their timestamps and a watermark
    right behind the largest: from a collection (one micro-batch), or `per_batch` records
    per micro-batch."""
    strategy = WatermarkStrategy.for_bounded_out_of_orderness(
        Duration.of_millis(0)
    ).with_timestamp_assigner(lambda r, ts: r[1])
    if per_batch is None:
        return env.from_collection(records).assign_timestamps_and_watermarks(strategy)
    source = DataGeneratorSource(
        records.__getitem__, count=len(records), max_records_per_batch=per_batch
    )
    return env.from_source(source, strategy, "generated")
