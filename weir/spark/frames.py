"""The stream frame: the columns every weir stream has on Spark, and Arrow helpers."""

import pickle

import pyarrow as pa

END_TAG = "\x00end"
STREAM_SCHEMA_DDL = "_v binary, _ts long, _seq long, _tag string"
ARROW_SCHEMA = pa.schema([("_v", pa.binary()), ("_ts", pa.int64()), ("_seq", pa.int64()),
                          ("_tag", pa.string())])


def dumps(value) -> bytes:
    return pickle.dumps(value, protocol=5)


loads = pickle.loads


def to_record_batch(values, timestamps, seqs, tags) -> pa.RecordBatch:
    return pa.RecordBatch.from_arrays(
        [pa.array(values, pa.binary()), pa.array(timestamps, pa.int64()),
         pa.array(seqs, pa.int64()), pa.array(tags, pa.string())], schema=ARROW_SCHEMA)


def stream_columns(batch: pa.RecordBatch):
    """(values as bytes, timestamps, seqs, tags) as Python lists."""
    return (batch.column("_v").to_pylist(), batch.column("_ts").to_pylist(),
            batch.column("_seq").to_pylist(), batch.column("_tag").to_pylist())
