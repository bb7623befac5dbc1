"""PyFlink's JSON formats (`pyflink.datastream.formats.json`): a JSON object per record,
as a Row of the given row type."""

import json
from typing import ClassVar

from weir.common.row import Row
from weir.common.serialization import DeserializationSchema, SerializationSchema


class JsonRowDeserializationSchema(DeserializationSchema):
    """Bytes of a JSON object -> a Row of `type_info`'s fields (missing fields None, unless
    fail_on_missing_field). A record that is not such an object fails the job, naming
    the source position; with ignore_parse_errors it is skipped (returns None, as Flink)."""

    Builder: ClassVar["type[JsonRowDeserializationSchemaBuilder]"]  # (PyFlink's; set below)

    def __init__(self, type_info, fail_on_missing_field=False, ignore_parse_errors=False):
        self.type_info = type_info
        self.field_names = list(type_info.get_field_names())
        self.fail_on_missing_field = fail_on_missing_field
        self.ignore_parse_errors = ignore_parse_errors

    @staticmethod
    def builder() -> "JsonRowDeserializationSchemaBuilder":
        return JsonRowDeserializationSchemaBuilder()

    def deserialize(self, message: bytes):
        try:
            value = json.loads(message)
            if not isinstance(value, dict):
                raise ValueError(f"not a JSON object but a JSON {type(value).__name__}")
            missing = [name for name in self.field_names if name not in value]
            if missing and self.fail_on_missing_field:
                raise ValueError(f"field(s) {', '.join(missing)} missing")
            row = Row(**{name: value.get(name) for name in self.field_names})
            self.type_info.validate(row)
            return row
        except Exception:
            if self.ignore_parse_errors:
                return None
            raise


class JsonRowDeserializationSchemaBuilder:
    def __init__(self):
        self._type_info = None
        self._fail_on_missing = self._ignore_errors = False

    def type_info(self, type_info) -> "JsonRowDeserializationSchemaBuilder":
        self._type_info = type_info
        return self

    def fail_on_missing_field(self) -> "JsonRowDeserializationSchemaBuilder":
        self._fail_on_missing = True
        return self

    def ignore_parse_errors(self) -> "JsonRowDeserializationSchemaBuilder":
        self._ignore_errors = True
        return self

    def build(self) -> JsonRowDeserializationSchema:
        if self._type_info is None or not hasattr(self._type_info, "get_field_names"):
            raise ValueError(
                "JsonRowDeserializationSchema needs a row type: "
                ".type_info(Types.ROW_NAMED([...], [...]))"
            )
        return JsonRowDeserializationSchema(
            self._type_info, self._fail_on_missing, self._ignore_errors
        )


class JsonRowSerializationSchema(SerializationSchema):
    """A Row of the given row type -> the bytes of a JSON object of its fields."""

    Builder: ClassVar["type[JsonRowSerializationSchemaBuilder]"]  # (PyFlink's; set below)

    def __init__(self, type_info):
        self.type_info = type_info
        self.field_names = list(type_info.get_field_names())

    @staticmethod
    def builder() -> "JsonRowSerializationSchemaBuilder":
        return JsonRowSerializationSchemaBuilder()

    def serialize(self, element) -> bytes:
        self.type_info.validate(element)
        named = getattr(element, "get_field_names", lambda: None)() is not None
        values = element.as_dict() if named else dict(zip(self.field_names, element))
        return json.dumps(
            {name: values[name] for name in self.field_names}, separators=(",", ":")
        ).encode()


JsonRowDeserializationSchema.Builder = JsonRowDeserializationSchemaBuilder  # PyFlink's names


class JsonRowSerializationSchemaBuilder:
    def __init__(self):
        self._type_info = None

    def with_type_info(self, type_info) -> "JsonRowSerializationSchemaBuilder":
        self._type_info = type_info
        return self

    def build(self) -> JsonRowSerializationSchema:
        if self._type_info is None or not hasattr(self._type_info, "get_field_names"):
            raise ValueError(
                "JsonRowSerializationSchema needs a row type: "
                ".with_type_info(Types.ROW_NAMED([...], [...]))"
            )
        return JsonRowSerializationSchema(self._type_info)


JsonRowSerializationSchema.Builder = JsonRowSerializationSchemaBuilder
