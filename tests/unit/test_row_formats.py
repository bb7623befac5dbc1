"""PyFlink's row formats for Kafka records (no Spark): CSV and Avro rows, ByteArraySchema
and RowFieldExtractorSchema, the JSON schemas' Builder names."""

import pytest

from weir.common import ByteArraySchema, Row, Types
from weir.common.serialization import RowFieldExtractorSchema
from weir.datastream.formats.avro import AvroRowDeserializationSchema, AvroRowSerializationSchema
from weir.datastream.formats.csv import CsvRowDeserializationSchema, CsvRowSerializationSchema
from weir.datastream.formats.json import JsonRowDeserializationSchema, JsonRowSerializationSchema

ROW = Types.ROW([Types.INT(), Types.STRING(), Types.DOUBLE(), Types.BOOLEAN()])
SCHEMA = (
    '{"type": "record", "name": "R", "fields": [{"name": "id", "type": "int"}, '
    '{"name": "name", "type": "string"}, {"name": "blob", "type": "bytes"}]}'
)


def test_csv_rows_are_quoted_only_where_needed_and_read_back_typed():
    writer = CsvRowSerializationSchema.Builder(ROW).build()
    reader = CsvRowDeserializationSchema.Builder(ROW).build()
    line = writer.serialize(Row(1, 'say "hi", then', 2.5, True))
    assert line == b'1,"say ""hi"", then",2.5,true'
    assert reader.deserialize(line) == Row(f0=1, f1='say "hi", then', f2=2.5, f3=True)
    assert writer.serialize((2, "plain", None, False)) == b"2,plain,,false"
    assert reader.deserialize(b"2,plain,,false") == Row(f0=2, f1="plain", f2=None, f3=False)


def test_csv_settings_and_bad_lines():
    reader = (
        CsvRowDeserializationSchema.Builder(ROW)
        .set_field_delimiter("|")
        .set_null_literal("NULL")
        .set_allow_comments(True)
        .build()
    )
    assert reader.deserialize(b"3|NULL|1|FALSE") == Row(f0=3, f1=None, f2=1.0, f3=False)
    assert reader.deserialize(b"# a comment") is None
    with pytest.raises(ValueError, match="3 fields where the row type has 4"):
        reader.deserialize(b"1|a|2")
    lenient = CsvRowDeserializationSchema.Builder(ROW).set_ignore_parse_errors(True).build()
    assert lenient.deserialize(b"x,a,1,true") is None
    with pytest.raises(ValueError, match="needs a row type"):
        CsvRowSerializationSchema.Builder(Types.STRING())


def test_avro_rows_round_trip_in_avros_binary_encoding():
    writer = AvroRowSerializationSchema(avro_schema_string=SCHEMA)
    reader = AvroRowDeserializationSchema(avro_schema_string=SCHEMA)
    encoded = writer.serialize(Row(7, "hi", b"\x00\x01"))
    assert encoded == b"\x0e\x04hi\x04\x00\x01"  # zig-zag 7, "hi", 2 bytes: no header
    assert reader.deserialize(encoded) == Row(id=7, name="hi", blob=b"\x00\x01")
    assert writer.serialize({"id": 7, "name": "hi", "blob": b"\x00\x01"}) == encoded
    assert reader.type_info == Types.ROW_NAMED(
        ["id", "name", "blob"], [Types.INT(), Types.STRING(), Types.PRIMITIVE_ARRAY(Types.BYTE())]
    )
    with pytest.raises(NotImplementedError, match="record_class"):
        AvroRowSerializationSchema(record_class="com.example.Record")


def test_bytes_schemas_and_json_builders():
    assert ByteArraySchema().serialize(b"ab") == b"ab"
    assert ByteArraySchema().deserialize(b"ab") == b"ab"
    with pytest.raises(TypeError, match="expects bytes"):
        ByteArraySchema().serialize("ab")
    assert RowFieldExtractorSchema(1).serialize(Row(b"k", b"v")) == b"v"
    with pytest.raises(TypeError, match=r"RowFieldExtractorSchema\(0\) expects the field"):
        RowFieldExtractorSchema(0).serialize(Row("k", b"v"))
    row = Types.ROW([Types.INT(), Types.STRING()])
    json_writer = JsonRowSerializationSchema.Builder().with_type_info(row).build()
    assert json_writer.serialize(Row(1, "hi")) == b'{"f0":1,"f1":"hi"}'
    json_reader = JsonRowDeserializationSchema.Builder().type_info(row).build()
    assert json_reader.deserialize(b'{"f0":1,"f1":"hi"}') == Row(f0=1, f1="hi")


def test_avro_rows_of_an_unnamed_row_type_go_by_position():
    writer = AvroRowSerializationSchema(avro_schema_string=SCHEMA)
    row = Types.ROW([Types.INT(), Types.STRING(), Types.PRIMITIVE_ARRAY(Types.BYTE())]).convert(
        (7, "hi", b"\x00\x01"), "row"
    )
    assert row.get_field_names() == ["f0", "f1", "f2"]
    assert writer.serialize(row) == b"\x0e\x04hi\x04\x00\x01"
