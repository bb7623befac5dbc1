"""Composite types (rows, tuples, lists, maps, arrays) of ``weir.common.typeinfo``."""

from typing import Any, List, Optional, Sequence

from weir.common._typeinfo_base import (
    BASIC_NAMES,
    PRIMITIVE_NAMES,
    BasicTypeInfo,
    TypeInformation,
    describe,
    mismatch,
    where,
)
from weir.common.row import Row


def _check_types(factory: str, types: Any) -> List[TypeInformation]:
    if not isinstance(types, (list, tuple)):
        raise TypeError("%s expects a list of TypeInformation, got %s" % (factory, describe(types)))
    for i, t in enumerate(types):
        _check_type("%s field_types[%d]" % (factory, i), t)
    return list(types)


def _check_type(what: str, t: Any) -> TypeInformation:
    if isinstance(t, TypeInformation):
        return t
    hint = ""
    name = getattr(t, "__name__", "")
    if callable(t) and getattr(t, "__qualname__", None) == "Types." + name:
        hint = " (did you mean Types.%s()?)" % name
    raise TypeError("%s must be a TypeInformation, got %s%s" % (what, describe(t), hint))


def _check_arity(path: str, field: Optional[str], expected: str, n: int, value: Any) -> None:
    if len(value) != n:
        raise mismatch(
            path,
            field,
            "%s with %s" % (expected, _fields(n)),
            value,
            " which has %s" % _fields(len(value)),
        )


def _fields(n: int) -> str:
    return "%d field%s" % (n, "" if n == 1 else "s")


class RowTypeInfo(TypeInformation):
    """A ``Row`` with typed fields (``Types.ROW`` / ``Types.ROW_NAMED``)."""

    def __init__(
        self, field_types: Sequence[TypeInformation], field_names: Optional[Sequence[str]] = None
    ) -> None:
        self._named = field_names is not None
        self._types = _check_types("Types.ROW_NAMED" if self._named else "Types.ROW", field_types)
        if field_names is None:
            self._names = ["f%d" % i for i in range(len(self._types))]
            return
        if not isinstance(field_names, (list, tuple)):
            raise TypeError("field_names must be a list of str, got %s" % describe(field_names))
        names = list(field_names)
        for name in names:
            if not isinstance(name, str) or not name:
                raise TypeError("field names must be non-empty str, got %s" % describe(name))
        duplicates = sorted({n for n in names if names.count(n) > 1})
        if duplicates:
            raise ValueError("field names must be unique, duplicated: %r" % duplicates)
        if len(names) != len(self._types):
            raise ValueError(
                "got %d field names %r but %d field types" % (len(names), names, len(self._types))
            )
        self._names = names

    def get_field_names(self) -> List[str]:
        return list(self._names)

    def get_field_types(self) -> List[TypeInformation]:
        return list(self._types)

    def get_arity(self) -> int:
        return len(self._types)

    def get_field_index(self, field_name: str) -> int:
        """Position of ``field_name``, or -1 (like Flink) if there is none."""
        return self._names.index(field_name) if field_name in self._names else -1

    def _validate(self, value: Any, path: str, field: Optional[str]) -> None:
        if value is None:
            return
        kind = "ROW_NAMED" if self._named else "ROW"
        if not isinstance(value, (Row, tuple, list)):
            raise mismatch(
                path,
                field,
                "%s (a Row, tuple or list with %s)" % (kind, _fields(len(self._types))),
                value,
            )
        _check_arity(path, field, kind, len(self._types), value)
        row_names = value.get_field_names() if isinstance(value, Row) else None
        if self._named and row_names is not None:
            for i, (got, want) in enumerate(zip(row_names, self._names)):
                if got != want:
                    location = where("%s.%s" % (path, want), want)
                    raise TypeError(
                        "%s: the Row has field %r at position %d where the type "
                        "declares %r (declared %r, Row has %r)"
                        % (location, got, i, want, self._names, row_names)
                    )
        for name, t, v in zip(self._names, self._types, value):
            t._validate(v, "%s.%s" % (path, name), name)

    def to_arrow_type(self) -> Any:
        import pyarrow as pa

        return pa.struct(
            [pa.field(name, t.to_arrow_type()) for name, t in zip(self._names, self._types)]
        )

    def _convert(self, value: Any) -> Any:
        if value is None:
            return None
        row = Row(*[t._convert(v) for t, v in zip(self._types, value)])
        if isinstance(value, Row):
            row.set_row_kind(value.get_row_kind())
        # as PyFlink's rows of a row type: its field names (f0, f1, ... where unnamed)
        row.set_field_names(self._names)
        return row

    def _key(self) -> tuple[object, ...]:
        return (tuple(self._names), tuple(self._types))

    def __repr__(self) -> str:
        types = "[%s]" % ", ".join(map(repr, self._types))
        if self._named:
            return "Types.ROW_NAMED(%r, %s)" % (self._names, types)
        return "Types.ROW(%s)" % types


