"""SQL type names as DataTypes: 'BIGINT', 'string', 'VARCHAR(10)', 'TIMESTAMP(3)',
'DECIMAL(10, 2)', 'ARRAY<INT>', 'MAP<STRING, INT>' (what DDL columns and PyFlink's string
result types say)."""

import re

from weir.table.types import DataTypes

_SIMPLE = {
    "TINYINT": DataTypes.TINYINT,
    "SMALLINT": DataTypes.SMALLINT,
    "INT": DataTypes.INT,
    "INTEGER": DataTypes.INT,
    "BIGINT": DataTypes.BIGINT,
    "FLOAT": DataTypes.FLOAT,
    "DOUBLE": DataTypes.DOUBLE,
    "REAL": DataTypes.FLOAT,
    "BOOLEAN": DataTypes.BOOLEAN,
    "STRING": DataTypes.STRING,
    "DATE": DataTypes.DATE,
}


# other spellings of the same types (sqlglot writes STRING as TEXT)
_SPELLINGS = {
    "DOUBLE PRECISION": "DOUBLE",
    "TEXT": "STRING",
    "TIMESTAMPLTZ": "TIMESTAMP_LTZ",
    "BOOL": "BOOLEAN",
}


def parse_type(text: str):
    """The DataType a SQL type name denotes; a name weir does not know fails here."""
    source = text.strip()
    upper = re.sub(r"\s+", " ", source.upper())
    nullable = True
    if upper.endswith(" NOT NULL"):
        upper, nullable = upper[:-9].strip(), False
    match = re.fullmatch(r"([A-Z_ ]+?)\s*(?:\((\d+)(?:\s*,\s*(\d+))?\))?", upper)
    array = re.fullmatch(r"ARRAY\s*<(.+)>", upper)
    if array:
        return DataTypes.ARRAY(parse_type(array[1]), nullable)
    mapping = re.fullmatch(r"MAP\s*<(.+)>", upper)
    if mapping:
        key, value = _split_top_level(source[source.index("<") + 1 : source.rindex(">")])
        return DataTypes.MAP(parse_type(key), parse_type(value), nullable)
    if not match:
        raise ValueError(f"unknown SQL type '{source}'")
    name, first, second = match[1].strip(), match[2], match[3]
    name = _SPELLINGS.get(name, name)
    if name in _SIMPLE and first is None:
        return _SIMPLE[name](nullable)
    if name in ("VARCHAR", "CHAR"):
        length = int(first) if first else (2147483647 if name == "VARCHAR" else 1)
        if name == "VARCHAR" and length == 2147483647:
            return DataTypes.STRING(nullable)
        return getattr(DataTypes, name)(length, nullable)
    if name in ("DECIMAL", "DEC", "NUMERIC"):
        return DataTypes.DECIMAL(int(first or 10), int(second or 0), nullable)
    if name in (
        "TIMESTAMP",
        "TIMESTAMP_LTZ",
        "TIMESTAMP WITH LOCAL TIME ZONE",
        "TIMESTAMP WITHOUT TIME ZONE",
    ):
        precision = int(first) if first else 6
        if "LTZ" in name or "LOCAL" in name:
            return DataTypes.TIMESTAMP_LTZ(precision, nullable)
        return DataTypes.TIMESTAMP(precision, nullable)
    raise ValueError(f"unknown SQL type '{source}'")


def _split_top_level(text: str):
    """A MAP's two type names, split at its comma outside any <...> or (...)."""
    depth = 0
    for index, char in enumerate(text):
        if char in "<(":
            depth += 1
        elif char in ">)":
            depth -= 1
        elif char == "," and depth == 0:
            return text[:index], text[index + 1 :]
    raise ValueError(f"MAP<{text}> needs a key type and a value type")
