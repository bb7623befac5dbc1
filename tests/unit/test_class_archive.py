"""The archive of Spark's classes and the Spark home without pyspark's zips, without a JVM:
where they live, what makes them valid, who records, when an archive is moved into place."""

import json
import os
import subprocess
import sys
import zipfile

import pytest

from weir.spark import class_archive, spark_home
from weir.spark.class_archive import MIN_BYTES, ClassArchive


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("WEIR_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("WEIR_CLASS_ARCHIVE", raising=False)
    monkeypatch.delenv(class_archive.RECORDING, raising=False)
    return tmp_path / "cache"


def _dead_pid() -> int:
    done = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    return int(done.stdout)


def test_the_cache_directory_follows_the_settings(cache, monkeypatch):
    assert class_archive.cache_directory() == str(cache / "class-archives")
    monkeypatch.setenv("WEIR_CLASS_ARCHIVE", "off")
    assert class_archive.cache_directory() is None
    monkeypatch.setenv("WEIR_CLASS_ARCHIVE", "use")
    assert class_archive.cache_directory() == str(cache / "class-archives")
    monkeypatch.setenv("WEIR_CACHE_DIR", "off")
    assert class_archive.cache_directory() is None
    monkeypatch.delenv("WEIR_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", "/somewhere")
    assert spark_home.cache_base() == "/somewhere/weir"


def test_the_key_names_what_the_archive_is_valid_for(tmp_path):
    java, home = str(tmp_path / "java"), str(tmp_path / "spark")
    os.makedirs(os.path.join(home, "jars"))
    for name in (java, os.path.join(home, "jars", "a.jar")):
        with open(name, "w") as f:
            f.write("x")
    key = class_archive.archive_key(java, home, "2g", "-XX:TieredStopAtLevel=1")
    # JIT levels, the code cache and where a crash report goes do not change what classes
    # are archived
    options = "-XX:TieredStopAtLevel=4 -XX:ReservedCodeCacheSize=240m -XX:ErrorFile=/tmp/x"
    assert class_archive.archive_key(java, home, "2g", options) == key
    assert class_archive.archive_key(java, home, "4g", "-XX:TieredStopAtLevel=1") != key
    assert class_archive.archive_key(java, home, "2g", "-XX:+UseParallelGC") != key
    with open(os.path.join(home, "jars", "b.jar"), "w") as f:
        f.write("y")
    assert class_archive.archive_key(java, home, "2g", "") != key


def test_a_job_choosing_its_own_class_sharing_gets_no_archive(cache):
    conf = {"spark.driver.extraJavaOptions": "-XX:TieredStopAtLevel=1 -Xshare:off"}
    assert class_archive.for_embedded_jvm(conf) is None
    conf = {"spark.driver.extraJavaOptions": "-XX:SharedArchiveFile=/mine.jsa"}
    assert class_archive.for_embedded_jvm(conf) is None


def test_an_archive_is_used_only_once_it_is_there(cache):
    archive = ClassArchive(str(cache), "k")
    assert archive.java_option() is None
    os.makedirs(cache)
    with open(archive.path, "wb") as f:
        f.write(b"x")
    os.utime(archive.path, (1_000_000, 1_000_000))
    option = archive.java_option()
    assert option.startswith(f"-XX:SharedArchiveFile={archive.path} -XX:ErrorFile=")
    assert os.stat(archive.path).st_mtime > 1_000_000  # (the archives used last are kept)


def test_one_process_records_at_a_time(cache):
    archive = ClassArchive(str(cache), "k")
    assert archive.claim()
    assert open(archive.marker).read() == str(os.getpid())
    assert archive.claim()  # (its own claim)
    with open(archive.marker, "w") as f:
        f.write(str(os.getppid()))  # a live process records
    assert archive.being_recorded()
    assert not archive.claim()
    os.utime(archive.marker, (1_000_000, 1_000_000))  # ... for more than a day: stale
    assert not archive.being_recorded()
    assert archive.claim()
    with open(archive.marker, "w") as f:
        f.write(str(_dead_pid()))  # a process that died recording
    assert archive.claim()
    assert open(archive.marker).read() == str(os.getpid())


class _Exited:
    def __init__(self, code):
        self.code, self.stdin, self.waited = code, None, False

    def wait(self, timeout):
        self.waited = True
        return self.code


def _recorded(archive, size):
    archive.claim()
    with open(archive.recording, "wb") as f:
        f.write(b"\0" * size)


def test_an_archive_is_moved_into_place_once_its_jvm_exited_normally(cache):
    archive, stops = ClassArchive(str(cache), "k"), []
    _recorded(archive, MIN_BYTES)
    jvm = _Exited(0)
    archive._finish(jvm, lambda: stops.append(1))
    assert stops == [1] and jvm.waited
    assert os.path.getsize(archive.path) == MIN_BYTES
    assert not os.path.exists(archive.recording) and not os.path.exists(archive.marker)


@pytest.mark.parametrize("code,size", [(1, MIN_BYTES), (0, MIN_BYTES - 1), (134, 0)])
def test_an_archive_not_written_whole_is_never_used(cache, code, size):
    archive = ClassArchive(str(cache), "k")
    _recorded(archive, size)
    archive._finish(_Exited(code), lambda: None)
    assert not os.path.exists(archive.path)
    assert not os.path.exists(archive.recording) and not os.path.exists(archive.marker)


def test_a_failing_stop_leaves_no_traceback_and_no_archive(cache):
    archive = ClassArchive(str(cache), "k")
    _recorded(archive, MIN_BYTES)

    def stop():
        raise RuntimeError("the gateway is gone")

    archive._finish(_Exited(0), stop)
    assert not os.path.exists(archive.path) and not os.path.exists(archive.marker)


def test_the_newest_archives_are_kept(cache):
    os.makedirs(cache)
    for i in range(5):
        path = cache / f"spark-{i}.jsa"
        path.write_bytes(b"x")
        os.utime(path, (1_000_000 + i, 1_000_000 + i))
    archive = ClassArchive(str(cache), "new")
    _recorded(archive, MIN_BYTES)
    archive._finish(_Exited(0), lambda: None)
    assert sorted(os.listdir(cache)) == ["spark-3.jsa", "spark-4.jsa", "spark-new.jsa"]


def test_a_recorder_starts_as_the_process_exits_unless_one_runs_or_is_not_wanted(
    cache, monkeypatch
):
    started = []
    monkeypatch.setattr(subprocess, "Popen", lambda args, **kw: started.append((args, kw)))
    archive, conf = ClassArchive(str(cache), "k"), {"spark.driver.memory": "3g"}
    archive._start_recorder(conf)
    ((args, kw),) = started
    assert args == [sys.executable, "-m", "weir", "warm-up", "--quiet"]
    assert json.loads(kw["env"][class_archive.RECORDING]) == conf
    assert kw["start_new_session"] and kw["stdout"] == subprocess.DEVNULL
    monkeypatch.setenv("WEIR_CLASS_ARCHIVE", "use")
    archive._start_recorder(conf)
    monkeypatch.delenv("WEIR_CLASS_ARCHIVE")
    os.makedirs(cache)
    with open(archive.marker, "w") as f:
        f.write(str(os.getppid()))
    archive._start_recorder(conf)
    assert len(started) == 1


def _fake_pyspark(root):
    home = root / "site" / "pyspark"
    for directory in ("bin", "jars", os.path.join("python", "lib")):
        os.makedirs(home / directory)
    (home / "__init__.py").write_text("")
    (home / "python" / "lib" / "pyspark.zip").write_bytes(b"")
    return home


def test_the_spark_home_without_zips_links_all_but_python(cache, tmp_path, monkeypatch):
    home = _fake_pyspark(tmp_path)
    monkeypatch.setattr(spark_home, "spark_home", lambda: str(home))
    monkeypatch.delenv("SPARK_HOME", raising=False)
    monkeypatch.setenv("PYSPARK_PYTHON", sys.executable)
    linked = spark_home.home_without_zips()
    assert linked.startswith(str(cache / "spark-homes"))
    assert sorted(os.listdir(linked)) == ["__init__.py", "bin", "jars"]
    assert os.path.realpath(os.path.join(linked, "bin")) == os.path.realpath(home / "bin")
    assert spark_home.home_without_zips() == linked  # (made once)
    (home / "sbin").mkdir()  # another pyspark at that path: made again
    assert sorted(os.listdir(spark_home.home_without_zips())) == [
        "__init__.py",
        "bin",
        "jars",
        "sbin",
    ]


def _jar(path, entries):
    with zipfile.ZipFile(path, "w") as jar:
        for name in entries:
            jar.writestr(name, f"bytes of {name}")


def test_the_spark_home_links_jars_and_copies_signed_ones_unsigned(cache, tmp_path, monkeypatch):
    """HotSpot archives no class of a signed jar: the copy's signed jars are unsigned."""
    home = _fake_pyspark(tmp_path)
    signed = ["META-INF/MANIFEST.MF", "META-INF/JANINO.SF", "META-INF/JANINO.RSA", "a/B.class"]
    _jar(home / "jars" / "janino.jar", signed)
    _jar(home / "jars" / "spark-core.jar", ["META-INF/MANIFEST.MF", "c/D.class"])
    monkeypatch.setattr(spark_home, "spark_home", lambda: str(home))
    monkeypatch.delenv("SPARK_HOME", raising=False)
    monkeypatch.setenv("PYSPARK_PYTHON", sys.executable)
    jars = os.path.join(spark_home.home_without_zips(), "jars")
    core = os.path.join(jars, "spark-core.jar")
    assert os.path.realpath(core) == os.path.realpath(home / "jars" / "spark-core.jar")
    copy = os.path.join(jars, "janino.jar")
    assert not os.path.islink(copy)
    with zipfile.ZipFile(copy) as jar:
        assert jar.namelist() == ["META-INF/MANIFEST.MF", "a/B.class"]
        assert jar.read("a/B.class") == b"bytes of a/B.class"
    # the source's times (the class archive's key), and kept where Spark adds to the home
    assert os.stat(copy).st_mtime_ns == os.stat(home / "jars" / "janino.jar").st_mtime_ns
    os.mkdir(os.path.join(os.path.dirname(jars), "work"))
    assert os.path.join(spark_home.home_without_zips(), "jars") == jars
    _jar(home / "jars" / "spark-core.jar", ["META-INF/MANIFEST.MF", "c/D.class", "c/E.class"])
    again = os.path.join(spark_home.home_without_zips(), "jars")
    assert again != jars  # another pyspark's jars at the same path: another copy


def test_the_spark_home_is_left_alone_where_the_zips_may_be_other_code(
    cache, tmp_path, monkeypatch
):
    home = _fake_pyspark(tmp_path)
    monkeypatch.setattr(spark_home, "spark_home", lambda: str(home))
    monkeypatch.setenv("PYSPARK_PYTHON", "/usr/bin/some-other-python")
    assert spark_home.home_without_zips() is None  # the workers run another Python
    monkeypatch.setenv("PYSPARK_PYTHON", sys.executable)
    monkeypatch.setenv("SPARK_HOME", str(home))
    assert spark_home.home_without_zips() is None  # a Spark home of the user's
    monkeypatch.delenv("SPARK_HOME")
    (home / "__init__.py").unlink()
    assert spark_home.home_without_zips() is None  # not pyspark's package directory
