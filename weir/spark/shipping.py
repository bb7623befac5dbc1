"""Makes the user's own modules travel with the job to Spark's Python workers.

A job's functions are pickled by reference to their module. Spark workers (local or on a
cluster) can import installed packages but not the user's job directory, so every loaded
module that lives outside the Python installation is pickled by value instead.
"""

import os
import sys

from pyspark import cloudpickle

from weir.runtime.pickling import register_by_value

_INSTALLED = tuple(os.path.realpath(p) + os.sep for p in {sys.prefix, sys.base_prefix,
                                                         sys.exec_prefix})
_WEIR_DIR = os.path.dirname(os.path.dirname(os.path.realpath(__file__))) + os.sep
_checked = set()  # names of modules already looked at (realpath is ~70 us per module)


def _is_user_module(module) -> bool:
    path = getattr(module, "__file__", None)
    if not path or module.__name__ == "__main__":
        return False
    real = os.path.realpath(path)
    return not real.startswith(_INSTALLED) and not real.startswith(_WEIR_DIR)


def ship_user_modules() -> None:
    for name, module in list(sys.modules.items()):
        if name in _checked or module is None:
            continue
        _checked.add(name)
        if _is_user_module(module):
            cloudpickle.register_pickle_by_value(module)
            register_by_value(module)  # (records of its classes, too)
