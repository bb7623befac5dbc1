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

Its `jars` directory is links to pyspark's jars too, but for signed ones, which it copies
without their signatures: HotSpot keeps no class of a signed jar in its class archive
(weir.spark.class_archive), and Janino, which compiles the code Spark generates for every
query, comes in two signed jars. A fresh JVM loaded and verified their ~450 classes in the
first micro-batch of every job; archived, the README's job took ~0.15 s less.

The copy lives in weir's cache directory (`cache_base`), one per pyspark installation (and
its jars); without a cache directory weir uses pyspark's home as it is.
"""

import hashlib
import os
import re
from contextlib import contextmanager
import shutil
import sys
import tempfile
import zipfile
from importlib.util import find_spec

SKIPPED = "python"  # (python/lib holds the zips)
JARS = "jars"
LAYOUT = "2"  # of the copy: 2, its jars linked one by one, signed ones copied unsigned
SIGNATURE = re.compile(r"META-INF/[^/]+\.(SF|RSA|DSA|EC)$")
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
    digest = hashlib.sha256("\0".join([home, LAYOUT, *jar_stamps(home)]).encode()).hexdigest()[:16]
    linked = os.path.join(base, "spark-homes", digest)
    entries = sorted(name for name in os.listdir(home) if name != SKIPPED)
    if _has(linked, entries):
        return linked
    try:
        _make(linked, home, entries)
    except OSError:
        return None
    return linked if _has(linked, entries) else None


def _workers_run_this_python() -> bool:
    python = os.environ.get("PYSPARK_PYTHON")
    return python is None or os.path.realpath(shutil.which(python) or python) == os.path.realpath(
        sys.executable
    )


def _has(directory: str, entries: list) -> bool:
    """Whether `directory` has every one of `entries` (Spark may add its own: a local
    cluster's `work`)."""
    try:
        return set(entries) <= set(os.listdir(directory))
    except OSError:
        return False


def _make(linked: str, home: str, entries: list) -> None:
    """Makes `linked` a directory of links to `home`'s `entries`, in one rename."""
    parent = os.path.dirname(linked)
    os.makedirs(parent, exist_ok=True)
    building = tempfile.mkdtemp(prefix=".building-", dir=parent)
    try:
        for name in entries:
            if name == JARS:
                _link_jars(os.path.join(home, name), os.path.join(building, name))
            else:
                os.symlink(os.path.join(home, name), os.path.join(building, name))
        if os.path.isdir(linked):  # (of another pyspark at that path: set aside)
            os.rename(linked, tempfile.mkdtemp(prefix=".stale-", dir=parent) + "/home")
        os.rename(building, linked)
    except OSError:
        shutil.rmtree(building, ignore_errors=True)
        if not os.path.isdir(linked):
            raise


def file_stamp(path: str) -> str:
    """The size and time of the file at `path` ("" where there is none)."""
    try:
        st = os.stat(path)
    except OSError:
        return ""
    return f"{st.st_size}:{int(st.st_mtime)}"


def jar_stamps(home: str) -> list:
    """The name, size and time of each of a Spark home's jars (a new pyspark at the same
    path, or another class path, has others)."""
    jars = os.path.join(home, JARS)
    try:
        return sorted(f"{name}:{file_stamp(os.path.join(jars, name))}" for name in os.listdir(jars))
    except OSError:
        return []


def _link_jars(jars: str, target: str) -> None:
    """`target`: links to the files of `jars`, and copies of its signed jars without their
    signatures."""
    os.makedirs(target)
    for name in sorted(os.listdir(jars)):
        path, copy = os.path.join(jars, name), os.path.join(target, name)
        if name.endswith(".jar") and _signed(path):
            try:
                _copy_unsigned(path, copy)
                continue
            except Exception:  # (a jar zipfile cannot rewrite: linked as it is)
                if os.path.exists(copy):
                    os.remove(copy)
        os.symlink(path, copy)


def _signed(jar: str) -> bool:
    try:
        with zipfile.ZipFile(jar) as archive:
            return any(SIGNATURE.match(name) for name in archive.namelist())
    except (OSError, zipfile.BadZipFile):
        return False


def _copy_unsigned(jar: str, target: str) -> None:
    """A copy of `jar` without its signature files (its entries as they are, in order)."""
    with zipfile.ZipFile(jar) as source, zipfile.ZipFile(target, "w") as copy:
        for info in source.infolist():
            if not SIGNATURE.match(info.filename):
                copy.writestr(info, source.read(info))
    st = os.stat(jar)  # (its times: the class archive's key stays that of the jars)
    os.utime(target, ns=(st.st_atime_ns, st.st_mtime_ns))
