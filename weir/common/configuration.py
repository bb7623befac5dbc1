"""``Configuration``, mirroring ``pyflink.common.Configuration``.

Values are stored as strings, like Flink: ``set_integer("a", 5)`` stores
``"5"``, ``set_boolean("b", True)`` stores ``"true"``.
"""

import base64
import binascii
import numbers
from typing import Dict, Optional, Set

__all__ = ["Configuration"]

_INT_MIN, _INT_MAX = -(2**31), 2**31 - 1


def _check_key(key: object) -> str:
    if not isinstance(key, str):
        raise TypeError("configuration key must be a str, got %s %r" % (type(key).__name__, key))
    return key


def _bad_value(setter: str, expected: str, key: str, value: object) -> TypeError:
    return TypeError(
        "%s(%r, ...) expects %s, got %s %r" % (setter, key, expected, type(value).__name__, value)
    )


class Configuration:
    """A string-to-string map of settings with typed getters and setters."""

    def __init__(
        self,
        other: Optional["Configuration"] = None,
        j_configuration: Optional["Configuration"] = None,
    ) -> None:
        """`j_configuration` (PyFlink's): a configuration this one writes through to (the
        environment's, from weir.util.java_utils.get_j_env_configuration)."""
        self._data: Dict[str, str] = {}
        if j_configuration is not None:
            if not isinstance(j_configuration, Configuration):
                raise TypeError(
                    "Configuration(j_configuration=...) expects the "
                    "configuration get_j_env_configuration gives, got %r" % (j_configuration,)
                )
            self._data = j_configuration._data
        if other is not None:
            if not isinstance(other, Configuration):
                raise TypeError(
                    "Configuration(other) expects a Configuration, got %s %r"
                    % (type(other).__name__, other)
                )
            self._data.update(other._data)

    # -- strings -------------------------------------------------------

    def get_string(self, key: str, default_value: Optional[str] = None) -> Optional[str]:
        return self._data.get(_check_key(key), default_value)

    def set_string(self, key: str, value: str) -> "Configuration":
        if not isinstance(value, str):
            raise _bad_value("set_string", "a str", key, value)
        self._data[_check_key(key)] = value
        return self

    # -- integers ------------------------------------------------------

    def get_integer(self, key: str, default_value: Optional[int] = None) -> Optional[int]:
        raw = self._data.get(_check_key(key))
        if raw is None:
            return default_value
        try:
            return int(raw.strip())
        except ValueError:
            raise ValueError(
                "Could not parse value %r for key %r as an integer" % (raw, key)
            ) from None

    def set_integer(self, key: str, value: int) -> "Configuration":
        if isinstance(value, bool) or not isinstance(value, numbers.Integral):
            raise _bad_value("set_integer", "an int", key, value)
        if not _INT_MIN <= value <= _INT_MAX:
            raise ValueError(
                "set_integer(%r, %d): value is outside the 32-bit range "
                "[%d, %d]" % (key, value, _INT_MIN, _INT_MAX)
            )
        self._data[_check_key(key)] = str(int(value))
        return self

    # -- booleans ------------------------------------------------------

    def get_boolean(self, key: str, default_value: Optional[bool] = None) -> Optional[bool]:
        raw = self._data.get(_check_key(key))
        if raw is None:
            return default_value
        text = raw.strip().lower()
        if text == "true":
            return True
        if text == "false":
            return False
        raise ValueError(
            "Could not parse value %r for key %r as a boolean "
            "(expected 'true' or 'false')" % (raw, key)
        )

    def set_boolean(self, key: str, value: bool) -> "Configuration":
        if not isinstance(value, bool):
            raise _bad_value("set_boolean", "a bool", key, value)
        self._data[_check_key(key)] = "true" if value else "false"
        return self

    # -- floats --------------------------------------------------------

    def get_float(self, key: str, default_value: Optional[float] = None) -> Optional[float]:
        raw = self._data.get(_check_key(key))
        if raw is None:
            return default_value
        try:
            return float(raw.strip())
        except ValueError:
            raise ValueError(
                "Could not parse value %r for key %r as a float" % (raw, key)
            ) from None

    def set_float(self, key: str, value: float) -> "Configuration":
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            raise _bad_value("set_float", "a float", key, value)
        self._data[_check_key(key)] = repr(float(value))
        return self

    # -- bytes (stored base64-encoded) ---------------------------------

    def get_bytearray(
        self, key: str, default_value: Optional[bytearray] = None
    ) -> Optional[bytearray]:
        raw = self._data.get(_check_key(key))
        if raw is None:
            return default_value
        try:
            return bytearray(base64.b64decode(raw, validate=True))
        except (binascii.Error, ValueError):
            raise ValueError(
                "Could not parse value %r for key %r as base64 bytes" % (raw, key)
            ) from None

    def set_bytearray(self, key: str, value: bytearray) -> "Configuration":
        if not isinstance(value, (bytes, bytearray)):
            raise _bad_value("set_bytearray", "bytes or bytearray", key, value)
        self._data[_check_key(key)] = base64.b64encode(bytes(value)).decode("ascii")
        return self

    # -- whole-map operations ------------------------------------------

    def contains_key(self, key: str) -> bool:
        return _check_key(key) in self._data

    def key_set(self) -> Set[str]:
        return set(self._data)

    def remove_config(self, key: str) -> bool:
        """Remove ``key``; return whether it was present."""
        return self._data.pop(_check_key(key), None) is not None

    def to_dict(self) -> Dict[str, str]:
        return dict(self._data)

    def add_all_to_dict(self, target_dict: Dict[str, str]) -> None:
        target_dict.update(self._data)

    def add_all(self, other: "Configuration", prefix: Optional[str] = None) -> "Configuration":
        """Copy all entries of ``other`` (keys prefixed with ``prefix`` if given)."""
        if not isinstance(other, Configuration):
            raise TypeError(
                "add_all() expects a Configuration, got %s %r" % (type(other).__name__, other)
            )
        pre = "" if prefix is None else prefix
        for key, value in list(other._data.items()):
            self._data[pre + key] = value
        return self

    def __contains__(self, key: object) -> bool:
        return key in self._data

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Configuration):
            return NotImplemented
        return self._data == other._data

    __hash__ = None  # type: ignore[assignment]  # mutable: unhashable (Python's idiom)

    def __repr__(self) -> str:
        return "Configuration(%r)" % (self._data,)
