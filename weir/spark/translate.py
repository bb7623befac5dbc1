"""Translates a job's plan nodes into one streaming DataFrame per sink."""

from pyspark.sql import functions as F

from weir.plan import graph as g
from weir.runtime.wire import END_OF_INPUT_TS, METRIC_PREFIX
from weir.spark import source as spark_source
from weir.spark.frames import (CLOCK_TAG, END_TAG, KEYED_SCHEMA_DDL, SEEN_TAG,
                               STREAM_SCHEMA_DDL, WM_TAG)
from weir.spark.host import KeyGroupHost
from weir.spark.udfs import KeyGrouper, chain_function


def _main(frame):
    """Main output, end of input, a scripted clock and metrics of a node's stream."""
    tag = F.col("_tag")
    return frame.filter(tag.isNull() | tag.isin(END_TAG, CLOCK_TAG) | _is_metric(tag))


def _is_metric(tag):
    return tag.startswith(METRIC_PREFIX)


def _with_watermark(frame, delay_ms: int, data_timestamps: bool):
    is_end = F.col("_tag") == F.lit(END_TAG)
    data_ts = F.col("_ts") if data_timestamps else F.lit(None).cast("long")
    is_data = F.col("_tag").isNull() | (F.col("_tag") == F.lit(SEEN_TAG))
    event_ms = (F.when(is_end, F.lit(END_OF_INPUT_TS))
                .when(F.col("_tag") == F.lit(WM_TAG), F.col("_ts"))
                .when(is_data, data_ts))
    # The watermark column is dropped right away: Spark then tracks the watermark but does
    # not filter late rows before stateful operators, so weir's operators see them.
    return (frame.withColumn("_wm", F.timestamp_millis(event_ms))
            .withWatermark("_wm", f"{delay_ms} milliseconds").drop("_wm"))


