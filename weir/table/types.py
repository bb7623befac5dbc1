"""DataTypes: the SQL types of a table's columns (PyFlink's `DataTypes`).

A DataType knows its name, its DataStream type (for datagen and conversions), its
parameters (length, precision, scale, row fields, element type) and whether it is
nullable; `str()` is Flink's summary string (`BIGINT`, `CHAR(1) NOT NULL`,
`ROW<\\`id\\` BIGINT>`), what print_schema() and explain() show.
"""

from weir.common.typeinfo import Types

_INTEGERS = {"TINYINT": 8, "SMALLINT": 16, "INT": 32, "BIGINT": 64}
NUMERIC = ("TINYINT", "SMALLINT", "INT", "BIGINT", "FLOAT", "DOUBLE", "DECIMAL")


class DataType:
    """A column's SQL type."""

    def __init__(
        self,
        name: str,
        type_info,
        length=None,
        nullable=True,
        precision=None,
        scale=None,
        fields=None,
        element=None,
        key=None,
    ):
        self.name = name
        self.type_info = type_info
        self.length = length
        self._nullable = nullable
        self.precision, self.scale = precision, scale
        self.fields = fields  # ROW: [DataTypeField]
        self.element = element  # ARRAY: the element type; MAP: the value type
        self.key = key  # MAP: the key type

    def _copy(self, nullable: bool) -> "DataType":
        return DataType(
            self.name,
            self.type_info,
            self.length,
            nullable,
            self.precision,
            self.scale,
            self.fields,
            self.element,
            self.key,
        )

    def not_null(self) -> "DataType":
        return self._copy(False)

    def nullable(self) -> "DataType":
        return self._copy(True)

    @property
    def is_nullable(self) -> bool:
        return self._nullable

    @property
    def bits(self):
        """The width of an integer type, else None."""
        return _INTEGERS.get(self.name)

    def field_names(self):
        return [f.name for f in self.fields or []]

    def __eq__(self, other):
        return isinstance(other, DataType) and str(self) == str(other)

    def __hash__(self):
        return hash(str(self))

    def __str__(self):
        if self.name == "ROW":
            inner = ", ".join(f"`{f.name}` {f.data_type}" for f in self.fields)
            body = f"ROW<{inner}>"
        elif self.name == "ARRAY":
            body = f"ARRAY<{self.element}>"
        elif self.name == "MAP":
            body = f"MAP<{self.key}, {self.element}>"
        elif self.name == "DECIMAL":
            body = f"DECIMAL({self.precision}, {self.scale})"
        elif self.name in ("TIMESTAMP", "TIMESTAMP_LTZ"):
            body = "TIMESTAMP" if self.name == "TIMESTAMP" else "TIMESTAMP_LTZ"
            body += f"({self.precision})"
        elif self.name == "VARCHAR" and self.length == 2147483647:
            body = "STRING"
        else:
            body = self.name + ("" if self.length is None else f"({self.length})")
        return body + ("" if self._nullable else " NOT NULL")

    __repr__ = __str__


class DataTypeField:
    """A field of a ROW type: DataTypes.FIELD(name, type)."""

    def __init__(self, name: str, data_type: DataType, description=None):
        if not isinstance(data_type, DataType):
            raise TypeError(f"field '{name}' needs a DataTypes type, got {data_type!r}")
        self.name, self.data_type, self.description = name, data_type, description


def _text(name: str, length, nullable):
    if length is not None and (not isinstance(length, int) or length < 1):
        raise ValueError(f"{name} length must be a positive int, got {length!r}")
    return DataType(name, Types.STRING(), length, nullable)


class DataTypes:
    """PyFlink's DataTypes."""

    @staticmethod
    def TINYINT(nullable=True):
        return DataType("TINYINT", Types.BYTE(), None, nullable)

    @staticmethod
    def SMALLINT(nullable=True):
        return DataType("SMALLINT", Types.SHORT(), None, nullable)

    @staticmethod
    def INT(nullable=True):
        return DataType("INT", Types.INT(), None, nullable)

    @staticmethod
    def BIGINT(nullable=True):
        return DataType("BIGINT", Types.LONG(), None, nullable)

    @staticmethod
    def FLOAT(nullable=True):
        return DataType("FLOAT", Types.FLOAT(), None, nullable)

    @staticmethod
    def DOUBLE(nullable=True):
        return DataType("DOUBLE", Types.DOUBLE(), None, nullable)

    @staticmethod
    def DECIMAL(precision=10, scale=0, nullable=True):
        return DataType("DECIMAL", Types.BIG_DEC(), None, nullable, precision, scale)

    @staticmethod
    def BOOLEAN(nullable=True):
        return DataType("BOOLEAN", Types.BOOLEAN(), None, nullable)

    @staticmethod
    def STRING(nullable=True):
        return DataType("STRING", Types.STRING(), None, nullable)

    @staticmethod
    def VARCHAR(length: int, nullable=True):
        return _text("VARCHAR", length, nullable)

    @staticmethod
    def CHAR(length: int, nullable=True):
        return _text("CHAR", length, nullable)

    @staticmethod
    def DATE(nullable=True):
        return DataType("DATE", Types.SQL_DATE(), None, nullable)

    @staticmethod
    def TIMESTAMP(precision=6, nullable=True):
        return DataType("TIMESTAMP", Types.SQL_TIMESTAMP(), None, nullable, precision)

    @staticmethod
    def TIMESTAMP_LTZ(precision=6, nullable=True):
        return DataType("TIMESTAMP_LTZ", Types.SQL_TIMESTAMP(), None, nullable, precision)

    TIMESTAMP_WITH_LOCAL_TIME_ZONE = TIMESTAMP_LTZ

    @staticmethod
    def INTERVAL(nullable=False):
        """A day-time interval (a literal's: INTERVAL '10' SECOND)."""
        return DataType("INTERVAL", None, None, nullable)

    @staticmethod
    def ARRAY(element_type: DataType, nullable=True):
        return DataType(
            "ARRAY", Types.LIST(element_type.type_info), None, nullable, element=element_type
        )

    @staticmethod
    def MAP(key_type: DataType, value_type: DataType, nullable=True):
        return DataType(
            "MAP",
            Types.MAP(key_type.type_info, value_type.type_info),
            None,
            nullable,
            element=value_type,
            key=key_type,
        )

    @staticmethod
    def FIELD(name: str, data_type: DataType, description=None) -> DataTypeField:
        return DataTypeField(name, data_type, description)

    @staticmethod
    def ROW(row_fields=(), nullable=True):
        fields = list(row_fields)
        info = Types.ROW_NAMED([f.name for f in fields], [f.data_type.type_info for f in fields])
        return DataType("ROW", info, None, nullable, fields=fields)


def print_width(data_type: DataType, max_width: int = 30) -> int:
    """The width Flink's tableau printing gives a column of this type in streaming mode
    (before the column name and `<NULL>` widen it)."""
    name = data_type.name
    fixed = {"TINYINT": 4, "SMALLINT": 6, "INT": 11, "BIGINT": 20, "BOOLEAN": 5, "DATE": 10}
    if name in fixed:
        return fixed[name]
    if name == "DECIMAL":
        return data_type.precision + 2
    if name in ("TIMESTAMP", "TIMESTAMP_LTZ"):
        return 19 if data_type.precision == 0 else data_type.precision + 20
    return max_width
