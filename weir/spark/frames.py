"""The stream frame: weir's wire rows (weir.runtime.wire) as Spark columns.

Records travel in bundles: one row carries a pickled bundle of records (weir.runtime.wire)
for one target operator input and key group. Spark's per-row costs (shuffle, Arrow
conversion, the row-by-row grouping of its Python state worker) are then paid per bundle,
not per record.
"""

import functools

from weir.runtime.wire import COLUMNS

STREAM_SCHEMA_DDL = "_to string, _in int, _kg int, _ctl string, _b binary, _ts long"
STREAM_COLUMNS = list(COLUMNS)


@functools.lru_cache(maxsize=1)
def arrow_schema():
    """The stream frame's Arrow schema. pyarrow is imported on first use: the driver-side
    process that Spark starts to plan a keyed operator's state imports this module, and
    needs no pyarrow."""
    import pyarrow as pa

    return pa.schema(
        [
            ("_to", pa.string()),
            ("_in", pa.int32()),
            ("_kg", pa.int32()),
            ("_ctl", pa.string()),
            ("_b", pa.binary()),
            ("_ts", pa.int64()),
        ]
    )


def to_batch(rows):
    """Wire rows as one Arrow record batch."""
    import pyarrow as pa

    columns = list(zip(*rows)) if rows else [()] * len(COLUMNS)
    schema = arrow_schema()
    arrays = [pa.array(column, field.type) for column, field in zip(columns, schema)]
    return pa.RecordBatch.from_arrays(arrays, schema=schema)
