"""PyFlink's API that weir does not have yet: a clear NotImplementedError, never an
AttributeError deep inside weir.

A module lists the PyFlink names it lacks with `module_gaps`; a class lists the PyFlink
methods it lacks in `_pyflink_gaps` and inherits `PyFlinkGaps`. Only names weir does not
define reach these hooks, so they cost nothing on the names it has.
"""

LIMITATIONS = "see docs/limitations.md in weir's repository"


def not_there_yet(api: str):
    raise NotImplementedError(f"PyFlink's {api} is not in weir yet: {LIMITATIONS}")


def module_gaps(module_name: str, pyflink_module: str, names):
    """A module-level __getattr__: PyFlink's `names` raise NotImplementedError."""
    names = frozenset(names)

    def __getattr__(name):
        if name in names:
            not_there_yet(f"{pyflink_module}.{name}")
        raise AttributeError(f"module {module_name!r} has no attribute {name!r}")

    return __getattr__


class PyFlinkGaps:
    """Methods PyFlink's class has and weir's not yet raise NotImplementedError."""

    _pyflink_class = ""
    _pyflink_gaps: frozenset = frozenset()

    def __getattr__(self, name):
        if name in type(self)._pyflink_gaps:
            not_there_yet(f"{type(self)._pyflink_class}.{name}()")
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")