class Translation:
    def __init__(self, spark, env, nodes):
        self.spark = spark
        self.env = env
        self.nodes = nodes
        self.by_id = {n.id: n for n in nodes}
        self.uids = g.assign_uids(nodes)
        self.implicit = set(g.sources_without_watermarks(nodes))

    def frame(self, node_id):
        """A fresh frame per consumer. Spark plans a stream read by several consumers once
        per consumer anyway; reusing one frame object would give the copies one shared
        watermark node, and Spark then gives all but one copy no watermark."""
        return self._translate(self.by_id[node_id])

    def _translate(self, node):
        method = getattr(self, "_" + node.kind)
        return method(node)

    def _source(self, node, key_grouper=None, ticks=0):
        frame = spark_source.read_stream(self.spark, node.param("reader"), key_grouper, ticks)
        if node.id in self.implicit:
            frame = _with_watermark(frame, 0, data_timestamps=False)
        return frame

    def _consumers(self, node_id):
        return [n for n in self.nodes if node_id in n.inputs]

    def _chain_ending_at(self, node):
        """`node` and the stateless nodes before it that feed only it: one fused chain."""
        chain = [node]
        while True:
            upstream = self.by_id[chain[0].inputs[0]]
            if upstream.kind != g.STATELESS or len(self._consumers(upstream.id)) != 1:
                return chain
            chain.insert(0, upstream)

    def _stateless(self, node):
        chain = self._chain_ending_at(node)
        source = _main(self.frame(chain[0].inputs[0]))
        return source.mapInArrow(chain_function(chain, self.uids, self.env.job_parameters),
                                 STREAM_SCHEMA_DDL)

    def _watermark(self, node, frame=None):
        strategy = node.param("strategy")
        # Without data watermarks only control records (end of input, a scripted source's
        # watermark) move the watermark, and they carry it exactly.
        delay = (strategy.out_of_orderness_ms or 0) + 1 if strategy.emits_watermarks else 0
        data_watermarks = strategy.emits_watermarks and not self.env.is_batch_mode()
        frame = self.frame(node.inputs[0]) if frame is None else frame
        return _with_watermark(frame, delay, data_watermarks)

    def _keyed_source(self, node, key_grouper, ticks):
        """The frame of a source feeding `node` directly (through watermark nodes only),
        with key groups assigned by the source itself; None if there is no such source."""
        watermarks, upstream = [], self.by_id[node.inputs[0]]
        while upstream.kind == g.WATERMARK and len(self._consumers(upstream.id)) == 1:
            watermarks.insert(0, upstream)
            upstream = self.by_id[upstream.inputs[0]]
        if upstream.kind != g.SOURCE or len(self._consumers(upstream.id)) != 1:
            return None
        frame = self._source(upstream, key_grouper, ticks)
        for watermark in watermarks:
            frame = self._watermark(watermark, frame)
        return frame

    def _single_consumer(self, node_id) -> bool:
        return len(self._consumers(node_id)) == 1

    def _fused_source(self, node, chain, grouper, ticks):
        """source -> stateless* -> watermark -> stateless (`chain`) -> `node`, every node
        read only by the next: the source runs both chains and groups keys itself, so the
        records cross into Python once before the shuffle. None for other shapes."""
        watermark = self.by_id[chain[0].inputs[0]]
        if watermark.kind != g.WATERMARK or not self._single_consumer(watermark.id):
            return None
        before, upstream = [], self.by_id[watermark.inputs[0]]
        while upstream.kind == g.STATELESS and self._single_consumer(upstream.id):
            before.insert(0, upstream)
            upstream = self.by_id[upstream.inputs[0]]
        if upstream.kind != g.SOURCE or not self._single_consumer(upstream.id):
            return None
        chains = (before, chain, self.uids, self.env.job_parameters)
        frame = spark_source.read_stream(self.spark, upstream.param("reader"), grouper, ticks,
                                         chains)
        return self._watermark(watermark, frame)

    def _keyed(self, node):
        upstream = self.by_id[node.inputs[0]]
        chain = []
        if upstream.kind == g.STATELESS and len(self._consumers(upstream.id)) == 1:
            chain = self._chain_ending_at(upstream)
            upstream = self.by_id[chain[0].inputs[0]]
        grouper = KeyGrouper(node.param("key_selector"), self.env.max_parallelism,
                             self.uids[node.id])
        function = node.param("function")
        wakes = hasattr(function, "on_timer") and getattr(function, "needs_processing_time", True)
        ticks = self.env.max_parallelism if wakes else 0
        direct = None if chain else self._keyed_source(node, grouper, ticks)
        if chain:
            direct = self._fused_source(node, chain, grouper, ticks)
        if direct is not None:
            # The source assigns key groups itself: no Python hop between it and the shuffle.
            # Its frame holds only main records, the end marker and ticks: nothing to filter.
            grouped = direct
        else:
            grouped = _main(self.frame(upstream.id)).mapInArrow(
                chain_function(chain, self.uids, self.env.job_parameters, grouper, ticks),
                KEYED_SCHEMA_DDL)
        host = KeyGroupHost(node, self.uids[node.id], self.env.max_parallelism,
                            self.env.parallelism, self.env.job_parameters)
        # Spark's row-based form: a key group's input and output are a few bundle rows, for
        # which pandas frames cost more than the rows themselves (~0.5 ms per key group).
        return grouped.groupBy("_kg").transformWithState(
            statefulProcessor=host, outputStructType=STREAM_SCHEMA_DDL, outputMode="Append",
            timeMode="EventTime")

    def _union(self, node):
        frames = [self.frame(i) for i in node.inputs]
        result = frames[0]
        for frame in frames[1:]:
            result = result.unionByName(frame)
        return result

    def _side_output(self, node):
        tag_id = node.param("tag_id")
        tag = F.col("_tag")
        frame = self.frame(node.inputs[0]).filter((tag == F.lit(tag_id)) | (tag == END_TAG)
                                                  | _is_metric(tag))
        return frame.withColumn("_tag", F.when(tag == F.lit(tag_id), F.lit(None)).otherwise(tag))

    def sink_frame(self, sinks):
        """One frame of every sink's records, tagged with the sink's index in `_sink`."""
        tag = F.col("_tag")
        frames = [_main(self.frame(s.inputs[0])).filter(tag.isNull() | _is_metric(tag))
                  .select("_b", "_ts", "_tag", F.lit(i).alias("_sink"))
                  for i, s in enumerate(sinks)]
        result = frames[0]
        for frame in frames[1:]:
            result = result.unionByName(frame)
        return result
