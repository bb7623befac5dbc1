"""PyFlink's API that weir does not have yet: a clear NotImplementedError, never an
AttributeError deep inside weir.

A module lists the PyFlink names it lacks with `module_gaps`; a class lists the PyFlink
methods it lacks in `_pyflink_gaps` and inherits `PyFlinkGaps`. Only names weir does not
define reach these hooks, so they cost nothing on the names it has.
"""

from collections.abc import Callable, Iterable
from typing import Any, NoReturn

LIMITATIONS = "see docs/limitations.md in weir's repository"


def not_there_yet(api: str) -> NoReturn:
    raise NotImplementedError(f"PyFlink's {api} is not in weir yet: {LIMITATIONS}")


def module_gaps(
    module_name: str, pyflink_module: str, names: Iterable[str]
) -> Callable[[str], Any]:
    """A module-level __getattr__: PyFlink's `names` raise NotImplementedError."""
    gap_names = frozenset(names)

    def __getattr__(name: str) -> Any:
        if name in gap_names:
            not_there_yet(f"{pyflink_module}.{name}")
        raise AttributeError(f"module {module_name!r} has no attribute {name!r}")

    return __getattr__


class PyFlinkGaps:
    """Methods PyFlink's class has and weir's not yet raise NotImplementedError."""

    _pyflink_class = ""
    _pyflink_gaps: frozenset[str] = frozenset()

    def __getattr__(self, name: str) -> Any:
        if name in type(self)._pyflink_gaps:
            not_there_yet(f"{type(self)._pyflink_class}.{name}()")
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")
