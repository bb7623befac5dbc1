"""PyFlink's Avro row formats (`pyflink.datastream.formats.avro`): a Row as one Avro record
in Avro's binary encoding, without a container or a schema registry's header (as Flink's
AvroRowSerializationSchema writes it), and back; the record's fields are the Row's, in the
schema's order. fastavro does the encoding (`pip install 'weir[avro]'`)."""

import io
import json
from typing import Any, Optional

from weir.common.gaps import module_gaps
from weir.common.row import Row
from weir.common.serialization import DeserializationSchema, SerializationSchema


def _parsed(avro_schema_string: Optional[str], record_class):
    if record_class is not None:
        raise NotImplementedError(
            "PyFlink's Avro schemas of a Java record_class are not in weir: pass avro_schema_string"
        )
    if not isinstance(avro_schema_string, str):
        raise TypeError(
            "an Avro row schema needs avro_schema_string (the record's Avro schema as JSON)"
        )
    try:
        import fastavro
    except ImportError:
        raise ImportError("Avro formats need fastavro: pip install 'weir[avro]'") from None
    # (a schema that is not a JSON object fails in .get: AttributeError)
    schema: Any = fastavro.parse_schema(json.loads(avro_schema_string))
    if schema.get("type") != "record":
        raise ValueError(
            f"an Avro row schema must be a record schema, got type {schema.get('type')!r}"
        )
    return schema


def _row_type(schema: dict):
    """The row type of an Avro record schema (fields of other Avro types are pickled)."""
    from weir.common import Types

    simple = {
        "int": Types.INT,
        "long": Types.LONG,
        "string": Types.STRING,
        "float": Types.FLOAT,
        "double": Types.DOUBLE,
        "boolean": Types.BOOLEAN,
    }
    types: list = []
    for field in schema["fields"]:
        kind = field["type"]
        if kind == "bytes":
            types.append(Types.PRIMITIVE_ARRAY(Types.BYTE()))
        else:
            types.append(simple.get(kind, Types.PICKLED_BYTE_ARRAY)())
    return Types.ROW_NAMED([field["name"] for field in schema["fields"]], types)


class AvroRowSerializationSchema(SerializationSchema):
    """A Row (or tuple, dict) -> the binary encoding of an Avro record of the schema."""

    def __init__(
        self, record_class: Optional[str] = None, avro_schema_string: Optional[str] = None
    ):
        self.avro_schema_string = avro_schema_string
        self.schema = _parsed(avro_schema_string, record_class)
        self.names = [field["name"] for field in self.schema["fields"]]

    def serialize(self, element) -> bytes:
        import fastavro

        names = element.get_field_names() if isinstance(element, Row) else None
        if isinstance(element, dict):
            record = element
        elif names is not None and set(self.names) <= set(names):
            record = element.as_dict()
        else:  # by position (a Row of Types.ROW's f0, f1, ..., a tuple)
            record = dict(zip(self.names, element))
        buffer = io.BytesIO()
        fastavro.schemaless_writer(buffer, self.schema, record)
        return buffer.getvalue()

    def __getstate__(self):
        return {"avro_schema_string": self.avro_schema_string}

    def __setstate__(self, state):
        self.__init__(avro_schema_string=state["avro_schema_string"])  # type: ignore[misc]  # (its own class)


class AvroRowDeserializationSchema(DeserializationSchema):
    """The binary encoding of an Avro record of the schema -> a Row of its fields."""

    def __init__(
        self, record_class: Optional[str] = None, avro_schema_string: Optional[str] = None
    ):
        self.avro_schema_string = avro_schema_string
        self.schema = _parsed(avro_schema_string, record_class)
        self.type_info = _row_type(self.schema)

    def deserialize(self, message: bytes):
        import fastavro

        # (a record schema's reader gives a dict)
        return Row(
            **fastavro.schemaless_reader(
                io.BytesIO(bytes(message)),
                self.schema,  # type: ignore[arg-type]
                None,
            )
        )

    def __getstate__(self):
        return {"avro_schema_string": self.avro_schema_string}

    def __setstate__(self, state):
        self.__init__(avro_schema_string=state["avro_schema_string"])  # type: ignore[misc]  # (its own class)


__getattr__ = module_gaps(
    __name__,
    "pyflink.datastream.formats.avro",
    ["AvroBulkWriters", "AvroInputFormat", "AvroSchema", "GenericRecordAvroTypeInfo"],
)
