"""weir's sources as one Spark Python streaming data source.

The source reader travels in an option, pickled; offsets are the reader's JSON dicts, so a
restarted query replays exactly the records of the batches in its offset log.
"""

import base64
import itertools
from functools import partial
from operator import is_not

from pyspark import cloudpickle
from pyspark.sql.datasource import DataSource, DataSourceStreamReader, InputPartition
from pyspark.sql.streaming.datasource import SupportsTriggerAvailableNow

from weir.plan.operators import build_chain
from weir.runtime.chain import columns_of
from weir.runtime.gc_pause import freeze_long_lived, paused_gc
from weir.runtime.wire import AFTER_WATERMARK, make_seq
from weir.runtime.sources import END_SPLIT
from weir.spark.frames import (CLOCK_TAG, KEYED_SCHEMA_DDL, MAX_BUNDLE_RECORDS,
                               SEEN_TAG, STREAM_SCHEMA_DDL, WM_TAG, Bundler)

FORMAT = "weir"


def encode_reader(reader) -> str:
    return base64.b64encode(cloudpickle.dumps(reader)).decode("ascii")


def decode_reader(text: str):
    return cloudpickle.loads(base64.b64decode(text))


class WeirDataSource(DataSource):
    @classmethod
    def name(cls):
        return FORMAT

    def schema(self):
        return KEYED_SCHEMA_DDL if "grouper" in self.options else STREAM_SCHEMA_DDL

    def streamReader(self, schema):
        reader = decode_reader(self.options["reader"])
        reader.target_splits = int(self.options.get("target_splits", "1"))
        return WeirStreamReader(reader,
                                self.options.get("grouper"), int(self.options.get("ticks", "0")),
                                self.options.get("chains"))


class _Split(InputPartition):
    def __init__(self, split, first: bool):
        super().__init__(split)
        self.split = split
        self.first = first


class WeirStreamReader(DataSourceStreamReader, SupportsTriggerAvailableNow):
    """Reads a weir source reader's splits as bundles. With a key grouper (the source feeds
    a keyed operator directly), bundles are per key group and the first split of a batch
    also carries the operator's ticks.

    The key grouper and the chains stay encoded until records are read: the driver-side
    Python process that plans offsets and splits never unpickles the user's functions."""

    def __init__(self, reader, key_grouper=None, ticks: int = 0, chains=None):
        self.reader = reader
        self.encoded_grouper = key_grouper
        self.ticks = ticks
        self.encoded_chains = chains  # (nodes before the watermark, nodes after, uids, params)

    def prepareForTriggerAvailableNow(self):
        """Bounded readers end by themselves; availableNow is only used for them."""

    def initialOffset(self):
        return self.reader.initial_offset()

    def latestOffset(self, start=None, limit=None):
        return self.reader.latest_offset(start or self.reader.initial_offset())

    def partitions(self, start, end):
        splits = self.reader.splits(start, end)
        return [_Split(split, index == 0) for index, split in enumerate(splits)]

    def read(self, partition):
        """The split's bundles. The collector stays paused until the split is read: paused
        per chunk, re-enabling it made Python scan every row the file reader still held
        (py-spy on YSB: 34 of the source's 205 samples)."""
        freeze_long_lived()
        with paused_gc():
            yield from self._read(partition)

    def _read(self, partition):
        split = partition.split
        grouper = decode_reader(self.encoded_grouper) if self.encoded_grouper else None
        bundler = Bundler(keyed=grouper is not None)
        if split != END_SPLIT:
            self._add_script_controls(bundler, split, partition.first, grouper is not None)
        elif partition.first and self.ticks:
            bundler.add_ticks(self.ticks)
        if split == END_SPLIT:
            bundler.add_end()
            yield bundler.to_batch()
            return
        index, *bounds = split
        base = make_seq(AFTER_WATERMARK, index, 0)
        run_chains, chains = self._chain_runner(index)
        for values, stamps in _chunks(self.reader, bounds):
            if run_chains is not None:
                values, stamps = run_chains(values, stamps, bundler)
            groups = grouper.key_groups(values) if grouper else None
            bundler.add_all(None, groups, list(zip(itertools.count(base), values, stamps)))
            base += len(values)
            yield bundler.to_batch()
        for chain in chains:
            chain.close()
        if bundler.done:  # control rows of a split without records (ticks, a watermark)
            yield bundler.to_batch()

    def _chain_runner(self, subtask_index):
        """Runs the fused chains over (value, ts) items; None without chains. The largest
        timestamp before the second chain travels as a SEEN row, for the watermark."""
        if self.encoded_chains is None:
            return None, ()
        before_nodes, after_nodes, uids, parameters = decode_reader(self.encoded_chains)
        before, after = build_chain(before_nodes, uids), build_chain(after_nodes, uids)
        for chain in (before, after):
            chain.open(subtask_index=subtask_index, job_parameters=parameters)

        def run(values, stamps, bundler):
            values, stamps, _ = before.run_columns(values, stamps)
            seen = max(filter(partial(is_not, None), stamps), default=None)
            if seen is not None:
                bundler.add_control(SEEN_TAG, seen)
            # side outputs: nothing reads them in this shape
            values, stamps, _ = after.run_columns(values, stamps)
            return values, stamps
        return run, (before, after)

    def _add_script_controls(self, bundler, split, first, keyed):
        """Ticks; for a scripted source also its clock and the next batch's watermark."""
        scripted = hasattr(self.reader, "processing_time")
        clock = self.reader.processing_time(split) if scripted else None
        if first and self.ticks:
            bundler.add_ticks(self.ticks, clock)
        elif first and scripted and not keyed:
            bundler.add_control(CLOCK_TAG, clock)
        watermark = self.reader.announced_watermark(split) if scripted else None
        if watermark is not None:
            bundler.add_control(WM_TAG, watermark)

    def commit(self, end):
        pass


def _chunks(reader, bounds):
    """(values, timestamps) of a split, in chunks of at most MAX_BUNDLE_RECORDS."""
    if len(bounds) == 1:  # files: values without timestamps yet
        values = reader.file_values(*bounds)
        while chunk := list(itertools.islice(values, MAX_BUNDLE_RECORDS)):
            yield chunk, [None] * len(chunk)
        return
    pairs = reader.read(*bounds)
    while chunk := list(itertools.islice(pairs, MAX_BUNDLE_RECORDS)):
        yield columns_of(chunk)


def register(spark) -> None:
    spark.dataSource.register(WeirDataSource)


def read_stream(spark, reader, key_grouper=None, ticks: int = 0, chains=None):
    stream = (spark.readStream.format(FORMAT).option("reader", encode_reader(reader))
              .option("target_splits", spark.sparkContext.defaultParallelism))
    if key_grouper is not None:
        stream = stream.option("grouper", encode_reader(key_grouper)).option("ticks", ticks)
    if chains is not None:
        stream = stream.option("chains", encode_reader(chains))
    return stream.load()
