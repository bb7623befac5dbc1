"""``TypeInformation`` and the ``Types`` factory, mirroring ``pyflink.common.typeinfo``.

Each type can ``validate(value)`` (raising ``TypeError`` that names the exact
field path) and map itself to a pyarrow type with ``to_arrow_type()``.
``None`` is accepted for every type, except as an element of a
``PRIMITIVE_ARRAY``.
"""

from typing import Dict, List

from weir.common._typeinfo_base import (
    BASIC_NAMES,
    AtomicTypeInfo,
    BasicTypeInfo,
    PickledBytesTypeInfo,
    SqlTimeTypeInfo,
    TypeInformation,
)
from weir.common._typeinfo_composite import (
    BasicArrayTypeInfo,
    ListTypeInfo,
    MapTypeInfo,
    ObjectArrayTypeInfo,
    PrimitiveArrayTypeInfo,
    RowTypeInfo,
    TupleTypeInfo,
)

__all__ = [
    "TypeInformation",
    "BasicTypeInfo",
    "SqlTimeTypeInfo",
    "PickledBytesTypeInfo",
    "RowTypeInfo",
    "TupleTypeInfo",
    "ListTypeInfo",
    "MapTypeInfo",
    "PrimitiveArrayTypeInfo",
    "BasicArrayTypeInfo",
    "ObjectArrayTypeInfo",
    "Types",
]


# -- the Types factory ---------------------------------------------------

_INSTANCES: Dict[str, AtomicTypeInfo] = {}
for _n in BASIC_NAMES:
    _INSTANCES[_n] = BasicTypeInfo(_n)
for _n in ("SQL_DATE", "SQL_TIME", "SQL_TIMESTAMP"):
    _INSTANCES[_n] = SqlTimeTypeInfo(_n)
_INSTANCES["PICKLED_BYTE_ARRAY"] = PickledBytesTypeInfo("PICKLED_BYTE_ARRAY")
_INSTANCES["INSTANT"] = SqlTimeTypeInfo("INSTANT")
del _n


class Types:
    """Factory of ``TypeInformation`` with PyFlink's names (``Types.INT()``...)."""

    @staticmethod
    def STRING() -> TypeInformation:
        return _INSTANCES["STRING"]

    @staticmethod
    def BYTE() -> TypeInformation:
        return _INSTANCES["BYTE"]

    @staticmethod
    def BOOLEAN() -> TypeInformation:
        return _INSTANCES["BOOLEAN"]

    @staticmethod
    def SHORT() -> TypeInformation:
        return _INSTANCES["SHORT"]

    @staticmethod
    def INT() -> TypeInformation:
        return _INSTANCES["INT"]

    @staticmethod
    def LONG() -> TypeInformation:
        return _INSTANCES["LONG"]

    @staticmethod
    def FLOAT() -> TypeInformation:
        return _INSTANCES["FLOAT"]

    @staticmethod
    def DOUBLE() -> TypeInformation:
        return _INSTANCES["DOUBLE"]

    @staticmethod
    def CHAR() -> TypeInformation:
        return _INSTANCES["CHAR"]

    @staticmethod
    def BIG_INT() -> TypeInformation:
        return _INSTANCES["BIG_INT"]

    @staticmethod
    def BIG_DEC() -> TypeInformation:
        return _INSTANCES["BIG_DEC"]

    @staticmethod
    def SQL_DATE() -> TypeInformation:
        return _INSTANCES["SQL_DATE"]

    @staticmethod
    def SQL_TIME() -> TypeInformation:
        return _INSTANCES["SQL_TIME"]

    @staticmethod
    def SQL_TIMESTAMP() -> TypeInformation:
        return _INSTANCES["SQL_TIMESTAMP"]

    @staticmethod
    def INSTANT() -> TypeInformation:
        """weir.common.time.Instant values."""
        return _INSTANCES["INSTANT"]

    @staticmethod
    def PICKLED_BYTE_ARRAY() -> TypeInformation:
        return _INSTANCES["PICKLED_BYTE_ARRAY"]

    @staticmethod
    def ROW(field_types: List[TypeInformation]) -> RowTypeInfo:
        """A row with fields named ``f0``, ``f1``, ..."""
        return RowTypeInfo(field_types)

    @staticmethod
    def ROW_NAMED(field_names: List[str], field_types: List[TypeInformation]) -> RowTypeInfo:
        return RowTypeInfo(field_types, field_names)

    @staticmethod
    def TUPLE(field_types: List[TypeInformation]) -> TupleTypeInfo:
        return TupleTypeInfo(field_types)

    @staticmethod
    def PRIMITIVE_ARRAY(element_type: TypeInformation) -> PrimitiveArrayTypeInfo:
        return PrimitiveArrayTypeInfo(element_type)

    @staticmethod
    def BASIC_ARRAY(element_type: TypeInformation) -> BasicArrayTypeInfo:
        return BasicArrayTypeInfo(element_type)

    @staticmethod
    def OBJECT_ARRAY(element_type: TypeInformation) -> ObjectArrayTypeInfo:
        return ObjectArrayTypeInfo(element_type)

    @staticmethod
    def MAP(key_type_info: TypeInformation, value_type_info: TypeInformation) -> MapTypeInfo:
        return MapTypeInfo(key_type_info, value_type_info)

    @staticmethod
    def LIST(element_type_info: TypeInformation) -> ListTypeInfo:
        return ListTypeInfo(element_type_info)
