"""How records and state travel as bytes: any Python object a user's function returns.

The standard pickle is tried first (fast, in C). It pickles classes and functions by
reference to their module, which fails where that module cannot be found: a class of the
job script (`__main__`) or of a module beside it in a Spark worker (which got the user's
functions by value), or one defined inside a function. Those values are pickled with
cloudpickle instead, which carries such classes by value (as PyFlink and PySpark ship
them); the standard `pickle.loads` reads both. A value that neither can pickle (a lock, an
open file) is refused with one error naming its type and why.
"""

import copyreg
import io
import pickle
import types
from typing import Any, BinaryIO, Callable, Iterable, Tuple

import cloudpickle

from weir.common.errors import WeirError

PROTOCOL = 5


class NotSerializable(WeirError, TypeError):
    """A value that cannot travel between operators or be kept in state."""


def dumps(value: Any, protocol: int = PROTOCOL) -> bytes:
    try:
        return pickle.dumps(value, protocol=protocol)
    except Exception:  # PicklingError, AttributeError (a local class), TypeError, ...
        return _by_value(value, protocol)


def _code_keeping_its_file(code: types.CodeType) -> Tuple[Callable[..., Any], Tuple[Any, ...]]:
    """cloudpickle's reduction of a code object, with its file name kept (cloudpickle 3.1.3
    writes "<dynamic-code>" instead, and an error could no longer name the user's file)."""
    constructor, arguments = _CODE_REDUCE(code)
    return constructor, tuple(
        code.co_filename if argument == "<dynamic-code>" else argument for argument in arguments
    )


_CODE_REDUCE = cloudpickle.Pickler._dispatch_table[types.CodeType]


class _Pickler(cloudpickle.Pickler):  # type: ignore[misc]  # (cloudpickle: no type information)
    """cloudpickle's pickler with its reducers in one dict: cloudpickle looks each object's
    type up in a ChainMap (a Python call per record; ~1.1 against ~2.0 us a dataclass
    record). The dict is made per pickler, so copyreg's later registrations count."""

    def __init__(self, file: BinaryIO, protocol: int) -> None:
        # (before the pickler's own __init__, which reads it)
        self.dispatch_table = {
            **copyreg.dispatch_table,
            **cloudpickle.Pickler._dispatch_table,
            types.CodeType: _code_keeping_its_file,
        }
        super().__init__(file, protocol=protocol)


def _by_value(value: Any, protocol: int) -> bytes:
    buffer = io.BytesIO()
    try:
        _Pickler(buffer, protocol).dump(value)
    except Exception as exc:
        raise NotSerializable(f"{type(exc).__name__}: {exc}") from None
    return buffer.getvalue()


def dumps_by_value(value: Any) -> bytes:
    """`value` pickled with cloudpickle throughout (functions and classes of the job by
    value where they cannot be imported): what weir ships a job's plan and tasks with, so
    that the classes a worker rebuilds are the ones its records and state come back as."""
    return _by_value(value, PROTOCOL)


def register_by_value(module: types.ModuleType) -> None:
    """Pickles `module`'s classes and functions by value (a user module a Spark worker
    cannot import)."""
    cloudpickle.register_pickle_by_value(module)


def describe_types(values: Iterable[Any]) -> str:
    """The types of `values`, as an error names them."""
    kinds = sorted({f"{type(v).__module__}.{type(v).__qualname__}" for v in values})
    return ", ".join(kinds[:5]) + (f" and {len(kinds) - 5} more" if len(kinds) > 5 else "")