class TupleTypeInfo(TypeInformation):
    """A Python ``tuple`` with typed positions (``Types.TUPLE``)."""

    def __init__(self, field_types: Sequence[TypeInformation]) -> None:
        self._types = _check_types("Types.TUPLE", field_types)

    def get_field_types(self) -> List[TypeInformation]:
        return list(self._types)

    def get_arity(self) -> int:
        return len(self._types)

    def _validate(self, value: Any, path: str, field: Optional[str]) -> None:
        if value is None:
            return
        if not isinstance(value, tuple):
            expected = "TUPLE (a tuple with %s)" % _fields(len(self._types))
            raise mismatch(path, field, expected, value)
        _check_arity(path, field, "TUPLE", len(self._types), value)
        for i, (t, v) in enumerate(zip(self._types, value)):
            t._validate(v, "%s[%d]" % (path, i), None)

    def to_arrow_type(self) -> Any:
        import pyarrow as pa

        return pa.struct(
            [pa.field("f%d" % i, t.to_arrow_type()) for i, t in enumerate(self._types)]
        )

    def _key(self) -> tuple[object, ...]:
        return tuple(self._types)

    def _convert(self, value: Any) -> Any:
        if value is None:
            return None
        return tuple(t._convert(v) for t, v in zip(self._types, value))

    def __repr__(self) -> str:
        return "Types.TUPLE([%s])" % ", ".join(map(repr, self._types))


class _ElementsTypeInfo(TypeInformation):
    """A Python ``list`` whose elements all have one type."""

    _factory = "LIST"

    def __init__(self, element_type: TypeInformation) -> None:
        self._element_type = _check_type("Types.%s element_type" % self._factory, element_type)

    def get_element_type(self) -> TypeInformation:
        return self._element_type

    def _validate(self, value: Any, path: str, field: Optional[str]) -> None:
        if value is None:
            return
        if not isinstance(value, list):
            raise mismatch(path, field, "%s (a list)" % self._factory, value)
        for i, v in enumerate(value):
            self._validate_element(v, "%s[%d]" % (path, i))

    def _validate_element(self, value: Any, path: str) -> None:
        self._element_type._validate(value, path, None)

    def _convert(self, value: Any) -> Any:
        if not isinstance(value, list):  # None, or bytes for PRIMITIVE_ARRAY(BYTE())
            return value
        return [self._element_type._convert(v) for v in value]

    def to_arrow_type(self) -> Any:
        import pyarrow as pa

        return pa.list_(self._element_type.to_arrow_type())

    def _key(self) -> tuple[object, ...]:
        return (self._element_type,)

    def __repr__(self) -> str:
        return "Types.%s(%r)" % (self._factory, self._element_type)


class ListTypeInfo(_ElementsTypeInfo):
    """``Types.LIST(element_type)``: a Python ``list``."""


