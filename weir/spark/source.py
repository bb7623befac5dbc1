"""weir's sources as one Spark Python streaming data source.

The source reader travels in an option, pickled; offsets are the reader's JSON dicts, so a
restarted query replays exactly the records of the batches in its offset log.
"""

import base64
import itertools

from pyspark import cloudpickle
from pyspark.sql.datasource import DataSource, DataSourceStreamReader, InputPartition
from pyspark.sql.streaming.datasource import SupportsTriggerAvailableNow

from weir.runtime.records import AFTER_WATERMARK, make_seq
from weir.runtime.sources import END_SPLIT
from weir.spark.frames import MAX_BUNDLE_RECORDS, STREAM_SCHEMA_DDL, Bundler

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
        return STREAM_SCHEMA_DDL

    def streamReader(self, schema):
        return WeirStreamReader(decode_reader(self.options["reader"]))


class _Split(InputPartition):
    def __init__(self, split):
        super().__init__(split)
        self.split = split


class WeirStreamReader(DataSourceStreamReader, SupportsTriggerAvailableNow):
    def __init__(self, reader):
        self.reader = reader

    def prepareForTriggerAvailableNow(self):
        """Bounded readers end by themselves; availableNow is only used for them."""

    def initialOffset(self):
        return self.reader.initial_offset()

    def latestOffset(self, start=None, limit=None):
        return self.reader.latest_offset(start or self.reader.initial_offset())

    def partitions(self, start, end):
        return [_Split(split) for split in self.reader.splits(start, end)]

    def read(self, partition):
        split = partition.split
        bundler = Bundler()
        if split == END_SPLIT:
            bundler.add_end()
            yield bundler.to_batch()
            return
        index, *bounds = split
        reader = self.reader
        rows = reader.read_files(*bounds) if len(bounds) == 1 else reader.read(*bounds)
        base = make_seq(AFTER_WATERMARK, index, 0)
        chunk = list(itertools.islice(rows, MAX_BUNDLE_RECORDS))
        while chunk:
            bundler.add_all(None, None, [(base + i, value, ts)
                                         for i, (value, ts) in enumerate(chunk)])
            base += len(chunk)
            yield bundler.to_batch()
            chunk = list(itertools.islice(rows, MAX_BUNDLE_RECORDS))

    def commit(self, end):
        pass


def register(spark) -> None:
    spark.dataSource.register(WeirDataSource)


def read_stream(spark, reader):
    return spark.readStream.format(FORMAT).option("reader", encode_reader(reader)).load()
