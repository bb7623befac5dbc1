"""Base class, error messages and atomic types of ``weir.common.typeinfo``."""

import datetime
import decimal
import numbers
import struct
from typing import Any, Callable, Dict, Optional, cast


# -- error messages ------------------------------------------------------


def describe(value: Any) -> str:
    """``str 'abc'``, ``int 5``, ``Row(a=1)``: the type name and a short repr."""
    text = repr(value)
    if len(text) > 80:
        text = text[:77] + "..."
    name = type(value).__name__
    named = text.startswith(name) or text.startswith("<%s(" % name)  # (an unnamed Row)
    return text if named else "%s %s" % (name, text)


def where(path: str, field: Optional[str]) -> str:
    if field is not None:
        return "field %r (path %s)" % (field, path)
    return "path %s" % path


def mismatch(
    path: str, field: Optional[str], expected: str, value: Any, detail: str = ""
) -> TypeError:
    return TypeError(
        "%s: expected %s, got %s%s" % (where(path, field), expected, describe(value), detail)
    )


class TypeInformation:
    """Describes the type of the records of a stream (base class)."""

    def validate(self, value: Any, path: str = "value") -> None:
        """Raise ``TypeError`` naming the field path if ``value`` does not fit."""
        self._validate(value, path, None)

    def convert(self, value: Any, path: str = "value") -> Any:
        """``value`` as a record of this type, as PyFlink converts it: a tuple or list for
        a ``ROW`` becomes a ``Row`` (named for ``ROW_NAMED``), a ``FLOAT`` is rounded to 32
        bits, a ``DOUBLE`` is a float. Raises ``TypeError`` naming the field where
        ``value`` does not fit."""
        self._validate(value, path, None)
        return self._convert(value)

    def _convert(self, value: Any) -> Any:
        return value

    def to_arrow_type(self) -> Any:
        """The equivalent ``pyarrow.DataType``."""
        raise NotImplementedError

    def _validate(self, value: Any, path: str, field: Optional[str]) -> None:
        raise NotImplementedError

    def _key(self) -> tuple[object, ...]:
        raise NotImplementedError

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, TypeInformation):
            return NotImplemented
        return type(self) is type(other) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash((type(self).__name__,) + self._key())


# -- atomic types --------------------------------------------------------
_FLOAT32 = struct.Struct("f")


def _int_check(bits: int) -> Callable[[Any], Optional[str]]:
    low, high = -(2 ** (bits - 1)), 2 ** (bits - 1) - 1

    def check(value: Any) -> Optional[str]:
        if isinstance(value, bool) or not isinstance(value, numbers.Integral):
            return ""
        if not low <= value <= high:
            return " which is out of range [%d, %d]" % (low, high)
        return None

    return check


def _is(*classes: type, exclude: tuple[type, ...] = (bool,)) -> Callable[[Any], Optional[str]]:
    def check(value: Any) -> Optional[str]:
        ok = isinstance(value, classes) and not isinstance(value, exclude)
        return None if ok else ""

    return check


def _check_char(value: Any) -> Optional[str]:
    if not isinstance(value, str):
        return ""
    return None if len(value) == 1 else " which is not a single character"


def _check_big_int(value: Any) -> Optional[str]:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        return ""
    return None if abs(cast(int, value)) < 10**38 else " which has more than 38 digits"


# name -> (check, pyarrow type builder). A check returns None when the value
# fits, otherwise a (possibly empty) detail appended to the error message.
_ATOMIC: Dict[str, tuple[Callable[[Any], Optional[str]], Callable[[Any], Any]]] = {
    "STRING": (_is(str, exclude=()), lambda pa: pa.string()),
    "BYTE": (_int_check(8), lambda pa: pa.int8()),
    "BOOLEAN": (_is(bool, exclude=()), lambda pa: pa.bool_()),
    "SHORT": (_int_check(16), lambda pa: pa.int16()),
    "INT": (_int_check(32), lambda pa: pa.int32()),
    "LONG": (_int_check(64), lambda pa: pa.int64()),
    "FLOAT": (_is(numbers.Real), lambda pa: pa.float32()),
    "DOUBLE": (_is(numbers.Real), lambda pa: pa.float64()),
    "CHAR": (_check_char, lambda pa: pa.string()),
    "BIG_INT": (_check_big_int, lambda pa: pa.decimal128(38, 0)),
    "BIG_DEC": (_is(decimal.Decimal, numbers.Integral), lambda pa: pa.decimal128(38, 18)),
    "SQL_DATE": (_is(datetime.date, exclude=(datetime.datetime,)), lambda pa: pa.date32()),
    "SQL_TIME": (_is(datetime.time, exclude=()), lambda pa: pa.time32("ms")),
    "SQL_TIMESTAMP": (_is(datetime.datetime, exclude=()), lambda pa: pa.timestamp("ms")),
    "PICKLED_BYTE_ARRAY": (lambda value: None, lambda pa: pa.binary()),
    "INSTANT": (
        lambda value: None if type(value).__name__ == "Instant" else "",
        lambda pa: pa.timestamp("ms", tz="UTC"),
    ),
}

PRIMITIVE_NAMES = ("BOOLEAN", "BYTE", "SHORT", "INT", "LONG", "FLOAT", "DOUBLE", "CHAR")


class AtomicTypeInfo(TypeInformation):
    """A type without nested types, identified by its ``Types`` name."""

    def __init__(self, name: str) -> None:
        if name not in _ATOMIC:
            raise ValueError("unknown atomic type %r" % (name,))
        self._name = name

    @property
    def name(self) -> str:
        return self._name

    def _validate(self, value: Any, path: str, field: Optional[str]) -> None:
        if value is None:
            return
        detail = _ATOMIC[self._name][0](value)
        if detail is not None:
            raise mismatch(path, field, self._name, value, detail)

    def to_arrow_type(self) -> Any:
        import pyarrow as pa

        return _ATOMIC[self._name][1](pa)

    def _key(self) -> tuple[object, ...]:
        return (self._name,)

    def _convert(self, value: Any) -> Any:
        if value is None:
            return None
        if self._name == "FLOAT":
            return _FLOAT32.unpack(_FLOAT32.pack(value))[0]
        if self._name == "DOUBLE":
            return float(value)
        return value

    def __repr__(self) -> str:
        return "Types.%s()" % self._name


class BasicTypeInfo(AtomicTypeInfo):
    """STRING, BYTE, BOOLEAN, SHORT, INT, LONG, FLOAT, DOUBLE, CHAR, BIG_INT, BIG_DEC."""


class SqlTimeTypeInfo(AtomicTypeInfo):
    """SQL_DATE (``datetime.date``), SQL_TIME, SQL_TIMESTAMP (``datetime.datetime``)."""


class PickledBytesTypeInfo(AtomicTypeInfo):
    """Any picklable Python object (stored as pickled bytes)."""


BASIC_NAMES = (
    "STRING",
    "BYTE",
    "BOOLEAN",
    "SHORT",
    "INT",
    "LONG",
    "FLOAT",
    "DOUBLE",
    "CHAR",
    "BIG_INT",
    "BIG_DEC",
)