class ObjectArrayTypeInfo(_ElementsTypeInfo):
    """``Types.OBJECT_ARRAY(element_type)``: a Python ``list``."""

    _factory = "OBJECT_ARRAY"


class BasicArrayTypeInfo(_ElementsTypeInfo):
    """``Types.BASIC_ARRAY(basic_type)``: a ``list`` of nullable basic values."""

    _factory = "BASIC_ARRAY"

    def __init__(self, element_type: TypeInformation) -> None:
        super().__init__(element_type)
        if not isinstance(element_type, BasicTypeInfo):
            allowed = ", ".join("Types.%s()" % n for n in BASIC_NAMES)
            raise TypeError(
                "Types.BASIC_ARRAY needs a basic element type (%s), got %r"
                % (allowed, element_type)
            )


class PrimitiveArrayTypeInfo(_ElementsTypeInfo):
    """``Types.PRIMITIVE_ARRAY(primitive)``: a ``list`` without ``None`` elements.

    ``PRIMITIVE_ARRAY(BYTE())`` is Java's ``byte[]``: it also accepts
    ``bytes``/``bytearray`` and maps to pyarrow ``binary``.
    """

    _factory = "PRIMITIVE_ARRAY"
    _element_type: BasicTypeInfo  # (its __init__ refuses any other)

    def __init__(self, element_type: TypeInformation) -> None:
        super().__init__(element_type)
        if not (isinstance(element_type, BasicTypeInfo) and element_type.name in PRIMITIVE_NAMES):
            allowed = ", ".join("Types.%s()" % n for n in PRIMITIVE_NAMES)
            raise TypeError(
                "Types.PRIMITIVE_ARRAY needs a primitive element type (%s), got %r"
                % (allowed, element_type)
            )

    def _is_bytes(self) -> bool:
        return self._element_type.name == "BYTE"

    def _validate(self, value: Any, path: str, field: Optional[str]) -> None:
        if self._is_bytes() and isinstance(value, (bytes, bytearray)):
            return
        super()._validate(value, path, field)

    def _validate_element(self, value: Any, path: str) -> None:
        if value is None:
            raise TypeError(
                "%s: expected %s, got None (primitive arrays cannot hold None)"
                % (where(path, None), self._element_type.name)
            )
        super()._validate_element(value, path)

    def to_arrow_type(self) -> Any:
        import pyarrow as pa

        return pa.binary() if self._is_bytes() else super().to_arrow_type()


class MapTypeInfo(TypeInformation):
    """``Types.MAP(key_type, value_type)``: a Python ``dict`` (keys not ``None``)."""

    def __init__(self, key_type_info: TypeInformation, value_type_info: TypeInformation) -> None:
        self._key_type = _check_type("Types.MAP key_type_info", key_type_info)
        self._value_type = _check_type("Types.MAP value_type_info", value_type_info)

    def get_key_type(self) -> TypeInformation:
        return self._key_type

    def get_value_type(self) -> TypeInformation:
        return self._value_type

    def _validate(self, value: Any, path: str, field: Optional[str]) -> None:
        if value is None:
            return
        if not isinstance(value, dict):
            raise mismatch(path, field, "MAP (a dict)", value)
        for k, v in value.items():
            key_path = "%s<key %r>" % (path, k)
            if k is None:
                raise TypeError("%s: map keys cannot be None" % where(key_path, None))
            self._key_type._validate(k, key_path, None)
            self._value_type._validate(v, "%s[%r]" % (path, k), None)

    def to_arrow_type(self) -> Any:
        import pyarrow as pa

        return pa.map_(self._key_type.to_arrow_type(), self._value_type.to_arrow_type())

    def _convert(self, value: Any) -> Any:
        if value is None:
            return None
        return {self._key_type._convert(k): self._value_type._convert(v) for k, v in value.items()}

    def _key(self) -> tuple[object, ...]:
        return (self._key_type, self._value_type)

    def __repr__(self) -> str:
        return "Types.MAP(%r, %r)" % (self._key_type, self._value_type)
