"""PyFlink's CSV formats (weir reads CSV with FileSource.for_csv)
(`pyflink.datastream.formats.csv`): not in weir yet; each name raises
NotImplementedError."""

from weir.common.gaps import module_gaps

__getattr__ = module_gaps(__name__, "pyflink.datastream.formats.csv", [
    "CsvBulkWriters", "CsvReaderFormat", "CsvRowDeserializationSchema",
    "CsvRowSerializationSchema", "CsvSchema", "CsvSchemaBuilder"])
