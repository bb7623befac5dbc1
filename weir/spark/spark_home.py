"""The Spark home weir's embedded JVM starts from: pyspark's own, without its Python zips.

Spark starts each of its Python processes (the workers, and per query a source runner
and a state planner on the driver) with SPARK_HOME/python/lib/pyspark.zip and py4j's zip
first on PYTHONPATH. Python cannot cache bytecode for a zip, so every one of them compiled
pyspark from source again: ~0.6 s of CPU per process, ~3.5 s of the README job's wall time
in a fresh process of a pip-installed weir (13.9 -> 10.2 s here). Where pyspark is
installed as a package (its home is the package's own directory, the zips are that very
code) and Spark's Python processes run this interpreter, weir starts the JVM from a copy
of that home made of links to everything but its `python` directory: Spark then finds no
zips, and its processes import the installed pyspark, with its bytecode.

The copy lives in weir's cache directory (`cache_base`), one per pyspark installation;
without a cache directory weir uses pyspark's home as it is.
"""

import hashlib
import os
from contextlib import contextmanager
import shutil
import sys
import tempfile
from importlib.util import find_spec

SKIPPED = "python"  # (python/lib holds the zips)
CACHE_SETTING = "WEIR_CACHE_DIR"
OFF = ("0", "off", "false", "no")


def cache_base():
    """weir's cache directory ($WEIR_CACHE_DIR, else $XDG_CACHE_HOME/weir, else
    ~/.cache/weir), or None where WEIR_CACHE_DIR is `off`."""
    setting = os.environ.get(CACHE_SETTING, "")
    if setting.lower() in OFF:
        return None
    if setting:
        return setting
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "weir")


def spark_home():
    """The Spark installation pyspark launches (pyspark.find_spark_home, without pyspark)."""
    if "SPARK_HOME" in os.environ:
        return os.environ["SPARK_HOME"]
    spec = find_spec("pyspark")
    return os.path.dirname(spec.origin) if spec is not None and spec.origin else None


def launch_home():
    """The Spark home the embedded JVM starts from."""
    return home_without_zips() or spark_home()


@contextmanager
def launching_from(home):
    """SPARK_HOME set to `home` while Spark's JVM is launched (the JVM keeps it and passes
    it on to Spark's Python processes), and unset again; nothing where `home` is None."""
    if home is None:
        yield
        return
    os.environ["SPARK_HOME"] = home
    try:
        yield
    finally:
        os.environ.pop("SPARK_HOME", None)


def home_without_zips():
    """The Spark home to start the embedded JVM from, or None to leave SPARK_HOME alone (it
    is set, or pyspark is not installed as a package, or the workers run another Python)."""
    base = cache_base()
    if base is None or "SPARK_HOME" in os.environ or not _workers_run_this_python():
        return None
    home = spark_home()
    if (
        home is None
        or not os.path.isdir(os.path.join(home, SKIPPED, "lib"))
        or not os.path.isfile(os.path.join(home, "__init__.py"))
    ):
        return None
    home = os.path.realpath(home)
    digest = hashlib.sha256(home.encode()).hexdigest()[:16]
    linked = os.path.join(base, "spark-homes", digest)
    entries = sorted(name for name in os.listdir(home) if name != SKIPPED)
    if _links(linked) == entries:
        return linked
    try:
        _make(linked, home, entries)
    except OSError:
        return None
    return linked if _links(linked) == entries else None


def _workers_run_this_python() -> bool:
    python = os.environ.get("PYSPARK_PYTHON")
    return python is None or os.path.realpath(shutil.which(python) or python) == os.path.realpath(
        sys.executable
    )


def _links(directory: str):
    try:
        return sorted(os.listdir(directory))
    except OSError:
        return None


def _make(linked: str, home: str, entries: list) -> None:
    """Makes `linked` a directory of links to `home`'s `entries`, in one rename."""
    parent = os.path.dirname(linked)
    os.makedirs(parent, exist_ok=True)
    building = tempfile.mkdtemp(prefix=".building-", dir=parent)
    try:
        for name in entries:
            os.symlink(os.path.join(home, name), os.path.join(building, name))
        if os.path.isdir(linked):  # (of another pyspark at that path: set aside)
            os.rename(linked, tempfile.mkdtemp(prefix=".stale-", dir=parent) + "/home")
        os.rename(building, linked)
    except OSError:
        shutil.rmtree(building, ignore_errors=True)
        if not os.path.isdir(linked):
            raise
