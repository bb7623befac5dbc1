"""PyFlink's Avro formats (`pyflink.datastream.formats.avro`): not in weir yet; each name
raises NotImplementedError."""

from weir.common.gaps import module_gaps

__getattr__ = module_gaps(__name__, "pyflink.datastream.formats.avro", [
    "AvroBulkWriters", "AvroInputFormat", "AvroRowDeserializationSchema",
    "AvroRowSerializationSchema", "AvroSchema", "GenericRecordAvroTypeInfo"])
