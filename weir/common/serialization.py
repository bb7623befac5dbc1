"""String (de)serialization helpers, mirroring ``pyflink.common.serialization``."""

import codecs
from typing import Any, Optional

from weir.common._typeinfo_base import TypeInformation
from weir.common.flink_text import flink_text
from weir.common.gaps import module_gaps

__all__ = ["SerializationSchema", "DeserializationSchema", "SimpleStringSchema", "Encoder"]


def _check_charset(charset: str) -> str:
    if not isinstance(charset, str):
        raise TypeError("charset must be a str, got %s %r" % (type(charset).__name__, charset))
    try:
        codecs.lookup(charset)
    except LookupError:
        raise ValueError("unknown charset %r" % (charset,)) from None
    return charset


class SerializationSchema:
    """Turns a record into bytes."""

    def serialize(self, element: Any) -> bytes:
        raise NotImplementedError


class DeserializationSchema:
    """Turns bytes into a record."""

    def deserialize(self, message: bytes) -> Any:
        raise NotImplementedError


class SimpleStringSchema(SerializationSchema, DeserializationSchema):
    """Encodes ``str`` records as bytes in ``charset`` (default UTF-8)."""

    def __init__(self, charset: str = "UTF-8") -> None:
        self._charset = _check_charset(charset)

    @property
    def charset(self) -> str:
        return self._charset

    def serialize(self, element: str) -> bytes:
        if not isinstance(element, str):
            raise TypeError(
                "SimpleStringSchema.serialize expects a str, got %s %r"
                % (type(element).__name__, element)
            )
        return element.encode(self._charset)

    def deserialize(self, message: bytes) -> str:
        if not isinstance(message, (bytes, bytearray, memoryview)):
            raise TypeError(
                "SimpleStringSchema.deserialize expects bytes, got %s %r"
                % (type(message).__name__, message)
            )
        return bytes(message).decode(self._charset)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SimpleStringSchema):
            return NotImplemented
        return codecs.lookup(self._charset).name == codecs.lookup(other._charset).name

    def __hash__(self) -> int:
        return hash(("SimpleStringSchema", codecs.lookup(self._charset).name))

    def __repr__(self) -> str:
        return "SimpleStringSchema(%r)" % (self._charset,)


class Encoder:
    """Writes records of a file sink; see ``simple_string_encoder``."""

    def __init__(self, charset: str = "UTF-8") -> None:
        self._charset = _check_charset(charset)

    @staticmethod
    def simple_string_encoder(charset_name: str = "UTF-8") -> "Encoder":
        """Each record becomes its text (as print() writes it) followed by a newline."""
        return Encoder(charset_name)

    def encode(self, value: Any, type_info: Optional[TypeInformation] = None) -> bytes:
        """The record's text as Flink writes it (Java's toString of a typed record, see
        flink_text), and a newline."""
        return flink_text(value, type_info).encode(self._charset) + b"\n"

    def __repr__(self) -> str:
        return "Encoder.simple_string_encoder(%r)" % (self._charset,)


class ByteArraySchema(SerializationSchema, DeserializationSchema):
    """Records that are bytes, as they are (PyFlink's ByteArraySchema)."""

    def serialize(self, element: Any) -> bytes:
        if not isinstance(element, (bytes, bytearray, memoryview)):
            raise TypeError(
                "ByteArraySchema.serialize expects bytes, got %s %r"
                % (type(element).__name__, element)
            )
        return bytes(element)

    def deserialize(self, message: bytes) -> bytes:
        return bytes(message)

    def __repr__(self) -> str:
        return "ByteArraySchema()"


class RowFieldExtractorSchema(SerializationSchema):
    """One field of a Row, which must be bytes, as the record's bytes (e.g. a Kafka key
    from field 0 and the value from field 1)."""

    def __init__(self, field_index: int) -> None:
        if not isinstance(field_index, int) or field_index < 0:
            raise ValueError("field_index must be a non-negative int, got %r" % (field_index,))
        self.field_index = field_index

    def serialize(self, element: Any) -> bytes:
        try:
            field = element[self.field_index]
        except (IndexError, TypeError):
            raise ValueError(
                "RowFieldExtractorSchema(%d): the record %r has no field %d"
                % (self.field_index, element, self.field_index)
            ) from None
        if not isinstance(field, (bytes, bytearray, memoryview)):
            raise TypeError(
                "RowFieldExtractorSchema(%d) expects the field to be bytes, got "
                "%s %r" % (self.field_index, type(field).__name__, field)
            )
        return bytes(field)

    def __repr__(self) -> str:
        return "RowFieldExtractorSchema(%d)" % (self.field_index,)


__all__ += ["ByteArraySchema", "RowFieldExtractorSchema"]
__getattr__ = module_gaps(__name__, "pyflink.common.serialization", ["BulkWriterFactory"])
