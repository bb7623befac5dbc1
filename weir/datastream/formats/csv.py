"""PyFlink's CSV row formats (`pyflink.datastream.formats.csv`): a Row of the given row
type as one CSV line, and back (for Kafka records and the like; weir reads CSV files
with FileSource.for_csv). A field is quoted only where it must be (it holds the
delimiter, the quote character or a line break), as Flink's Jackson-based writer does;
None is the null literal (empty by default)."""

import csv
import datetime
import decimal
import io
from typing import Optional

from weir.common.gaps import module_gaps
from weir.common.row import Row
from weir.common.serialization import DeserializationSchema, SerializationSchema

_PARSERS: dict = {  # a type name -> its parser
    "STRING": str,
    "CHAR": str,
    "BYTE": int,
    "SHORT": int,
    "INT": int,
    "LONG": int,
    "BIG_INT": int,
    "FLOAT": float,
    "DOUBLE": float,
    "BIG_DEC": decimal.Decimal,
    "BOOLEAN": lambda text: {"true": True, "false": False}[text.strip().lower()],
    "SQL_DATE": datetime.date.fromisoformat,
    "SQL_TIME": datetime.time.fromisoformat,
    "SQL_TIMESTAMP": lambda text: datetime.datetime.fromisoformat(text.replace("T", " ")),
}


def _row_type(type_info, schema: str):
    if not hasattr(type_info, "get_field_types"):
        raise ValueError(
            f"{schema} needs a row type (Types.ROW or Types.ROW_NAMED), got {type_info!r}"
        )
    return type_info


class _Options:
    def __init__(self):
        self.field_delimiter = ","
        self.quote_character = '"'
        self.quoting = True
        self.escape_character = None
        self.null_literal = ""
        self.array_element_delimiter = ";"
        self.allow_comments = False
        self.ignore_parse_errors = False

    def dialect(self) -> dict:
        return {
            "delimiter": self.field_delimiter,
            "quotechar": self.quote_character if self.quoting else None,
            "quoting": csv.QUOTE_MINIMAL if self.quoting else csv.QUOTE_NONE,
            "escapechar": self.escape_character,
            "lineterminator": "\n",
        }


class _Builder:
    """The settings both of PyFlink's CSV builders take."""

    _schema = ""  # the schema it builds, for errors

    def __init__(self, type_info):
        self._type_info = _row_type(type_info, self._schema)
        self._options = _Options()

    def set_field_delimiter(self, c: str):
        self._options.field_delimiter = c
        return self

    def set_quote_character(self, c: str):
        self._options.quote_character = c
        return self

    def set_escape_character(self, c: str):
        self._options.escape_character = c
        return self

    def set_null_literal(self, s: str):
        self._options.null_literal = s
        return self

    def set_array_element_delimiter(self, delimiter: str):
        self._options.array_element_delimiter = delimiter
        return self


class CsvRowSerializationSchema(SerializationSchema):
    """A Row -> its fields as one CSV line (without a line separator)."""

    def __init__(self, type_info, options: Optional[_Options] = None):
        self.type_info = _row_type(type_info, "CsvRowSerializationSchema")
        self.options = options or _Options()

    def serialize(self, element) -> bytes:
        self.type_info.validate(element)
        buffer = io.StringIO()
        writer = csv.writer(buffer, **self.options.dialect())
        writer.writerow([self._text(value) for value in element])
        return buffer.getvalue().rstrip("\n").encode()

    def _text(self, value) -> str:
        if value is None:
            return self.options.null_literal
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, (list, tuple)):
            return self.options.array_element_delimiter.join(map(self._text, value))
        return str(value)

    class Builder(_Builder):
        """PyFlink's CsvRowSerializationSchema.Builder(type_info)."""

        _schema = "CsvRowSerializationSchema"

        def enable_quote_character(self, enabled: bool):
            self._options.quoting = bool(enabled)
            return self

        def build(self) -> "CsvRowSerializationSchema":
            return CsvRowSerializationSchema(self._type_info, self._options)


class CsvRowDeserializationSchema(DeserializationSchema):
    """One CSV line -> a Row of the row type's fields, each parsed as its type (the null
    literal is None). A line that cannot be read fails the job naming the source position,
    or is skipped (None) with ignore_parse_errors."""

    def __init__(self, type_info, options: Optional[_Options] = None):
        self.type_info = _row_type(type_info, "CsvRowDeserializationSchema")
        self.options = options or _Options()
        self.names = list(type_info.get_field_names())
        self.parsers = [
            _PARSERS.get(getattr(t, "_name", None), str) for t in type_info.get_field_types()
        ]

    def deserialize(self, message: bytes):
        text = bytes(message).decode()
        if self.options.allow_comments and text.lstrip().startswith("#"):
            return None
        try:
            fields = next(csv.reader([text.rstrip("\r\n")], **self.options.dialect()))
            if len(fields) != len(self.names):
                raise ValueError(
                    f"{len(fields)} fields where the row type has {len(self.names)}: {text!r}"
                )
            values = [self._value(field, parse) for field, parse in zip(fields, self.parsers)]
            return Row(**dict(zip(self.names, values)))
        except Exception:
            if self.options.ignore_parse_errors:
                return None
            raise

    def _value(self, field: str, parse):
        """A field's value: None for the null literal (where one is set) and for an empty
        field of a type other than text."""
        null = self.options.null_literal
        if (null and field == null) or (field == "" and parse is not str):
            return None
        return parse(field)

    class Builder(_Builder):
        """PyFlink's CsvRowDeserializationSchema.Builder(type_info)."""

        _schema = "CsvRowDeserializationSchema"

        def set_allow_comments(self, allow_comments: bool):
            self._options.allow_comments = bool(allow_comments)
            return self

        def set_ignore_parse_errors(self, ignore_parse_errors: bool):
            self._options.ignore_parse_errors = bool(ignore_parse_errors)
            return self

        def build(self) -> "CsvRowDeserializationSchema":
            return CsvRowDeserializationSchema(self._type_info, self._options)


__getattr__ = module_gaps(
    __name__,
    "pyflink.datastream.formats.csv",
    ["CsvBulkWriters", "CsvReaderFormat", "CsvSchema", "CsvSchemaBuilder"],
)
