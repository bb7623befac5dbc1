import pytest

from weir.common import Encoder, Row, SimpleStringSchema


def test_simple_string_schema_round_trip_utf8():
    schema = SimpleStringSchema()
    assert schema.serialize("héllo") == b"h\xc3\xa9llo"
    assert schema.deserialize(b"h\xc3\xa9llo") == "héllo"


def test_simple_string_schema_other_charset():
    schema = SimpleStringSchema("latin-1")
    assert schema.serialize("é") == b"\xe9"
    assert schema.deserialize(bytearray(b"\xe9")) == "é"
    assert repr(schema) == "SimpleStringSchema('latin-1')"


def test_simple_string_schema_errors():
    with pytest.raises(ValueError, match="unknown charset 'nope'"):
        SimpleStringSchema("nope")
    with pytest.raises(TypeError, match="serialize expects a str, got int 1"):
        SimpleStringSchema().serialize(1)
    with pytest.raises(TypeError, match="deserialize expects bytes, got str 'a'"):
        SimpleStringSchema().deserialize("a")


def test_simple_string_encoder():
    encoder = Encoder.simple_string_encoder()
    assert encoder.encode("a") == b"a\n"
    assert encoder.encode(12) == b"12\n"
    assert encoder.encode(Row(id=1)) == b"Row(id=1)\n"
    assert Encoder.simple_string_encoder("utf-16-le").encode("a") == b"a\x00\n"
