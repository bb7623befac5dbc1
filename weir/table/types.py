"""DataTypes: the SQL types of a table's columns, as far as weir's tables go (datagen)."""

from weir.common.typeinfo import Types

_INTEGERS = {"TINYINT": 8, "SMALLINT": 16, "INT": 32, "BIGINT": 64}


class DataType:
    """A column's SQL type: its name, its DataStream type and, for text, a length."""

    def __init__(self, name: str, type_info, length=None, nullable=True):
        self.name = name
        self.type_info = type_info
        self.length = length
        self._nullable = nullable

    def not_null(self) -> "DataType":
        return DataType(self.name, self.type_info, self.length, False)

    def nullable(self) -> "DataType":
        return DataType(self.name, self.type_info, self.length, True)

    @property
    def bits(self):
        """The width of an integer type, else None."""
        return _INTEGERS.get(self.name)

    def __repr__(self):
        size = "" if self.length is None else f"({self.length})"
        return f"{self.name}{size}{'' if self._nullable else ' NOT NULL'}"


def _text(name: str, length, nullable):
    if length is not None and (not isinstance(length, int) or length < 1):
        raise ValueError(f"{name} length must be a positive int, got {length!r}")
    return DataType(name, Types.STRING(), length, nullable)


class DataTypes:
    """PyFlink's DataTypes for the types weir's datagen tables generate."""

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
