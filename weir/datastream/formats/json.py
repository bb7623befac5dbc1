"""PyFlink's JSON formats (weir reads JSON lines with FileSource.for_json_lines)
(`pyflink.datastream.formats.json`): not in weir yet; each name raises
NotImplementedError."""

from weir.common.gaps import module_gaps

__getattr__ = module_gaps(__name__, "pyflink.datastream.formats.json", [
    "JsonRowDeserializationSchema", "JsonRowSerializationSchema"])
