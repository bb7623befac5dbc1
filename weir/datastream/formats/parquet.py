"""PyFlink's Parquet formats (weir reads Parquet with FileSource.for_parquet)
(`pyflink.datastream.formats.parquet`): not in weir yet; each name raises
NotImplementedError."""

from weir.common.gaps import module_gaps

__getattr__ = module_gaps(__name__, "pyflink.datastream.formats.parquet", [
    "AvroParquetReaders", "AvroParquetWriters", "ParquetColumnarRowInputFormat",
    "ParquetBulkWriters"])
