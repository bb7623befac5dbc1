"""PyFlink's Parquet formats (`pyflink.datastream.formats.parquet`): the bulk writer
for FileSink (weir reads Parquet with FileSource.for_parquet); the other names raise
NotImplementedError."""

from weir.common.gaps import module_gaps


class ParquetBulkWriters:
    """Bulk writers of Parquet part files for `FileSink.for_bulk_format`."""

    def __init__(self, row_type):
        self.fmt = "parquet"
        self.row_type = row_type

    @staticmethod
    def for_row_type(
        row_type, hadoop_config=None, utc_timestamp: bool = False
    ) -> "ParquetBulkWriters":
        """Rows of `row_type` (a RowTypeInfo). Hadoop settings are not used: weir writes
        with pyarrow."""
        if not hasattr(row_type, "get_field_names"):
            raise TypeError(
                "ParquetBulkWriters.for_row_type() expects a row type (Types.ROW_NAMED(...))"
            )
        return ParquetBulkWriters(row_type)


__getattr__ = module_gaps(
    __name__,
    "pyflink.datastream.formats.parquet",
    ["AvroParquetReaders", "AvroParquetWriters", "ParquetColumnarRowInputFormat"],
)
