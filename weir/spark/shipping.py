"""Makes the user's own modules travel with the job to Spark's Python workers.

A job's functions are pickled by reference to their module. Spark workers (local or on a
cluster) can import installed packages but not the user's job directory, so every loaded
module that lives outside the Python installation is pickled by value instead.
"""

import os
import sys

from pyspark import cloudpickle

from weir.runtime.pickling import register_by_value

_INSTALLED = tuple(
    os.path.realpath(p) + os.sep for p in {sys.prefix, sys.base_prefix, sys.exec_prefix}
)
_WEIR_DIR = os.path.dirname(os.path.dirname(os.path.realpath(__file__))) + os.sep
_checked: set = set()  # names of modules already looked at (realpath is ~70 us per module)


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


_shipped: dict = {}  # id(SparkContext) -> the files and archives already added to it


def ship_python_dependencies(spark, dependencies) -> None:
    """The job's declared Python (weir.datastream.python_dependencies) to Spark's workers,
    as Spark ships Python: files with addPyFile, archives with addArchive (extracted as
    their target directory), once per session."""
    if not dependencies:
        return
    context = spark.sparkContext
    done = _shipped.setdefault(id(context), set())
    added = [path for path in dependencies.shipped_files() if path not in done]
    for path in added:
        context.addPyFile(path)
        done.add(path)
    if added:  # a Python data source's workers get the files of its registration
        from weir.spark.source import register

        register(spark)
    for path, target in dependencies.archives:
        name = f"{path}#{target}" if target else path
        if name not in done:
            context.addArchive(name)
            done.add(name)
    if dependencies.executable:
        context.pythonExec = dependencies.executable
